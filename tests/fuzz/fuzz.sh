#!/bin/sh
# fuzz.sh - builds the libFuzzer harnesses of tests/fuzz/ and runs each for
# FUZZ_SECONDS (make fuzz; docs/reliability.md).
#   usage: fuzz.sh SRCDIR OUTDIR   (run in the build directory: config.h)
#   FUZZ_CC       clang with libFuzzer (default clang)
#   FUZZ_SOURCES  the library's .c files, relative to SRCDIR (from Makefile.am)
#   FUZZ_TARGETS  the harnesses to run (default: all four)
#   FUZZ_SECONDS  seconds per harness (default 60); 0 builds only
#   FUZZ_JOBS     parallel compilations and harness runs (default 2)
# A harness's run fails on any crash, sanitizer report, leak, timeout
# (20 s for one input) or broken invariant; the input that did it is left
# in OUTDIR/findings/ and the log in OUTDIR/TARGET.log.  The corpus grown
# by the runs stays in OUTDIR/corpus/TARGET (the seeds in SRCDIR are read).
set -eu
srcdir=$1
out=$2
cc=${FUZZ_CC:-clang}
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-readers model params invariants}
jobs=${FUZZ_JOBS:-2}
: "${FUZZ_SOURCES:?FUZZ_SOURCES must list the library sources}"
flags="-g -O1 -std=c11 -Wall -Wextra -Werror -fopenmp -ffp-contract=off -D_POSIX_C_SOURCE=200809L
  -Wno-pass-failed -I$out/cfg -I$srcdir/include -I$srcdir/src -fsanitize=address,undefined -fno-sanitize-recover=all"

if ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; return (int)n * 0; }' |
    $cc -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null; then
    echo "fuzz.sh: $cc cannot build libFuzzer programs (-fsanitize=fuzzer); install clang" >&2
    exit 1
fi

mkdir -p "$out/obj" "$out/findings" "$out/cfg"
# the CPU library only: the harnesses test the C core (the CUDA backend has its emulated tests)
sed '/GBT_WITH_CUDA/d; /GBT_WITH_MPI/d' config.h >"$out/cfg/config.h.new"
cmp -s "$out/cfg/config.h.new" "$out/cfg/config.h" || mv "$out/cfg/config.h.new" "$out/cfg/config.h"
rm -f "$out/cfg/config.h.new"
# the library, instrumented for coverage: rebuilt when any source or header changed
stamp=$out/obj/.stamp
if [ ! -f "$stamp" ] || [ -n "$(find "$srcdir/src" "$srcdir/include" "$out/cfg" -newer "$stamp" -name '*.[ch]' | head -1)" ]; then
    rm -f "$out"/obj/*.o
    for s in $FUZZ_SOURCES; do echo "$s"; done |
        xargs -P "$jobs" -I{} sh -c 'o="$1/obj/$(echo "$2" | tr / _).o"; echo "  FUZZCC   $2"; \
            exec '"$cc"' '"$(echo $flags)"' -fsanitize=fuzzer-no-link -c "$3/$2" -o "$o"' sh "$out" {} "$srcdir"
    touch "$stamp"
fi
for t in $targets; do
    echo "  FUZZLD   $out/fuzz_$t"
    $cc $flags -fsanitize=fuzzer "$srcdir/tests/fuzz/fuzz_$t.c" "$out"/obj/*.o -lm -o "$out/fuzz_$t"
done
[ "$seconds" -gt 0 ] || exit 0

# The harnesses run FUZZ_JOBS at a time, each on one core; each prints its
# line when it ends, and the run fails if any of them failed.
fuzz_one() {
    t=$1
    mkdir -p "$out/corpus/$t"
    start=$(date +%s)
    if "$out/fuzz_$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$out/findings/$t-" "$out/corpus/$t" "$srcdir/tests/fuzz/corpus/$t" \
        >"$out/$t.log" 2>&1; then
        result=clean
    else
        result="FAILED (see $out/$t.log and $out/findings/)"
        touch "$out/failed"
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log" | tail -1)
    echo "fuzz $t: ${execs:-?} executions in $(($(date +%s) - start)) s: $result"
}
rm -f "$out/failed"
running=0
for t in $targets; do
    if [ "$running" -ge "$jobs" ]; then
        wait
        running=0
    fi
    fuzz_one "$t" &
    running=$((running + 1))
done
wait
[ ! -f "$out/failed" ]
