#!/bin/sh
# gpu-run.sh - the first run on a machine with one NVIDIA GPU, in one
# command, without network, from a `make dist` tarball (or a source tree):
#
#   tar xf gbt-*.tar.gz && cd gbt-*/ && OUT=/some/dir scripts/gpu-run.sh
#
# Steps, each with its own time limit and log under $OUT (default
# ./gpu-run.out), in order of value; a step that fails does not stop the
# ones after it:
#   01 nvidia-smi, and the GPU's compute capability
#   02 configure for that architecture only, build only what the steps need
#   03 kernel resources: tests/cuda_resources.sh, every kernel's registers,
#      spills and occupancy from ptxas's report of this build against its
#      __launch_bounds__ budget
#   04 CPU = GPU bytes: tests/test_backend_gpu, tests/test_cuda_errors_gpu
#   05 a 1M-row training on cpu and on cuda (cmp), twice on cuda (run to run),
#      and on cuda with device binning in batches of 100,000 rows
#      (GBT_CUDA_QUANT_ROWS)
#   06 compute-sanitizer memcheck, synccheck, racecheck on
#      GBT_TEST_QUICK=2 tests/test_backend_gpu
#   07 W1 (bench/gen_workload higgs, depthwise depth 8, max_bin 256) at 10M
#      rows: 20 rounds under nsys (per-kernel times) when nsys is present,
#      else the round time only (the project has no per-kernel timer of its
#      own: CUDA events would need one)
#   08 XGBoost's GPU hist on the same data, when its wheel is installed
#   09 a docs/gpu-runs/ record skeleton, its numbers taken from the logs
#      ($OUT/record.md, and printed)
#
# --dry-run (no GPU needed): checks that every file, make target and tool
# the run needs is there, and prints what it would run; exits non-zero if
# something it needs is missing.  tests/gpu_run.sh runs it in `make check`.
#
# Options: --dry-run, --arch NN (default: nvidia-smi's compute capability),
# --jobs N (default: the CPU count), --rows N (W1's rows, default 10000000),
# --rounds N (default 20).  Limits: GBT_GPU_RUN_SCALE=F multiplies every
# step's time limit (default 1); GBT_GPU_RUN_BUDGET=S (default 470) bounds
# the whole run: a step gets no more than what is left of it, and a step
# with less than 15 s left is skipped (SKIP in the summary), so the run
# ends within 8 minutes.

set -u
dry=0
arch=""
jobs=$(nproc 2>/dev/null || echo 4)
w1_rows=10000000
w1_rounds=20
while [ $# -gt 0 ]; do
    case $1 in
    --dry-run) dry=1 ;;
    --arch) arch=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --rows) w1_rows=$2; shift ;;
    --rounds) w1_rounds=$2; shift ;;
    -h | --help) sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-run.sh: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
    esac
    shift
done

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
OUT=${OUT:-$top/gpu-run.out}
scale=${GBT_GPU_RUN_SCALE:-1}
budget=${GBT_GPU_RUN_BUDGET:-470}
started=$(date +%s)
mkdir -p "$OUT" || exit 2
summary=$OUT/summary.txt
: >"$summary"

say() { printf '%s\n' "$*"; }
note() { say "$*" | tee -a "$summary"; }

# limit SECONDS: the step's limit, scaled
limit() { awk -v s="$1" -v f="$scale" 'BEGIN { printf "%d", s * f + 0.5 }'; }

# step NAME SECONDS CMD...: runs CMD with its limit (no more than what is left
# of the run's budget), output in $OUT/NAME.log
step() {
    name=$1
    secs=$(limit "$2")
    shift 2
    if [ $dry -eq 1 ]; then
        say "would run ($name, ${secs}s): $*"
        return 0
    fi
    left=$((budget - ($(date +%s) - started)))
    if [ $left -lt 15 ]; then
        note "SKIP     $name: the run's budget of ${budget}s is spent"
        return 1
    fi
    [ $secs -le $left ] || secs=$left
    t0=$(date +%s)
    timeout -k 10 "$secs" "$@" >"$OUT/$name.log" 2>&1
    rc=$?
    t=$(($(date +%s) - t0))
    if [ $rc -eq 0 ]; then
        note "PASS     $name (${t}s)"
    elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        note "TIMEOUT  $name after ${t}s (limit ${secs}s); log $OUT/$name.log"
    else
        note "FAIL     $name: exit $rc (${t}s); log $OUT/$name.log"
    fi
    return $rc
}

# ---- what the run needs ------------------------------------------------------
files="configure Makefile.in tests/test_backend.c tests/test_cuda_errors.c tools/gpu_tool.c
bench/gen_workload.c bench/gbt_bench.c bench/peers.py scripts/build-choice.sh cuda/quantize.cu
tests/cuda_resources.sh bench/kernel_resources.py"
targets="gbtrain tests/test_backend_gpu tests/test_cuda_errors_gpu tools/gpu_tool bench/gen_workload
bench/gbt_bench libgbt.la"
missing=0
for f in $files; do
    if [ ! -f "$f" ]; then
        say "missing file: $f"
        missing=$((missing + 1))
    fi
