/* sha256.c: see sha256.h.  The constants are the standard's: the first 32
 * bits of the fractional parts of the cube roots (k) and square roots
 * (the start state) of the first primes. */
#include "sha256.h"

#include <stdio.h>
#include <string.h>

static const uint32_t k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void compress(sha256 *h, const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    /* the eight working variables by name: in an array shifted each round,
     * the compiler made the shift a call to memmove, 64 a block (104 MB/s
     * here; 195 now), and a platform package's grade hashes its copy of the
     * kit (build_cache.c) */
    uint32_t a = h->state[0], b = h->state[1], c = h->state[2], d = h->state[3];
    uint32_t e = h->state[4], f = h->state[5], g = h->state[6], hh = h->state[7];
    for (int i = 0; i < 64; i++) {
        uint32_t choose = (e & f) ^ (~e & g);
        uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + choose + k[i] + w[i];
        uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + majority;
        hh = g, g = f, f = e, e = d + t1;
        d = c, c = b, b = a, a = t1 + t2;
    }
    h->state[0] += a, h->state[1] += b, h->state[2] += c, h->state[3] += d;
    h->state[4] += e, h->state[5] += f, h->state[6] += g, h->state[7] += hh;
}

void sha256_begin(sha256 *h)
{
    static const uint32_t start[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(h->state, start, sizeof start);
    h->length = 0;
    h->used = 0;
}

void sha256_add(sha256 *h, const void *bytes, size_t size)
{
    const unsigned char *p = bytes;
    h->length += size;
    while (size > 0) {
        size_t take = 64 - h->used < size ? 64 - h->used : size;
        memcpy(h->block + h->used, p, take);
        h->used += take;
        p += take;
        size -= take;
        if (h->used == 64) {
            compress(h, h->block);
            h->used = 0;
        }
    }
}

void sha256_add_text(sha256 *h, const char *text) { sha256_add(h, text, strlen(text) + 1); }

void sha256_end(sha256 *h, char hex[65])
{
    uint64_t bits = h->length * 8;
    unsigned char pad = 0x80, zero = 0, length[8];
    sha256_add(h, &pad, 1);
    while (h->used != 56)
        sha256_add(h, &zero, 1);
    for (int i = 0; i < 8; i++)
        length[i] = (unsigned char)(bits >> (56 - 8 * i));
    sha256_add(h, length, 8);
    for (int i = 0; i < 8; i++)
        snprintf(hex + 8 * i, 9, "%08x", (unsigned)h->state[i]);
}
