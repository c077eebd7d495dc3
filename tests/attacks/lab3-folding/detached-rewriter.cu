/* Leaves a detached process (setsid, double fork) that rewrites the
 * grader's results file for a while after the grader has written it. */
// costs: none
// lane: alone (rewrites the results file of any grader it sees for 30 s: another grade's too, were a wall to fail)
// packages: processes the package's script starts and waits for
__attribute__((constructor)) static void attack(void)
{
    if (fork() != 0)
        return;
    setsid();
    if (fork() != 0)
        _exit(0);
    for (int i = 0; i < 300; i++) { /* 30 s */
        attack_forge_results();
        usleep(100000);
    }
    _exit(0);
}
