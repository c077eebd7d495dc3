/* The assembler copies a file of root's into the object, and the program
 * prints it in the feedback.  The build runs as the runner user, which
 * cannot read it: the build fails. */
// expect: build-fails
#include <cstdio>
asm(".section .rodata\n.globl attack_shadow\nattack_shadow:\n.incbin \"/etc/shadow\"\n.byte 0\n.text\n");
extern "C" const char attack_shadow[];
static int attack_show = std::printf("%.200s\n", attack_shadow);
