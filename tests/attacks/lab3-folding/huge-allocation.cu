/* Asks for far more memory than a runner may have, and touches it. */
// costs: none
__attribute__((constructor)) static void attack(void)
{
    for (size_t gb = 256; gb >= 32; gb /= 2) {
        char *p = (char *)malloc(gb << 30);
        if (!p)
            continue;
        for (size_t i = 0; i < (gb << 30); i += 4096)
            p[i] = 1;
        free(p);
        break;
    }
}
