/* Leaves things behind that would outlive the grade and reach other
 * processes: a SysV shared memory segment (key 0x0c0da1ab) and a 256 MB
 * file in /dev/shm.  The test checks that neither remains after grading. */
// walls: yes (the runner's walls: plain runs, as root and as an ordinary user, with each switch)
// costs: none
// lane: alone leftovers (makes the /dev/shm files and SysV objects that every grade's check looks for, and that the grader removes after any item of their user without namespaces: another grade's too)
#include <sys/ipc.h>
#include <sys/shm.h>
__attribute__((constructor)) static void attack_leave_things(void)
{
    signal(SIGXFSZ, SIG_IGN); /* past the file size limit: a short write, not death */
    int id = shmget((key_t)0x0c0da1ab, 1 << 20, IPC_CREAT | 0666);
    if (id >= 0) {
        void *p = shmat(id, NULL, 0);
        if (p != (void *)-1)
            memset(p, 7, 4096), shmdt(p);
    }
    int fd = open("/dev/shm/cudalabs-attack-256m", O_RDWR | O_CREAT, 0666);
    if (fd >= 0) {
        if (ftruncate(fd, 256LL << 20) != 0) { /* refused past the file size limit: what it can */
            static char block[1 << 20];
            for (int i = 0; i < 256 && write(fd, block, sizeof block) > 0; i++)
                ;
        }
        close(fd);
    }
}
