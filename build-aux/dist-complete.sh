#!/bin/sh
# dist-complete.sh SRCDIR DISTDIR - make dist's hook: in a git checkout, every
# tracked file is in the tarball unless it is one of the kinds that are left
# out on purpose (CI, the Python package, docs and records, helper scripts);
# a file forgotten in EXTRA_DIST fails here instead of on a machine that
# builds from the tarball.  Outside a git checkout it checks nothing.
srcdir=$1
distdir=$2
command -v git >/dev/null 2>&1 && git -C "$srcdir" rev-parse --git-dir >/dev/null 2>&1 || exit 0
missing=$(git -C "$srcdir" ls-files | while read -r f; do
    case $f in
    .ci/* | .gitignore | */.gitignore | bindings/* | docs/* | scripts/* | bench/results/* | \
        bench/load.py | bench/python_wrapper.py) continue ;;
    esac
    [ -e "$distdir/$f" ] || echo "$f"
done)
[ -z "$missing" ] && exit 0
echo "dist-complete.sh: tracked files missing from the tarball (add them to EXTRA_DIST, or to the list in build-aux/dist-complete.sh if they are left out on purpose):" >&2
echo "$missing" | sed 's/^/  /' >&2
exit 1
