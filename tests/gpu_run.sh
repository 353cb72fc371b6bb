#!/bin/sh
# gpu_run.sh - scripts/gpu-run.sh --dry-run: every file, make rule and tool
# the one-command GPU run needs is here, and the targets that build without
# CUDA build (make -n); it says what it would run.  Then the same with a
# file it needs taken away: it must say which and fail.
. "${top_srcdir:-.}/tests/tap.sh"
OUT=$work/out
export OUT
check "gpu-run.sh --dry-run passes" sh "$srcdir/scripts/gpu-run.sh" --dry-run
sh "$srcdir/scripts/gpu-run.sh" --dry-run > "$work/dry.txt" 2>&1
check "it would run the GPU tests, the sanitizers, W1 and the record" sh -c \
    "grep -q 'would run (04-test_backend_gpu' '$work/dry.txt' && grep -q 'synccheck' '$work/dry.txt' &&
     grep -q 'gen_workload higgs .* --rows 10000000' '$work/dry.txt' && grep -q 'GBT_CUDA_QUANT_ROWS=100000' '$work/dry.txt' &&
     grep -q 'record.md' '$work/dry.txt'"
# a copy of the script in a tree without bench/gen_workload.c
mkdir -p "$work/tree/scripts" "$work/tree/tests" "$work/tree/tools" "$work/tree/bench" "$work/tree/cuda"
for f in configure Makefile.in tests/test_backend.c tests/test_cuda_errors.c tools/gpu_tool.c bench/gbt_bench.c \
    bench/peers.py scripts/build-choice.sh scripts/gpu-run.sh cuda/quantize.cu tests/cuda_resources.sh \
    bench/kernel_resources.py; do
    cp "$srcdir/$f" "$work/tree/$f"
done
sh "$work/tree/scripts/gpu-run.sh" --dry-run > "$work/missing.txt" 2>&1
status=$?
check "without bench/gen_workload.c it fails and names it" sh -c \
    "[ $status -ne 0 ] && grep -q 'missing file: bench/gen_workload.c' '$work/missing.txt'"
done_testing
