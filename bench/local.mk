# bench/local.mk - build rules of the benchmarks (included by Makefile.am).
#
# The benchmark programs are check programs: `make check` builds them and
# runs the harness once at a tiny size (tests/bench_smoke.sh); bench/run.py
# builds them itself when they are missing.  See bench/README.md.
check_PROGRAMS += bench/gen_workload bench/gbt_bench

bench_gen_workload_SOURCES = bench/gen_workload.c
bench_gen_workload_LDADD = -lm
bench_gen_workload_LDFLAGS = $(OPENMP_CFLAGS)

bench_gbt_bench_SOURCES = bench/gbt_bench.c
bench_gbt_bench_LDADD = libgbt.la -lm
# a real executable (no libtool wrapper script), so that the peak memory
# run.py measures is the benchmark's own
bench_gbt_bench_LDFLAGS = -no-install

TESTS += tests/bench_smoke.sh

EXTRA_DIST += \
	bench/accuracy.py \
	bench/accuracy_cat.py \
	bench/speed_cat.py \
	bench/constraints.py \
	bench/construct.py \
	bench/construct_time.c \
	bench/eval_cost.py \
	bench/extmem_limit.py \
	bench/iter_memory.py \
	bench/mpi.py \
	bench/README.md \
	bench/peers.py \
	bench/run.py \
	bench/results/README.md \
	tests/bench_smoke.sh
