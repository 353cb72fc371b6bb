#!/bin/sh
# cuda_resources.sh - every kernel of the CUDA backend within the budget
# written beside it, on the H100's sm_90 code, as ptxas compiled it.
#
# The budget is the kernel's __launch_bounds__(THREADS, MIN_BLOCKS): the
# block size it is launched with and the blocks per SM it must keep.  From
# ptxas's report of the build (cuda/NAME.ptxas, kept by build-aux/cudalt.sh)
# each sm_90 kernel must have a budget, spill nothing, and fit MIN_BLOCKS
# blocks on an SM with its registers, threads and static shared memory
# (bench/kernel_resources.py); CUB's kernels are listed, not checked.  ptxas holds a kernel to 65536 / (THREADS x
# MIN_BLOCKS) registers and spills beyond that, so a change that would
# lower the occupancy shows as a spill.  Dynamic shared memory is sized at
# run time (hist_setup asks cudaOccupancyMaxActiveBlocksPerMultiprocessor).
. "${top_srcdir:-.}/tests/tap.sh"
trap 'rm -rf "$work"' EXIT
if ! grep -q '^#define GBT_WITH_CUDA 1' "$builddir/config.h" 2>/dev/null; then
    echo "1..0 # SKIP the CUDA backend is not built (configure found no nvcc, or --without-cuda)"
    exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "1..0 # SKIP python3 is needed to read ptxas's reports"
    exit 0
fi
python3 - "$srcdir" "$builddir" <<'PY'
import glob, os, sys

src, build = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "bench"))
import kernel_resources as kr

n = failed = 0


def tap(ok, what):
    global n, failed
    n += 1
    failed += not ok
    print("%s %d - %s" % ("ok" if ok else "not ok", n, what))


for p in sorted(glob.glob(os.path.join(src, "cuda", "*.cu"))):
    rep = os.path.join(build, "cuda", os.path.basename(p)[:-3] + ".ptxas")
    if not os.path.exists(rep):
        tap(False, "%s: no ptxas report %s (an object built before build-aux/cudalt.sh kept one: make clean)"
            % (os.path.basename(p), rep))
budgets = kr.launch_budgets(os.path.join(src, "cuda"))
kernels = kr.read_reports(os.path.join(build, "cuda"))
if not kernels and not n:
    print("1..0 # SKIP this build has no sm_90 code (--with-cuda-arch without 90): the budgets are an H100's")
    sys.exit(0)
for name, e in sorted(kernels.items()):
    what = "%s (%s)" % (name, e["file"])
    if e["regs"] is None or e["spill"] is None:
        tap(False, "%s: ptxas's report gives no registers or spills" % what)
        continue
    if kr.base_name(name) not in budgets:
        print("# %s: %d registers, %d bytes spilled: CUB's, not defined in cuda/ (no budget of ours)"
              % (what, e["regs"], e["spill"] or 0))
        continue
    threads, want = budgets[kr.base_name(name)]
    if threads is None or want is None:
        tap(False, "%s: %d registers, %d bytes spilled; no budget (__launch_bounds__(THREADS, MIN_BLOCKS) "
            "beside the kernel)" % (what, e["regs"], e["spill"]))
        continue
    blocks = kr.blocks_per_sm(threads, e["regs"], e["smem"])
    desc = ("%d registers, %d bytes spilled, %d bytes stack, %d bytes static shared: %d blocks of %d threads"
            " per SM (%d%% occupancy), budget %d" % (e["regs"], e["spill"], e["stack"], e["smem"], blocks,
                                                     threads, 100 * blocks * threads // kr.SM90["threads"], want))
    if e["spill"]:
        tap(False, "%s spills: %s" % (what, desc))
    elif blocks < want:
        tap(False, "%s is below its occupancy budget: %s" % (what, desc))
    else:
        tap(True, "%s: %s" % (what, desc))
print("1..%d" % n)
sys.exit(1 if failed else 0)
PY
