/* The whole submission: the reference's source, through the compiler's
 * working directory.
 * REPLACES the lab file */
// expect: build-fails
// packages: the kit copy the package grades with
#include "/proc/self/cwd/solutions/lab3-folding/fold.cu"
