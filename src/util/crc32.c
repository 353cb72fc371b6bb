/*
 * crc32.c - CRC-32 by table lookup, one byte at a time (about 1 GB/s: far
 * faster than the disk a binary dataset is read from).
 */
#include "util/crc32.h"

void gbt__crc32_init(struct gbt_crc32 *c)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t r = i;
        for (int k = 0; k < 8; k++) r = r & 1 ? 0xEDB88320u ^ (r >> 1) : r >> 1;
        c->table[0][i] = r;
    }
    for (int k = 1; k < 8; k++)
        for (uint32_t i = 0; i < 256; i++)
            c->table[k][i] = (c->table[k - 1][i] >> 8) ^ c->table[0][c->table[k - 1][i] & 0xFF];
    c->value = 0;
}

void gbt__crc32_update(struct gbt_crc32 *c, const void *p, size_t n)
{
    const unsigned char *b = p;
    uint32_t r = ~c->value;
    const uint32_t(*t)[256] = (const uint32_t(*)[256])c->table;
    /* eight bytes a step (the pages and dataset files are megabytes), then byte by byte */
    for (; n >= 8; n -= 8, b += 8) {
        const uint32_t lo = r ^ ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
        const uint32_t hi = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
        r = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^ t[3][hi & 0xFF] ^
            t[2][(hi >> 8) & 0xFF] ^ t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
    }
    for (size_t i = 0; i < n; i++) r = t[0][(r ^ b[i]) & 0xFF] ^ (r >> 8);
    c->value = ~r;
}
