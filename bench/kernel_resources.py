"""The CUDA kernels' resources as ptxas compiled them, and the occupancy they allow on an H100.

build-aux/cudalt.sh keeps ptxas's report of each cuda/NAME.cu beside its object
(cuda/NAME.ptxas in the build tree).  tests/cuda_resources.sh checks every
kernel against its budget with these functions; bench/costmodel.py takes the
resident warps of its latency term from them.
"""
import glob
import os
import re
import subprocess

# An H100's SM (compute capability 9.0: CUDA C++ Programming Guide, "Technical Specifications
# per Compute Capability"): 64K 32-bit registers allocated per warp in units of 256, at most
# 2048 threads and 32 blocks, 228 KB of shared memory of which each block's 1 KB is reserved.
SM90 = dict(regs=65536, reg_unit=256, threads=2048, blocks=32, smem=228 * 1024, smem_reserved=1024)


def read_reports(cuda_dir, arch="sm_90"):
    """{demangled short name: dict(file, regs, spill, stack, smem)} of every kernel compiled for arch
    in the reports cuda_dir/*.ptxas; the short name drops namespaces and the parameters but keeps
    template arguments (hist_build<0, true>)."""
    entries = []
    for rep in sorted(glob.glob(os.path.join(cuda_dir, "*.ptxas"))):
        cur = None
        for line in open(rep):
            m = re.search(r"Compiling entry function '(\w+)' for '(sm_\d+)'", line)
            if m:
                cur = dict(mangled=m.group(1), arch=m.group(2), file=os.path.basename(rep)[:-6] + ".cu",
                           regs=None, spill=None, stack=None, smem=0)
                entries.append(cur)
                continue
            if cur is None:
                continue
            m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
            if m and cur["spill"] is None:
                cur["stack"], cur["spill"] = int(m.group(1)), int(m.group(2)) + int(m.group(3))
            m = re.search(r"Used (\d+) registers", line)
            if m and cur["regs"] is None:
                cur["regs"] = int(m.group(1))
                s = re.search(r"(\d+) bytes smem", line)
                cur["smem"] = int(s.group(1)) if s else 0
    entries = [e for e in entries if e["arch"] == arch]
    if not entries:
        return {}
    names = subprocess.run(["c++filt"], input="\n".join(e["mangled"] for e in entries), stdout=subprocess.PIPE,
                           universal_newlines=True, check=True).stdout.splitlines()
    out = {}
    for e, full in zip(entries, names):
        out[short_name(full)] = e
    return out


def short_name(demangled):
    s = re.sub(r"\(anonymous namespace\)::|^void ", "", demangled)
    depth, cut = 0, len(s)
    for i, ch in enumerate(s):  # the parameters' '(' at template depth 0
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            cut = i
            break
    return re.sub(r"^(?:\w+::)+", "", s[:cut].strip())


def base_name(short):
    return re.sub(r"<.*", "", short)


def blocks_per_sm(threads, regs=None, smem=0, sm=SM90):
    """Resident blocks of `threads` threads per SM with `regs` registers per thread (None: not
    known, not counted) and `smem` bytes of shared memory per block (static and dynamic)."""
    warps = (threads + 31) // 32
    limits = [sm["threads"] // threads, sm["blocks"], sm["smem"] // (smem + sm["smem_reserved"])]
    if regs:
        per_warp = -(-regs * 32 // sm["reg_unit"]) * sm["reg_unit"]
        limits.append((sm["regs"] // per_warp) // warps)
    return max(min(limits), 0)


def constants(cuda_src_dir):
    """{name: value} of the constexpr integers of cuda_src_dir's .cu and .cuh files."""
    paths = sorted(glob.glob(os.path.join(cuda_src_dir, "*.cu"))) + \
        sorted(glob.glob(os.path.join(cuda_src_dir, "*.cuh")))
    text = "".join(open(p).read() for p in paths)
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"constexpr\s+(?:int|unsigned|uint32_t)\s+(\w+)\s*=\s*(\d+)\s*;", text)}


def launch_budgets(cuda_src_dir):
    """{kernel name: (THREADS, MIN_BLOCKS)} of every kernel defined in cuda_src_dir's .cu files, from
    the __launch_bounds__ written beside it (a number, or a constexpr integer of cuda/); (None, None)
    for a kernel without one."""
    paths = sorted(glob.glob(os.path.join(cuda_src_dir, "*.cu"))) + \
        sorted(glob.glob(os.path.join(cuda_src_dir, "*.cuh")))
    text = "".join(open(p).read() for p in paths)
    consts = constants(cuda_src_dir)

    def value(tok):
        return int(tok) if tok.isdigit() else consts.get(tok)

    out = {m.group(1): (None, None)
           for m in re.finditer(r"__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s*)?(\w+)\s*[(<]", text)}
    for m in re.finditer(r"__global__\s+void\s+__launch_bounds__\(\s*(\w+)\s*(?:,\s*(\w+)\s*)?\)\s*(\w+)\s*[(<]",
                         text):
        out[m.group(3)] = (value(m.group(1)), value(m.group(2)) if m.group(2) else None)
    return out
