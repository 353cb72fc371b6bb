/*
 * binary.c - what the readers and the writer of binary dataset files
 * share (binary.h): the names of the per-row fields, the files' byte
 * order, and exact reads.
 */
#include <errno.h>
#include <string.h>

#include "data/binary.h"
#include "util/util.h"

const char *const gbt__binary_fields[GBT_BINARY_NFIELDS] = {"label", "weight", "base_margin",
                                                            "label_lower_bound", "label_upper_bound"};

void gbt__binary_swap_le(void *p, uint64_t n, size_t size)
{
    const union {
        uint16_t u;
        unsigned char b[2];
    } probe = {1};
    unsigned char *b = p;
    if (probe.b[0] == 1) return; /* little-endian host: the file's order already */
    for (uint64_t i = 0; i < n; i++, b += size)
        for (size_t k = 0; k < size / 2; k++) {
            const unsigned char t = b[k];
            b[k] = b[size - 1 - k];
            b[size - 1 - k] = t;
        }
}

gbt_status gbt__binary_read_exact(FILE *f, const char *path, void *buf, size_t n, const char *what)
{
    const size_t got = n ? fread(buf, 1, n, f) : 0;
    if (got == n) return GBT_OK;
    if (ferror(f)) return gbt__fail(GBT_E_IO, "%s: cannot read %s: %s", path, what, strerror(errno));
    return gbt__fail(GBT_E_FORMAT, "%s: truncated: the file ends inside %s", path, what);
}
