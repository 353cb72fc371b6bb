/*
 * ubjson.h - UBJSON (Universal Binary JSON, draft 12, as XGBoost writes
 * its .ubj models) as a second encoding of a JSON document.  Reading turns
 * the bytes into the JSON text of the same document and parses that with
 * json.h, so a format's reader sees the node tree a JSON file gives (its
 * offsets are the UBJSON bytes'); writing encodes a parsed JSON document.
 */
#ifndef GBT_UBJSON_H
#define GBT_UBJSON_H

#include <stddef.h>

#include "util/json.h"
#include "util/util.h"

/* Whether src starts as a UBJSON object does: '{' and then a count, a type or a key's length marker. */
int gbt__ubjson_sniff(const char *src, size_t len);

/*
 * Parses len bytes of UBJSON into doc (free it with gbt__json_free): every
 * type of draft 12 but typed containers of null, true or false; nesting
 * and the size as gbt__json_parse limits them; a count larger than the
 * bytes left can hold is refused before anything is allocated for it.
 * Errors read "<what>: UBJSON: <problem> (byte <offset>)".
 */
gbt_status gbt__ubjson_parse(const char *src, size_t len, const char *what, struct gbt_jdoc *doc);

/*
 * A member that is an array of numbers written as a typed array (XGBoost
 * reads some arrays only so): its key and the element marker ('d' float32,
 * 'U' uint8, 'l' int32, 'L' int64).
 */
struct gbt_ubj_typed {
    const char *key;
    char marker;
};

/*
 * Appends doc as UBJSON, as XGBoost encodes its documents: members and
 * strings with int64 ('L') lengths, arrays counted ('#L'), the members
 * named in typed[0..ntyped) typed, integers in the smallest type that holds
 * them, other numbers as float32 ('d') where that is exact, else float64.
 * GBT_E_INVALID_ARG when a typed member's number does not fit its type.
 */
gbt_status gbt__ubjson_write(const struct gbt_jdoc *doc, const struct gbt_ubj_typed *typed, size_t ntyped,
                             struct gbt_strbuf *out);

#endif
