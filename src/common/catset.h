/*
 * catset.h - a categorical split's set of categories in the packed form
 * that prediction reads, on the host and on the device: one definition of
 * its layout, its size and its membership test.
 *
 * A set of n categories (ascending whole numbers below 2^24, model/tree.h)
 * takes words in proportion to n, never to its largest category:
 *
 *   a bitmap over its own range, when that range is dense enough (its
 *   W = hi / 32 - lo / 32 + 1 words, W <= n + GBT_CATSET_SLACK):
 *       set[0] = W (> 0), set[1] = lo / 32, then the W words and a zero
 *       word; category c is bit c % 32 of word c / 32 - lo / 32;
 *   else the sorted list itself (the empty set too):
 *       set[0] = 0, set[1] = n, then the n categories, ascending.
 *
 * So a set takes at most n + GBT_CATSET_SLACK + 3 words.  A bitmap
 * answers without a branch on the category (one load, of the zero word
 * for a category outside its range); a list, only for sparse sets, by
 * binary search.  GBT_CATSET_SLACK (32: a set of one category anywhere,
 * or of a few within 1,024 codes, is a bitmap) is discussed in
 * docs/perf-notes.md ("Category sets").
 */
#ifndef GBT_COMMON_CATSET_H
#define GBT_COMMON_CATSET_H

#include <stdint.h>

#include "common/hostdev.h"

#define GBT_CATSET_SLACK 32u

/* The bitmap's words for the n categories of cats (ascending), or 0 when they are kept as a list. */
GBT_SHARED uint32_t gbt_catset_bitmap_words(const uint32_t *cats, uint32_t n)
{
    const uint32_t w = n ? cats[n - 1] / 32u - cats[0] / 32u + 1u : 0u;
    return w <= n + GBT_CATSET_SLACK ? w : 0u;
}

/* The words of the packed form of the n categories of cats (ascending). */
GBT_SHARED uint32_t gbt_catset_words(const uint32_t *cats, uint32_t n)
{
    const uint32_t w = gbt_catset_bitmap_words(cats, n);
    return w ? 3u + w : 2u + n;
}

/* Writes the packed form (gbt_catset_words(cats, n) words) to out. */
GBT_SHARED void gbt_catset_pack(const uint32_t *cats, uint32_t n, uint32_t *out)
{
    const uint32_t w = gbt_catset_bitmap_words(cats, n);
    if (w) {
        const uint32_t lo = cats[0] / 32u;
        out[0] = w;
        out[1] = lo;
        for (uint32_t k = 0; k <= w; k++) out[2 + k] = 0;
        for (uint32_t k = 0; k < n; k++) out[2 + cats[k] / 32u - lo] |= 1u << (cats[k] % 32u);
    } else {
        out[0] = 0;
        out[1] = n;
        for (uint32_t k = 0; k < n; k++) out[2 + k] = cats[k];
    }
}

/* Whether category code is in a packed list (set[0] == 0). */
GBT_SHARED int gbt_catset_list_has(const uint32_t *set, uint32_t code)
{
    const uint32_t n = set[1];
    const uint32_t *c = set + 2;
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2u;
        if (c[mid] < code)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo < n && c[lo] == code;
}

/* Whether category code is in the packed set. */
GBT_SHARED int gbt_catset_has(const uint32_t *set, uint32_t code)
{
    const uint32_t w = set[0];
    uint32_t at = code / 32u - set[1]; /* below the range: wraps above every W */
    if (w == 0) return gbt_catset_list_has(set, code);
    at = at < w ? at : w; /* out of range: the zero word after the bitmap, no branch on the category */
    return (int)((set[2u + at] >> (code % 32u)) & 1u);
}

#endif
