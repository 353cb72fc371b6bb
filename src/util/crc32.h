/*
 * crc32.h - CRC-32 (the IEEE 802.3 polynomial, reflected, as zlib's and
 * ZIP's crc32) of byte streams, for the checksums of the binary dataset
 * files (data/binary*.c) and of the pages of binned data (data/pages.c).
 */
#ifndef GBT_CRC32_H
#define GBT_CRC32_H

#include <stddef.h>
#include <stdint.h>

/*
 * A running checksum: its tables (built by gbt__crc32_init; table[0] the
 * byte-at-a-time one, table[k] a byte k places further on, for eight bytes
 * a step) and the value so far.
 */
struct gbt_crc32 {
    uint32_t table[8][256];
    uint32_t value; /* the CRC of the bytes given so far (0 for none) */
};

void gbt__crc32_init(struct gbt_crc32 *c);

/* Adds n bytes at p to the checksum. */
void gbt__crc32_update(struct gbt_crc32 *c, const void *p, size_t n);

#endif
