/* sha256.h: SHA-256 (FIPS 180-4), for keys that a submission must not be
 * able to make collide (build_cache.c). */
#ifndef SHA256_H
#define SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t state[8];
    uint64_t length; /* bytes hashed so far */
    unsigned char block[64];
    size_t used;     /* bytes waiting in block */
} sha256;

void sha256_begin(sha256 *h);
void sha256_add(sha256 *h, const void *bytes, size_t size);
void sha256_add_text(sha256 *h, const char *text); /* the text and its ending NUL, so that "ab","c" != "a","bc" */
void sha256_end(sha256 *h, char hex[65]);           /* the digest as 64 hex digits */

#endif /* SHA256_H */
