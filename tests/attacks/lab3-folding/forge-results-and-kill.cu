/* Writes a forged results file at the grader's --out path, then kills
 * every grader process it can see. */
// costs: none
// lane: alone (forges the results of, and kills, any grader it sees: another grade's too, were a wall to fail)
// packages: the package's results file and folders
static void kill_graders(int pid, const char *cmdline)
{
    if (strstr(cmdline, "grader"))
        kill(pid, SIGKILL);
}
__attribute__((constructor)) static void attack(void)
{
    attack_forge_results();
    attack_each_process(kill_graders);
}
