/* The file includes itself twice, with an error at every level: the
 * compiler walks a tree of 2^200 copies, printing the error and the chain
 * of includes for each, until it is stopped (about 180 MB of log in 300 s).
 * The build fails; its log is cut and the build stopped once it has said
 * too much. */
// expect: build-fails
#include __FILE__
#include __FILE__
static int attack_not_an_int = "text";
