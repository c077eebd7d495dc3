/* Closes every descriptor at load. */
// costs: all
__attribute__((constructor)) static void attack(void)
{
    for (int fd = 0; fd < 1024; fd++)
        close(fd);
}
