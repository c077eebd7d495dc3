/* nvtx3/nvToolsExt.h of the cpu backend: NVTX 3's path for the same header. */
#include "../nvToolsExt.h"
