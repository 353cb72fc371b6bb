#!/bin/sh
# emu-mutations.sh - how well the emulated tests guard the real kernels.
#
# In a scratch copy of this checkout, each mutation of cuda/*.cu is applied
# alone: every __syncthreads() and __syncwarp() of cuda/ removed in turn,
# then off-by-one changes of loop bounds.  For each mutant the emulated
# test_backend runs in the plain build (GBT_TEST_QUICK=1: four objectives,
# the depth-12 tree included); if it passes, in the ThreadSanitizer build
# (barriers) or the AddressSanitizer build (bounds), at GBT_TEST_QUICK=3
# (two objectives, 300 or 2500 rows).  Prints a Markdown table: the
# mutation and what caught it, or "not caught".
#
#   scripts/emu-mutations.sh [SCRATCH_DIR]      (default: a new temporary dir)
#
# Takes about an hour on a 2-core machine (ThreadSanitizer dominates).
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
ncpu=$(nproc 2>/dev/null || echo 2)
log=$work/mutations.log

mkdir -p "$work"
if [ ! -f "$work/tree/Makefile" ]; then
    rm -rf "$work/tree"
    git -C "$src" ls-files -z | (cd "$src" && xargs -0 tar cf -) | (mkdir -p "$work/tree" && cd "$work/tree" && tar xf -)
    (cd "$work/tree" && autoreconf -fi && ./configure --without-cuda) > "$log" 2>&1 || {
        echo "configure failed: see $log" >&2
        exit 1
    }
fi
cd "$work/tree" || exit 1
make -j"$ncpu" tests/test_backend tests/test_backend_tsan tests/test_backend_asan >> "$log" 2>&1 || {
    echo "the unmutated build failed: see $log" >&2
    exit 1
}

# run PROGRAM QUICK-LEVEL: 0 when the test passes
run() {
    env GBT_TEST_QUICK="$2" OMP_WAIT_POLICY=passive TSAN_OPTIONS=halt_on_error=1:exitcode=66 \
        ASAN_OPTIONS=detect_leaks=0 timeout 1800 "./tests/$1" > "$work/run.out" 2>&1
}

# why: what in the output failed
why() {
    if grep -q "ThreadSanitizer: data race" "$work/run.out"; then echo "data race"
    elif grep -q "AddressSanitizer" "$work/run.out"; then echo "$(grep -o 'AddressSanitizer: [a-z-]*' "$work/run.out" | head -1)"
    elif grep -q "runtime error" "$work/run.out"; then echo "UBSan: $(grep -o 'runtime error: [a-z ]*' "$work/run.out" | head -1)"
    elif grep -q "past the end of a device buffer" "$work/run.out"; then echo "write past a device buffer (guard page)"
    elif grep -q "^# gbt-emu: kernel" "$work/run.out"; then echo "emulator report: $(grep -m1 '^# gbt-emu: kernel' "$work/run.out" | sed 's/.*): //' | cut -c1-80)"
    elif grep -q "^not ok" "$work/run.out"; then echo "$(grep -c '^not ok' "$work/run.out") comparisons with the CPU failed"
    else echo "exit status, no message"
    fi
}

# mutate FILE LINE SED-EXPRESSION DESCRIPTION SANITIZER(tsan|asan)
mutate() {
    file=$1 line=$2 expr=$3 what=$4 san=$5
    cp "$file" "$work/orig"
    sed -i "${line}${expr}" "$file"
    if cmp -s "$file" "$work/orig"; then
        echo "| $file:$line | $what | (the mutation did not apply) |"
        return
    fi
    if ! make -j"$ncpu" tests/test_backend "tests/test_backend_$san" >> "$log" 2>&1; then
        result="does not compile"
    elif ! run test_backend 1; then
        result="plain build: $(why)"
    elif ! run "test_backend_$san" 3; then
        result="$san build: $(why)"
    else
        result="**not caught**"
    fi
    cp "$work/orig" "$file"
    echo "| $file:$line | $what | $result |"
}

echo "| where | mutation | caught by |"
echo "|---|---|---|"
grep -n '__syncthreads()\|__syncwarp()' cuda/*.cu | while IFS=: read -r file line rest; do
    call=$(echo "$rest" | grep -o '__sync[a-z]*()' | head -1)
    mutate "$file" "$line" "s/$call/(void)0/" "$call removed" tsan
done

# off-by-one loop bounds: FILE PATTERN REPLACEMENT (first line matching)
while IFS='|' read -r file pattern repl; do
    [ -n "$file" ] || continue
    line=$(grep -n -F -- "$pattern" "$file" | head -1 | cut -d: -f1)
    [ -n "$line" ] || { echo "| $file | \`$pattern\` | (pattern not found) |"; continue; }
    pat=$(printf '%s' "$pattern" | sed 's/[][\.*^$/&]/\\&/g')
    rep=$(printf '%s' "$repl" | sed 's/[\/&]/\\&/g')
    mutate "$file" "$line" "s/$pat/$rep/" "\`$pattern\` -> \`$repl\`" asan
done <<'EOF'
cuda/gradient.cu|r < n;|r <= n;
cuda/histogram.cu|i < 2 * nbins;|i < 2 * nbins - 1;
cuda/histogram.cu|i < nbins;|i < nbins - 1;
cuda/histogram.cu|i < all;|i <= all;
cuda/split.cu|t < nb; t += 32|t <= nb; t += 32
cuda/split.cu|c < chunks;|c < chunks - 1;
cuda/partition.cu|if (i >= T) break;|if (i > T) break;
cuda/leaf.cu|if (i >= T) break;|if (i > T) break;
cuda/predict.cu|r < nrows;|r <= nrows;
cuda/segments.cu|if (j < n) {|if (j <= n) {
EOF
