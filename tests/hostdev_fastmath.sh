#!/bin/sh
# hostdev_fastmath.sh - the math shared by the CPU and the CUDA backend
# refuses to compile under fast math (src/common/hostdev.h): -ffast-math
# would let the compiler reorder and contract it, and the CPU and GPU
# models would differ.  Built with the build's own compiler ($CC).
. "${top_srcdir:-.}/tests/tap.sh"
cd "$work" || exit 1

printf '#include "common/gmath.h"\ndouble probe(double x) { return gbt_exp(x); }\n' > probe.c
check "the shared math compiles with \$CC" ${CC:-cc} -std=c11 -I"$srcdir/src" -c probe.c -o probe.o
${CC:-cc} -std=c11 -ffast-math -I"$srcdir/src" -c probe.c -o probe_fast.o 2> fast.err
status=$?
check "with -ffast-math it does not compile" test "$status" -ne 0
check "and the error says why" grep -q "fast math" fast.err
sed 's/^/# /' fast.err | head -3
done_testing
