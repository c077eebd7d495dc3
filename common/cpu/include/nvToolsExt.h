/* nvToolsExt.h of the cpu backend: NVTX's ranges and marks, which name
 * parts of a program for a profiler.  No profiler watches the emulator, so
 * they only keep count of the nesting, as NVTX's return values report it. */
#ifndef CUDAEMU_NVTOOLSEXT_H
#define CUDAEMU_NVTOOLSEXT_H
#include <stdint.h>
#include <wchar.h>

#define NVTX_VERSION 3
enum { NVTX_COLOR_UNKNOWN = 0, NVTX_COLOR_ARGB = 1 };
enum { NVTX_MESSAGE_UNKNOWN = 0, NVTX_MESSAGE_TYPE_ASCII = 1, NVTX_MESSAGE_TYPE_UNICODE = 2 };
enum { NVTX_PAYLOAD_UNKNOWN = 0 };
typedef uint64_t nvtxRangeId_t;
typedef struct nvtxEventAttributes_v2 {
    uint16_t version;
    uint16_t size;
    uint32_t category;
    int32_t colorType;
    uint32_t color;
    int32_t payloadType;
    int32_t reserved0;
    union {
        uint64_t ullValue;
        int64_t llValue;
        double dValue;
        uint32_t uiValue;
        int32_t iValue;
        float fValue;
    } payload;
    int32_t messageType;
    union {
        const char *ascii;
        const wchar_t *unicode;
        void *registered;
    } message;
} nvtxEventAttributes_t;
#define NVTX_EVENT_ATTRIB_STRUCT_SIZE ((uint16_t)(sizeof(nvtxEventAttributes_t)))

static int cudaemu_nvtx_depth;
static inline int nvtxRangePushA(const char *message)
{
    (void)message;
    return cudaemu_nvtx_depth++;
}
static inline int nvtxRangePushW(const wchar_t *message)
{
    (void)message;
    return cudaemu_nvtx_depth++;
}
static inline int nvtxRangePushEx(const nvtxEventAttributes_t *attributes)
{
    (void)attributes;
    return cudaemu_nvtx_depth++;
}
static inline int nvtxRangePop(void) { return cudaemu_nvtx_depth > 0 ? --cudaemu_nvtx_depth : -1; }
static inline nvtxRangeId_t nvtxRangeStartA(const char *message)
{
    (void)message;
    return 1;
}
static inline nvtxRangeId_t nvtxRangeStartEx(const nvtxEventAttributes_t *attributes)
{
    (void)attributes;
    return 1;
}
static inline void nvtxRangeEnd(nvtxRangeId_t id) { (void)id; }
static inline void nvtxMarkA(const char *message) { (void)message; }
static inline void nvtxMarkEx(const nvtxEventAttributes_t *attributes) { (void)attributes; }
static inline void nvtxNameOsThreadA(uint32_t thread, const char *name) { (void)thread, (void)name; }
#define nvtxRangePush nvtxRangePushA
#define nvtxRangeStart nvtxRangeStartA
#define nvtxMark nvtxMarkA
#endif
