/* Stops, then kills, every process whose command line says "grader", and
 * its process group. */
// costs: none
// lane: alone (stops and kills any grader it sees: another grade's too, were a wall to fail)
// packages: processes the package's script starts and waits for
static void hit(int pid, const char *cmdline)
{
    if (!strstr(cmdline, "grader"))
        return;
    kill(pid, SIGSTOP);
    kill(-getpgid(pid), SIGKILL);
    kill(pid, SIGKILL);
}
__attribute__((constructor)) static void attack(void) { attack_each_process(hit); }
