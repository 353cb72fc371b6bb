# bench/local.mk - build rules of the benchmarks (included by Makefile.am).
EXTRA_DIST += bench/accuracy.py
