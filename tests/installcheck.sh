#!/bin/sh
# installcheck.sh PREFIX LIBDIR BINDIR - the installed gbt works as the
# README's "Installing" section says, after "./configure --prefix=PREFIX &&
# make && make install" (make installcheck runs it; make distcheck does all
# four steps): the tools run without LD_LIBRARY_PATH, and the README's C
# example compiles with its own command, pkg-config finding gbt through
# PKG_CONFIG_PATH=LIBDIR/pkgconfig, and runs with LD_LIBRARY_PATH=LIBDIR.
# Prints TAP.
prefix=$1 libdir=$2 bindir=$3
srcdir=$(cd "${srcdir:-.}" && pwd) || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/gbt-installcheck-XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
n=0 failed=0
check() {
    name=$1
    shift
    n=$((n + 1))
    if "$@" > "$work/out" 2>&1; then
        echo "ok $n - $name"
    else
        echo "not ok $n - $name: $(head -c 300 "$work/out" | tr '\n' ' ')"
        failed=$((failed + 1))
    fi
}

if ! command -v pkg-config > /dev/null 2>&1; then
    echo "1..0 # SKIP pkg-config is not installed (the README's C example is built with it)"
    exit 0
fi
echo "1..5"
check "gbtrain runs from $bindir without LD_LIBRARY_PATH" env -u LD_LIBRARY_PATH "$bindir/gbtrain" --version
check "gbpredict too" env -u LD_LIBRARY_PATH "$bindir/gbpredict" --version

cd "$work" || exit 1
awk '/^```c$/ { on = 1; next } /^```$/ { on = 0 } on' "$srcdir/README.md" > example.c
# the compile command is the example's first line: /* example.c: cc ... -o example */
cmd=$(sed -n '1s|^/\* example\.c: \(.*\) \*/$|\1|p' example.c)
check "the README's C example gives its compile command" test -n "$cmd"
PKG_CONFIG_PATH=$libdir/pkgconfig
export PKG_CONFIG_PATH
check "it compiles against $prefix as written: $cmd" sh -c "test -n '$cmd' && $cmd"
LD_LIBRARY_PATH=$libdir
export LD_LIBRARY_PATH
check "and runs, finding libgbt.so in $libdir" sh -c './example | grep -q "^training AUC"'
[ "$failed" -eq 0 ]
