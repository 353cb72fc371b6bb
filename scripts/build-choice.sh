# build-choice.sh - sourced by quickstart.sh (and tests/scripts.sh): what to
# build on this machine.  gbt_build_choice prints "no-nvcc" (configure finds
# no nvcc: the CPU-only library anyway), "cpu" (nvcc but no NVIDIA GPU: the
# CPU-only library, as compiling CUDA code for five architectures takes
# minutes) or the GPUs' compute capabilities ("86 90"), and says why on
# standard error.

# Whether configure will find nvcc (it looks in PATH and /usr/local/cuda/bin).
gbt_have_nvcc() {
    command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]
}

# The compute capabilities of this machine's NVIDIA GPUs ("90" for 9.0), or
# nothing (no nvidia-smi, no driver, no GPU).
gbt_gpu_archs() {
    command -v nvidia-smi >/dev/null 2>&1 || return 0
    nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' .\r' |
        grep -E '^[0-9]+$' | sort -u | tr '\n' ' ' | sed 's/ $//'
}

gbt_build_choice() {
    if ! gbt_have_nvcc; then
        echo "gbt: no nvcc here: building the CPU-only library" >&2
        echo no-nvcc
        return
    fi
    gbt_archs=$(gbt_gpu_archs)
    if [ -n "$gbt_archs" ]; then
        echo "gbt: NVIDIA GPU of compute capability $gbt_archs: building CUDA code for it only" >&2
        echo "$gbt_archs"
    else
        echo "gbt: no NVIDIA GPU here: building the CPU-only library (--without-cuda; CUDA code takes minutes)" >&2
        echo "gbt: for GPUs elsewhere: ./configure --with-cuda-arch=\"75 80 86 89 90\" && make clean && make" >&2
        echo cpu
    fi
}
