#!/bin/sh
# symbols.sh - the shared library exports exactly the public API: the GBT_API
# functions of gbt.h, none of the internal names (gbt__*, the CUDA
# backend's gbt_cu_*).
. "${top_srcdir:-.}/tests/tap.sh"
lib=$builddir/.libs/libgbt.so
if [ ! -f "$lib" ] || ! command -v nm >/dev/null 2>&1; then
    echo "1..0 # SKIP no shared library or no nm"
    exit 0
fi
sed -n 's/^GBT_API.*[ *]\(gbt_[a-z0-9_]*\)(.*/\1/p' "$srcdir/include/gbt.h" | sort > "$work/api.txt"
nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVWi]$/ { print $3 }' | sort > "$work/exported.txt"
check "gbt.h declares the API (more than 20 functions)" test "$(wc -l < "$work/api.txt")" -gt 20
check "every API function is exported" sh -c "comm -23 '$work/api.txt' '$work/exported.txt' | grep -q . && exit 1 || exit 0"
comm -13 "$work/api.txt" "$work/exported.txt" > "$work/extra.txt"
check "nothing else is exported: $(head -c 200 "$work/extra.txt" | tr '\n' ' ')" test ! -s "$work/extra.txt"
done_testing
