/* The whole submission: the reference's source, by the kit's own path
 * (the test writes it in for @KIT@).
 * REPLACES the lab file */
// expect: build-fails
// packages: the kit copy the package grades with
#include "@KIT@/solutions/lab3-folding/fold.cu"