done
for t in $targets; do
    # each target has a rule in Makefile.in (a CUDA build's targets are there whatever configure chose)
    if [ -f Makefile.in ] && ! grep -q "^$t\(\$(EXEEXT)\)\{0,1\}:" Makefile.in; then
        say "no make rule for $t in Makefile.in"
        missing=$((missing + 1))
    fi
done
for tool in timeout cmp make awk; do
    if ! command -v $tool >/dev/null 2>&1; then
        say "missing tool: $tool"
        missing=$((missing + 1))
    fi
done
# CUDA's tools: in PATH or beside nvcc
cuda_bin=""
for d in "$(dirname "$(command -v nvcc 2>/dev/null || echo /nonexistent/nvcc)")" /usr/local/cuda/bin; do
    if [ -x "$d/nvcc" ]; then
        cuda_bin=$d
        break
    fi
done
find_tool() {
    if command -v "$1" >/dev/null 2>&1; then
        command -v "$1"
    elif [ -n "$cuda_bin" ] && [ -x "$cuda_bin/$1" ]; then
        echo "$cuda_bin/$1"
    else
        for p in /usr/local/cuda/bin/$1 /usr/local/cuda/compute-sanitizer/$1 /opt/nvidia/nsight-systems/*/bin/$1; do
            [ -x "$p" ] && { echo "$p"; return; }
        done
    fi
}
sanitizer=$(find_tool compute-sanitizer)
nsys=$(find_tool nsys)
for pair in "nvcc:${cuda_bin:+$cuda_bin/nvcc}" "compute-sanitizer:$sanitizer" "nsys:$nsys"; do
    say "tool ${pair%%:*}: ${pair#*:}"
done
if [ $dry -eq 1 ] && [ -f Makefile ]; then
    # in a configured tree, the targets that build without CUDA must be buildable (make -n)
    for t in gbtrain tools/gpu_tool bench/gen_workload bench/gbt_bench; do
        if ! make -n "$t" >/dev/null 2>&1; then
            say "make -n $t fails in this build"
            missing=$((missing + 1))
        fi
    done
fi
if [ $missing -gt 0 ]; then
    say "gpu-run.sh: $missing thing(s) the run needs are missing"
    exit 1
fi
[ -n "$cuda_bin" ] || say "gpu-run.sh: no nvcc here: the build step would fail (the GPU machine has it)"

# ---- 01 the GPU ------------------------------------------------------------------
. "$top/scripts/build-choice.sh"
if [ $dry -eq 1 ]; then
    say "would run (01-smi): nvidia-smi > $OUT/01-smi.txt; the architecture from nvidia-smi --query-gpu=compute_cap"
    arch=${arch:-90}
else
    nvidia-smi >"$OUT/01-smi.txt" 2>&1
    nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader >"$OUT/01-gpu.txt" 2>&1
    [ -n "$arch" ] || arch=$(gbt_gpu_archs | awk '{ print $1 }')
    if [ -z "$arch" ]; then
        note "FAIL     01-smi: no GPU found by nvidia-smi (see $OUT/01-smi.txt)"
        exit 1
    fi
    note "PASS     01-smi: $(cat "$OUT/01-gpu.txt"), building for sm_$arch"
fi

# ---- 02 build -----------------------------------------------------------------------
build_targets=$(echo $targets | sed 's/libgbt.la//')
if [ ! -f Makefile ] || ! grep -q "with-cuda-arch=$arch" config.log 2>/dev/null; then
    step 02-configure 120 ./configure -q --with-cuda-arch="$arch"
fi
if ! step 02-build 300 make -j"$jobs" $build_targets; then
    note "the build failed: nothing else can run"
    exit 1
fi

# ---- 03 kernel resources ----------------------------------------------------------------
step 03-resources 60 env top_srcdir=. top_builddir=. sh tests/cuda_resources.sh

# ---- 04 the GPU tests ----------------------------------------------------------------------
step 04-test_backend_gpu 150 tests/test_backend_gpu
step 04-test_cuda_errors_gpu 60 tests/test_cuda_errors_gpu

# ---- 05 models on cpu and cuda, 1M rows --------------------------------------------------------
data=$OUT/synthetic-1M.csv
train_args="-q --objective=binary:logistic --num_round=20 --max_depth=8"
same_model() { # NAME A B
    if [ $dry -eq 1 ]; then
        say "would run: cmp $2 $3"
    elif cmp -s "$2" "$3"; then
        note "SAME     $1 ($(wc -c <"$2" | tr -d ' ') bytes)"
    else
        note "DIFFER   $1: $(cmp "$2" "$3" 2>&1 | head -1)"
    fi
}
step 05-synth 60 tools/gpu_tool synth 1000000 "$data"
step 05-train-cpu 90 ./gbtrain $train_args --device=cpu "$data" "$OUT/m1-cpu.model"
step 05-train-cuda 60 ./gbtrain $train_args --device=cuda "$data" "$OUT/m1-cuda.model"
step 05-train-cuda2 60 ./gbtrain $train_args --device=cuda "$data" "$OUT/m1-cuda2.model"
step 05-train-cuda-batches 60 env GBT_CUDA_QUANT_ROWS=100000 ./gbtrain $train_args --device=cuda --verbosity=3 \
    "$data" "$OUT/m1-cuda-batches.model"
same_model "1M rows: cpu = cuda" "$OUT/m1-cpu.model" "$OUT/m1-cuda.model"
same_model "1M rows: cuda run to run" "$OUT/m1-cuda.model" "$OUT/m1-cuda2.model"
same_model "1M rows: cpu = cuda binned on the device in 10 batches" "$OUT/m1-cpu.model" "$OUT/m1-cuda-batches.model"

# ---- 06 compute-sanitizer -------------------------------------------------------------------------
for check in memcheck synccheck racecheck; do
    step 06-$check 90 env GBT_TEST_QUICK=2 "${sanitizer:-compute-sanitizer}" --tool $check --error-exitcode 97 \
        tests/test_backend_gpu
done

# ---- 07 W1 at 10M rows: per-kernel times ------------------------------------------------------------
w1=$OUT/w1
w1_params="objective=binary:logistic eta=0.1 max_bin=256 min_child_weight=1 lambda=1 tree_method=hist max_depth=8 device=cuda"
step 07-w1-data 90 bench/gen_workload higgs "$w1" --rows "$w1_rows" --test-rows 1000
if [ -n "$nsys" ]; then
    step 07-w1-nsys 180 "$nsys" profile --force-overwrite true --stats=true -o "$OUT/w1-profile" \
        bench/gbt_bench --data "$w1" --rounds "$w1_rounds" --repeat 1 $w1_params
else
    step 07-w1-bench 120 bench/gbt_bench --data "$w1" --rounds "$w1_rounds" --repeat 1 $w1_params
fi

# ---- 08 XGBoost's GPU hist ------------------------------------------------------------------------------
if [ $dry -eq 1 ] || python3 -c 'import xgboost' >/dev/null 2>&1; then
    step 08-xgboost 150 python3 bench/peers.py --lib xgboost --data "$w1" --device cuda --rounds "$w1_rounds" \
        --repeat 1 --threads "$jobs" --params '{"objective": "binary:logistic", "eta": 0.1, "max_bin": 256,
        "tree_method": "hist", "min_child_weight": 1.0, "lambda": 1.0, "max_depth": 8, "device": "cuda"}'
else
    note "SKIP     08-xgboost: no xgboost module in python3"
fi

# ---- 09 the record ---------------------------------------------------------------------------------------
if [ $dry -eq 1 ]; then
    say "would write $OUT/record.md: a docs/gpu-runs/ record skeleton with the numbers of the logs above"
    say "gpu-run.sh --dry-run: everything the run needs is here"
    exit 0
fi
commit=$(cat "$top/.tarball-version" 2>/dev/null || git -C "$top" rev-parse HEAD 2>/dev/null || echo unknown)
{
    say "# $(date -u +%Y-%m-%d): $(cut -d, -f1 "$OUT/01-gpu.txt" | head -1)"
    say ""
    say "gbt $commit, run by scripts/gpu-run.sh in $(($(date +%s) - started)) s."
    say "GPU, driver, memory, compute capability: $(head -1 "$OUT/01-gpu.txt")"
    say ""
    say "## Steps"
    say ""
    sed 's/^/    /' "$summary"
    say ""
    say "## Tests"
    say ""
    for t in 04-test_backend_gpu 04-test_cuda_errors_gpu 06-memcheck 06-synccheck 06-racecheck; do
        [ -f "$OUT/$t.log" ] || continue
        say "- $t: $(grep -c '^ok ' "$OUT/$t.log") ok, $(grep -c '^not ok ' "$OUT/$t.log") not ok,"\
            "$(grep -c '^ok .*# SKIP' "$OUT/$t.log") skipped; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$t.log" | tail -1)"
    done
    say ""
    say "## W1, $w1_rows rows, $w1_rounds rounds"
    say ""
    for f in 07-w1-nsys 07-w1-bench; do
        [ -f "$OUT/$f.log" ] && say "gbt: $(grep -E '^\{' "$OUT/$f.log" | tail -1)"
    done
    [ -f "$OUT/08-xgboost.log" ] && say "XGBoost GPU hist: $(grep -E '^\{' "$OUT/08-xgboost.log" | tail -1)"
    if [ -f "$OUT/07-w1-nsys.log" ]; then
        say ""
        say "Per-kernel times (nsys cuda_gpu_kern_sum; model: docs/perf-notes.md's modelled W1 round):"
        say ""
        awk '/cuda_gpu_kern_sum/ { on = 1 } on && NF == 0 && seen { exit } on { print "    " $0; if (/---/) seen = 1 }' \
            "$OUT/07-w1-nsys.log" | head -40
    fi
    say ""
    say "## Kernel resources (tests/cuda_resources.sh: ptxas's report of the build, sm_90)"
    say ""
    grep -E '^(ok|not ok|#)' "$OUT/03-resources.log" 2>/dev/null | sed 's/^/    /' | head -80
} >"$OUT/record.md"
cat "$OUT/record.md"
! grep -qE '^(FAIL|TIMEOUT|DIFFER)' "$summary"
