#!/bin/sh
# build-libgbt.sh BUILD_DIR - builds libgbt for the Python package from this
# repository, out of tree in BUILD_DIR (the source tree is left as it is,
# apart from autoreconf's generated files), and prints the path of the
# shared library on its last line.  Called by setup.py during
# `pip install ./bindings/python`.
#
# What is built follows scripts/build-choice.sh, as the quick start does:
# without nvcc, or with nvcc but no NVIDIA GPU, the CPU-only library (CUDA
# code for five architectures takes minutes to compile); with a GPU, the
# CUDA backend for that GPU's architecture only.  GBT_BUILD_CUDA overrides:
#   GBT_BUILD_CUDA=0      CPU-only (--without-cuda), whatever is here
#   GBT_BUILD_CUDA=1      the CUDA backend (--with-cuda: an error without a
#                         working nvcc), for GBT_CUDA_ARCH="75 80 ..." or
#                         configure's default architectures
#   GBT_BUILD_CUDA=auto   the choice above (default)
# GBT_CONFIGURE_FLAGS adds configure options; GBT_BUILD_JOBS sets make -j
# (default: the processors).
set -e
build=$1
[ -n "$build" ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$build"
build=$(cd "$build" && pwd)
cd "$root"
# Installs missing build tools with apt-get, as the quick start does.
. scripts/deps.sh 1>&2

src=$root
if [ -f "$root/config.status" ]; then
    # Configured in place: configure refuses to build such a tree out of
    # tree, so build a copy of its sources (tracked and untracked files
    # that git does not ignore).
    command -v git >/dev/null 2>&1 && [ -e "$root/.git" ] || {
        echo "gbt: $root is configured in place; run 'make distclean' there first" >&2
        exit 1
    }
    gbt_step "copying the sources ($root is configured in place)" 1>&2
    rm -rf "$build/src"
    mkdir -p "$build/src"
    git -C "$root" ls-files -co --exclude-standard -z |
        (cd "$root" && xargs -0 cp --parents -t "$build/src" 2>/dev/null || true)
    src=$build/src
fi
if [ ! -x "$src/configure" ]; then
    gbt_step "generating ./configure (autoreconf, about 10 s)" 1>&2
    (cd "$src" && autoreconf -fi) 1>&2
fi

case ${GBT_BUILD_CUDA:-auto} in
0 | no | off | cpu) flags="--without-cuda"; why="GBT_BUILD_CUDA=${GBT_BUILD_CUDA}" ;;
1 | yes | on | cuda)
    flags="--with-cuda"
    [ -n "${GBT_CUDA_ARCH:-}" ] && flags="$flags --with-cuda-arch=$GBT_CUDA_ARCH"
    why="GBT_BUILD_CUDA=${GBT_BUILD_CUDA}" ;;
auto)
    choice=$(gbt_build_choice)
    case $choice in
    no-nvcc) flags="" ;;
    cpu)
        flags="--without-cuda"
        echo "gbt: (for the pip package: GBT_BUILD_CUDA=1 GBT_CUDA_ARCH=\"80 90\" pip install ./bindings/python builds the CUDA backend anyway)" >&2 ;;
    *) flags="--with-cuda-arch=$choice" ;;
    esac
    why="scripts/build-choice.sh: $choice" ;;
*) echo "gbt: GBT_BUILD_CUDA is '$GBT_BUILD_CUDA'; use 0, 1 or auto" >&2; exit 2 ;;
esac
flags="$flags ${GBT_CONFIGURE_FLAGS:-}"
obj=$build/obj
stamp="$flags"
if [ ! -f "$obj/Makefile" ] || [ "$(cat "$obj/.gbt-flags" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$obj"
    mkdir -p "$obj"
    gbt_step "configuring in $obj: configure $flags ($why)" 1>&2
    # shellcheck disable=SC2086
    (cd "$obj" && "$src/configure" $flags) 1>&2
    printf '%s' "$stamp" > "$obj/.gbt-flags"
fi
jobs=${GBT_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}
gbt_step "compiling libgbt with make -j$jobs" 1>&2
make -C "$obj" -j"$jobs" libgbt.la 1>&2
lib=$(ls "$obj"/.libs/libgbt.so.*.*.* 2>/dev/null | head -n 1)
[ -n "$lib" ] || lib=$obj/.libs/libgbt.so
[ -f "$lib" ] || { echo "gbt: the build made no $obj/.libs/libgbt.so" >&2; exit 1; }
echo "$lib"
