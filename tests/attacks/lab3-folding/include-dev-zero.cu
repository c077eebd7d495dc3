/* A file without end: the preprocessor reads zeros until its memory runs
 * out.  The build's memory limit ends it in seconds, with a message. */
// expect: build-fails
#include "/dev/zero"
