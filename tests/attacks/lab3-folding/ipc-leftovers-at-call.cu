/* Leaves things behind at a call, once the object is loaded and serving
 * (ipc-leftovers.cu does it at load): a file and a named pipe in /dev/shm,
 * and one SysV object of each kind with keys 0x0c0da1ac (shared memory),
 * 0x0c0da1ad (semaphores), 0x0c0da1ae (a message queue holding a message),
 * plus a private shared memory segment of 789921 (0x0c0da1) bytes, which
 * no key names.  The seccomp filter refuses SysV IPC; where it is missing
 * (CUDALABS_NO_SECCOMP=1) they are made, and the grader must remove them
 * after the item all the same.  The test checks that none remains.
 * HIJACKS fold_sum */
// walls: yes (the runner's walls: plain runs, as root and as an ordinary user, with each switch)
// costs: none
// lane: alone leftovers (makes the /dev/shm files and SysV objects that every grade's check looks for, and that the grader removes after any item of their user without namespaces: another grade's too)
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
static void attack_leave_at_call(void)
{
    signal(SIGXFSZ, SIG_IGN);
    int fd = open("/dev/shm/cudalabs-attack-at-call", O_RDWR | O_CREAT, 0666);
    if (fd >= 0) {
        (void)!write(fd, "left at a call\n", 15);
        close(fd);
    }
    mkfifo("/dev/shm/cudalabs-attack-fifo", 0666);
    int shm = shmget((key_t)0x0c0da1ac, 4096, IPC_CREAT | 0666);
    if (shm >= 0) {
        void *p = shmat(shm, NULL, 0);
        if (p != (void *)-1)
            memset(p, 7, 4096), shmdt(p);
    }
    shmget(IPC_PRIVATE, 0x0c0da1, IPC_CREAT | 0600);
    semget((key_t)0x0c0da1ad, 3, IPC_CREAT | 0666);
    int queue = msgget((key_t)0x0c0da1ae, IPC_CREAT | 0666);
    if (queue >= 0) {
        struct { long type; char text[32]; } message = {1, "left at a call"};
        msgsnd(queue, &message, sizeof message.text, IPC_NOWAIT);
    }
}
extern "C" int fold_sum(const int *a, int n)
{
    static int once;
    if (!once++)
        attack_leave_at_call();
    return fold_sum_hijacked(a, n);
}
