/* Kills its parent as soon as it is loaded. */
// costs: all
// packages: processes the package's script starts and waits for
__attribute__((constructor)) static void attack(void) { kill(getppid(), SIGKILL); }
