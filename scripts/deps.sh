# deps.sh - sourced by the other scripts: installs what building gbt from git
# needs and this machine lacks (autoconf, automake, libtool, pkg-config, a C
# compiler, make, and a C++ compiler for the CUDA emulator's tests; with
# gbt_want_mpi=1, Open MPI for the distributed-training tests), with
# apt-get as root or through sudo.  The autotools are needed only where
# ./configure is not generated yet (a release tarball ships it).
gbt_missing=""
gbt_tools="pkg-config make cc c++"
gbt_packages="autoconf automake libtool pkg-config make gcc g++"
[ -x configure ] || gbt_tools="autoconf automake libtoolize $gbt_tools"
if [ "${gbt_want_mpi:-0}" = 1 ]; then
    gbt_tools="$gbt_tools mpicc mpirun"
    gbt_packages="$gbt_packages libopenmpi-dev openmpi-bin"
fi
for tool in $gbt_tools; do
    command -v "$tool" >/dev/null 2>&1 || gbt_missing="$gbt_missing $tool"
done
if [ -n "$gbt_missing" ]; then
    echo "gbt: installing build tools (missing:$gbt_missing)" >&2
    if [ "$(id -u)" -eq 0 ]; then gbt_sudo=""; elif command -v sudo >/dev/null 2>&1; then gbt_sudo="sudo"; else
        echo "gbt: please install autoconf, automake, libtool, pkg-config, make and C and C++ compilers" >&2
        exit 1
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "gbt: no apt-get here; please install autoconf, automake, libtool, pkg-config, make and C and C++ compilers" >&2
        exit 1
    fi
    $gbt_sudo apt-get update -qq >/dev/null
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $gbt_sudo apt-get install -y -qq $gbt_packages >/dev/null
fi
gbt_step() { echo "gbt: $*"; }
# Builds gbt in the source tree, configured with the arguments (or
# GBT_CONFIGURE_FLAGS, which win) unless it is configured already, saying
# what it does at each step.
gbt_build() {
    if [ ! -x configure ]; then
        gbt_step "generating ./configure (autoreconf, about 10 s)"
        autoreconf -fi
    fi
    if [ ! -f Makefile ] && [ -n "${GBT_CONFIGURE_FLAGS+set}" ]; then
        gbt_step "configuring: ./configure $GBT_CONFIGURE_FLAGS"
        # shellcheck disable=SC2086
        ./configure $GBT_CONFIGURE_FLAGS
    elif [ ! -f Makefile ]; then
        gbt_step "configuring: ./configure $*"
        ./configure "$@"
    fi
    gbt_step "compiling with make -j$(nproc 2>/dev/null || echo 2) (a line per file)"
    make -j"$(nproc 2>/dev/null || echo 2)"
}
. scripts/build-choice.sh
# Whether this tree is configured without the CUDA backend although nvcc is here.
gbt_cuda_left_out() {
    [ -f config.h ] && gbt_have_nvcc && ! grep -q '^#define GBT_WITH_CUDA 1' config.h
}
