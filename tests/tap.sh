# tap.sh - TAP helpers for the shell tests; source it.
#   ok COND_STATUS "name"     (use: check "name" command ...)
tap_n=0
tap_failed=0
check() {
    name=$1
    shift
    tap_n=$((tap_n + 1))
    if "$@" >/dev/null 2>&1; then
        echo "ok $tap_n - $name"
    else
        echo "not ok $tap_n - $name"
        tap_failed=$((tap_failed + 1))
    fi
}
# fails NAME PATTERN CMD...: CMD must exit with status 1 (a clean error, not a
# crash or a sanitizer report) and print PATTERN (grep -E) on standard error
fails() {
    name=$1
    pattern=$2
    shift 2
    tap_n=$((tap_n + 1))
    "$@" >"$work/.fails.out" 2>"$work/.fails.err"
    status=$?
    if [ "$status" -ne 1 ]; then
        echo "not ok $tap_n - $name (exit status $status, expected 1): $(head -c 300 "$work/.fails.err" | tr '\n' ' ')"
        tap_failed=$((tap_failed + 1))
    elif grep -Eq -- "$pattern" "$work/.fails.err"; then
        echo "ok $tap_n - $name: $(head -c 200 "$work/.fails.err" | tr '\n' ' ')"
    else
        echo "not ok $tap_n - $name: stderr was: $(head -c 300 "$work/.fails.err" | tr '\n' ' ')"
        tap_failed=$((tap_failed + 1))
    fi
}
done_testing() {
    echo "1..$tap_n"
    [ "$tap_failed" -eq 0 ]
}
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
: "${GBT_DATASETS:=$top_srcdir/datasets}"
builddir=$(cd "$top_builddir" && pwd)
srcdir=$(cd "$top_srcdir" && pwd)
# The tools, run under $GBT_TEST_WRAPPER (e.g. "valgrind --error-exitcode=99")
# when it is set; libtool finds the real binary behind its wrapper script.
gbt_run() {
    if [ -n "${GBT_TEST_WRAPPER:-}" ]; then
        "$builddir/libtool" --mode=execute $GBT_TEST_WRAPPER "$@"
    else
        "$@"
    fi
}
gbtrain() { gbt_run "$builddir/gbtrain" "$@"; }
gbpredict() { gbt_run "$builddir/gbpredict" "$@"; }
gbmodel() { gbt_run "$builddir/gbmodel" "$@"; }
gbtrain=gbtrain
gbpredict=gbpredict
gbmodel=gbmodel
data=$(cd "$GBT_DATASETS" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gbt-cli-XXXXXX")
trap 'rm -rf "$work"' EXIT
# python_finds MODULE...: whether python3 finds every module (importlib's
# find_spec, which imports nothing: importing xgboost to see whether it is
# there cost about 4 CPU-s, in every run of each test that asks)
python_finds() {
    python3 -c 'import importlib.util, sys; sys.exit(not all(importlib.util.find_spec(m) for m in sys.argv[1:]))' \
        "$@" 2>/dev/null
}
# need_python_gbt MODULE...: skips the whole test (exit 0) unless python3 can
# import the modules and load this build's libgbt; then $python_gbt runs
# python3 with this build's gbt package and library
need_python_gbt() {
    # Python cannot load a sanitizer-built libgbt (its runtime must come first)
    case "${GBT_BUILD_CFLAGS:-}" in
    *sanitize*)
        echo "1..0 # SKIP Python cannot load a sanitizer-built libgbt (the tools' binary and CSV readers are checked by the plain build's run)"
        exit 0
        ;;
    esac
    if ! python_finds "$@"; then
        echo "1..0 # SKIP python3 cannot import $*"
        exit 0
    fi
    if [ ! -f "$builddir/.libs/libgbt.so" ]; then
        echo "1..0 # SKIP no shared library"
        exit 0
    fi
    python_gbt="env GBT_LIBRARY_PATH=$builddir/.libs/libgbt.so PYTHONPATH=$srcdir/bindings/python python3"
}
