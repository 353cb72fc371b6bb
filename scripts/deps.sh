# deps.sh - sourced by the other scripts: installs what building gbt from git
# needs and this machine lacks (autoconf, automake, libtool, pkg-config, a C
# compiler, make, and a C++ compiler for the CUDA emulator's tests), with
# apt-get as root or through sudo.
gbt_missing=""
for tool in autoconf automake libtoolize pkg-config make cc c++; do
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
    DEBIAN_FRONTEND=noninteractive $gbt_sudo apt-get install -y -qq autoconf automake libtool pkg-config make gcc g++ >/dev/null
fi
# Builds gbt in the source tree (configure options in GBT_CONFIGURE_FLAGS).
gbt_build() {
    [ -x configure ] || autoreconf -fi
    [ -f Makefile ] || ./configure $GBT_CONFIGURE_FLAGS
    make -j"$(nproc 2>/dev/null || echo 2)"
}
