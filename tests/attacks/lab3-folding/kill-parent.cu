/* Kills its parent as soon as it is loaded. */
// costs: all
__attribute__((constructor)) static void attack(void) { kill(getppid(), SIGKILL); }
