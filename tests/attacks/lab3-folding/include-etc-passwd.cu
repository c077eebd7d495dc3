/* A system file the build can read, included: the compiler's messages quote
 * its first line (the feedback must name the file and line, not its text). */
// expect: build-fails
#include "/etc/passwd"
