/* A system file the build can read, included: the compiler's messages quote
 * its first line (the feedback must name the file and line, not its text). */
// expect: build-fails
// packages: compile errors in the platform's output
#include "/etc/passwd"
