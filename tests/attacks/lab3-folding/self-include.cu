/* The file includes itself: 200 levels of the same errors, hundreds of
 * megabytes of log.  The build fails and its log is cut. */
// expect: build-fails
#include __FILE__
