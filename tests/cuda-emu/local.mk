# tests/cuda-emu/local.mk - the CUDA emulator's builds (included by Makefile.am).
#
# The same cuda/*.cu files that nvcc compiles are rewritten by
# tests/cuda-emu/rewrite (only <<<>>> launches and __shared__ declarations) and
# compiled as host C++ against the emulator (tests/cuda-emu/README.md).  Three
# test-only builds of the whole library with the emulated CUDA backend,
# none of them installed:
#   libgbt_emu.la       plain                        (make check)
#   libgbt_emu_asan.la  AddressSanitizer + UBSan     (make check-cuda-emu-asan)
#   libgbt_emu_tsan.la  ThreadSanitizer, no OpenMP   (make check-cuda-emu-tsan)
# Under TSan the emulator's runtime itself is not instrumented (its
# bookkeeping is shared by the fibers of a block); it reports the fibers'
# switches and synchronisation to TSan instead (GBT_EMU_TSAN).

if HAVE_EMU

tests_cuda_emu_rewrite_SOURCES = tests/cuda-emu/rewrite.c
# a stand-alone tool (the C library only): without this it would link
# Makefile.am's LDADD, libgbt_core.la, and a build that only needs the
# emulator (check-cuda-emu-tsan) would compile the core for nothing
tests_cuda_emu_rewrite_LDADD =

EMU_CU_GEN = \
	tests/cuda-emu/gen/device.cc tests/cuda-emu/gen/segments.cc tests/cuda-emu/gen/gradient.cc \
	tests/cuda-emu/gen/histogram.cc tests/cuda-emu/gen/split.cc tests/cuda-emu/gen/partition.cc \
	tests/cuda-emu/gen/leaf.cc tests/cuda-emu/gen/predict.cc tests/cuda-emu/gen/shap.cc tests/cuda-emu/gen/quantize.cc \
	tests/cuda-emu/gen/pages.cc
emu_header_files = tests/cuda-emu/emu.h tests/cuda-emu/cub.h tests/cuda-emu/gbt_emu.h tests/cuda-emu/include/cuda_runtime.h \
	tests/cuda-emu/include/cub/block/block_scan.cuh tests/cuda-emu/include/cub/block/block_reduce.cuh \
	tests/cuda-emu/include/cub/warp/warp_scan.cuh tests/cuda-emu/include/cub/device/device_scan.cuh \
	tests/cuda-emu/include/cub/device/device_segmented_radix_sort.cuh

EMU_REWRITE = $(AM_V_GEN)$(MKDIR_P) $(@D) && tests/cuda-emu/rewrite$(EXEEXT)
tests/cuda-emu/gen/device.cc: $(srcdir)/cuda/device.cu tests/cuda-emu/rewrite$(EXEEXT)
	$(EMU_REWRITE) $(srcdir)/cuda/device.cu $@
tests/cuda-emu/gen/segments.cc: $(srcdir)/cuda/segments.cu tests/cuda-emu/rewrite$(EXEEXT)
	$(EMU_REWRITE) $(srcdir)/cuda/segments.cu $@
tests/cuda-emu/gen/gradient.cc: $(srcdir)/cuda/gradient.cu tests/cuda-emu/rewrite$(EXEEXT)
	$(EMU_REWRITE) $(srcdir)/cuda/gradient.cu $@
tests/cuda-emu/gen/histogram.cc: $(srcdir)/cuda/histogram.cu tests/cuda-emu/rewrite$(EXEEXT)
	$(EMU_REWRITE) $(srcdir)/cuda/histogram.cu $@
tests/cuda-emu/gen/split.cc: $(srcdir)/cuda/split.cu tests/cuda-emu/rewrite$(EXEEXT)
	$(EMU_REWRITE) $(srcdir)/cuda/split.cu $@
tests/cuda-emu/gen/partition.cc: $(srcdir)/cuda/partition.cu tests/cuda-emu/rewrite$(EXEEXT)
	$(EMU_REWRITE) $(srcdir)/cuda/partition.cu $@
tests/cuda-emu/gen/leaf.cc: $(srcdir)/cuda/leaf.cu tests/cuda-emu/rewrite$(EXEEXT)
	$(EMU_REWRITE) $(srcdir)/cuda/leaf.cu $@
tests/cuda-emu/gen/predict.cc: $(srcdir)/cuda/predict.cu tests/cuda-emu/rewrite$(EXEEXT)
	$(EMU_REWRITE) $(srcdir)/cuda/predict.cu $@
tests/cuda-emu/gen/shap.cc: $(srcdir)/cuda/shap.cu tests/cuda-emu/rewrite$(EXEEXT)
	$(EMU_REWRITE) $(srcdir)/cuda/shap.cu $@
tests/cuda-emu/gen/quantize.cc: $(srcdir)/cuda/quantize.cu tests/cuda-emu/rewrite$(EXEEXT)
	$(EMU_REWRITE) $(srcdir)/cuda/quantize.cu $@
tests/cuda-emu/gen/pages.cc: $(srcdir)/cuda/pages.cu tests/cuda-emu/rewrite$(EXEEXT)
	$(EMU_REWRITE) $(srcdir)/cuda/pages.cu $@
tests/emu_planted.cc: $(srcdir)/tests/emu_planted.cu tests/cuda-emu/rewrite$(EXEEXT)
	$(EMU_REWRITE) $(srcdir)/tests/emu_planted.cu $@
# EXTRA_ programs and libraries are built on demand; make clean removes them too.
CLEANFILES += $(EMU_CU_GEN) tests/emu_planted.cc tests/cuda-emu/rewrite$(EXEEXT) \
	$(emu_asan_tests:=$(EXEEXT)) $(emu_tsan_tests:=$(EXEEXT)) $(EXTRA_LTLIBRARIES)

# What the generated files include (automake tracks the C++ includes once they exist).
$(EMU_CU_GEN) tests/emu_planted.cc: $(CUDA_HEADER_FILES) $(emu_header_files)

EMU_CPPFLAGS = -I$(srcdir)/tests/cuda-emu/include -I$(srcdir)/tests/cuda-emu -I$(srcdir)/cuda $(AM_CPPFLAGS) \
	-DGBT_WITH_CUDA=1 -DGBT_CUDA_EMU=1
EMU_CXXFLAGS = -std=c++17 $(WARN_CFLAGS) -ffp-contract=off
EMU_ASAN = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
EMU_TSAN = -fsanitize=thread

# ---- plain ----
check_LTLIBRARIES = libgbt_emu.la
# The core's objects are libgbt_base.la's (Makefile.am): only the files
# that GBT_WITH_CUDA and GBT_CUDA_EMU change are compiled here.
libgbt_emu_la_SOURCES = $(core_backend_sources) cuda/backend_cuda.c tests/cuda-emu/runtime.cc $(emu_header_files)
nodist_libgbt_emu_la_SOURCES = $(EMU_CU_GEN)
libgbt_emu_la_CPPFLAGS = $(EMU_CPPFLAGS)
libgbt_emu_la_CXXFLAGS = $(EMU_CXXFLAGS)
libgbt_emu_la_LIBADD = libgbt_base.la $(MPI_LIBS) -lm

# ---- AddressSanitizer + UndefinedBehaviorSanitizer ----
EXTRA_LTLIBRARIES = libgbt_emu_asan.la libgbt_emu_tsan.la libgbt_emu_rt_tsan.la
libgbt_emu_asan_la_SOURCES = $(core_sources) $(libgbt_emu_la_SOURCES)
nodist_libgbt_emu_asan_la_SOURCES = $(EMU_CU_GEN)
libgbt_emu_asan_la_CPPFLAGS = $(EMU_CPPFLAGS)
libgbt_emu_asan_la_CFLAGS = $(AM_CFLAGS) $(EMU_ASAN)
libgbt_emu_asan_la_CXXFLAGS = $(EMU_CXXFLAGS) $(EMU_ASAN)
libgbt_emu_asan_la_LIBADD = $(MPI_LIBS) -lm

# ---- ThreadSanitizer (the CPU backend single-threaded: libgomp is not instrumented) ----
# Without OpenMP the thread counts passed to the parallel loops are unused.
EMU_TSAN_CFLAGS = $(WARN_CFLAGS) -Wno-unknown-pragmas -Wno-unused-parameter -ffp-contract=off \
	-fno-trapping-math $(EMU_TSAN)
libgbt_emu_tsan_la_SOURCES = $(core_sources) $(core_backend_sources) cuda/backend_cuda.c $(emu_header_files)
nodist_libgbt_emu_tsan_la_SOURCES = $(EMU_CU_GEN)
libgbt_emu_tsan_la_CPPFLAGS = $(EMU_CPPFLAGS)
libgbt_emu_tsan_la_CFLAGS = $(EMU_TSAN_CFLAGS)
libgbt_emu_tsan_la_CXXFLAGS = $(EMU_CXXFLAGS) $(EMU_TSAN)
libgbt_emu_tsan_la_LIBADD = libgbt_emu_rt_tsan.la $(MPI_LIBS) -lm
libgbt_emu_rt_tsan_la_SOURCES = tests/cuda-emu/runtime.cc
libgbt_emu_rt_tsan_la_CPPFLAGS = $(EMU_CPPFLAGS) -DGBT_EMU_TSAN=1
libgbt_emu_rt_tsan_la_CXXFLAGS = $(EMU_CXXFLAGS)

# ---- the tests, in each build ----
# test_backend and test_cuda_errors against the emulated device; emu_planted:
# kernels with one planted bug each, which the emulator must report.
emu_test_cppflags = $(EMU_CPPFLAGS)
check_PROGRAMS += tests/test_backend tests/test_cuda_errors tests/emu_planted tests/test_cuda_quantize tests/test_iter_emu
# (test_backend, the longest test of all, in two halves that make -j2 runs
# side by side (tests/test_backend_1.sh, _2.sh), and cuda_interleave.sh run
# first: Makefile.am's TESTS starts with emu_long_tests)
emu_backend_halves = tests/test_backend_1.sh tests/test_backend_2.sh
emu_long_tests = $(emu_backend_halves) tests/cuda_interleave.sh
TESTS += tests/test_cuda_errors tests/cuda_nodevice.sh tests/cuda_twodevices.sh \
	tests/emu_planted tests/test_cuda_quantize tests/test_iter_emu
# test_iter's device=cuda cases (datasets from batches, tests/test_iter.c)
tests_test_iter_emu_SOURCES = tests/test_iter.c tests/tap.h tests/testutil.h
nodist_EXTRA_tests_test_iter_emu_SOURCES = force-cxx-linker.cc
tests_test_iter_emu_CPPFLAGS = $(emu_test_cppflags)
tests_test_iter_emu_LDADD = libgbt_emu.la
tests_test_iter_emu_LDFLAGS = $(OPENMP_CFLAGS)
tests_test_cuda_quantize_SOURCES = tests/test_cuda_quantize.c tests/tap.h tests/testutil.h
nodist_EXTRA_tests_test_cuda_quantize_SOURCES = force-cxx-linker.cc
tests_test_cuda_quantize_CPPFLAGS = $(emu_test_cppflags)
tests_test_cuda_quantize_LDADD = libgbt_emu.la
tests_test_cuda_quantize_LDFLAGS = $(OPENMP_CFLAGS)
tests_test_backend_SOURCES = tests/test_backend.c tests/tap.h
nodist_EXTRA_tests_test_backend_SOURCES = force-cxx-linker.cc
tests_test_backend_CPPFLAGS = $(emu_test_cppflags)
tests_test_backend_LDADD = libgbt_emu.la
tests_test_backend_LDFLAGS = $(OPENMP_CFLAGS)
tests_test_cuda_errors_SOURCES = tests/test_cuda_errors.c tests/tap.h
nodist_EXTRA_tests_test_cuda_errors_SOURCES = force-cxx-linker.cc
tests_test_cuda_errors_CPPFLAGS = $(emu_test_cppflags)
tests_test_cuda_errors_LDADD = libgbt_emu.la
tests_test_cuda_errors_LDFLAGS = $(OPENMP_CFLAGS)
nodist_tests_emu_planted_SOURCES = tests/emu_planted.cc
tests_emu_planted_CPPFLAGS = $(emu_test_cppflags)
tests_emu_planted_CXXFLAGS = $(EMU_CXXFLAGS)
tests_emu_planted_LDADD = libgbt_emu.la
tests_emu_planted_LDFLAGS = $(OPENMP_CFLAGS)

# distributed training on the emulated device, two ranks under mpirun (a build with MPI)
if HAVE_MPI
check_PROGRAMS += tests/mpi_emu
TESTS += tests/mpi_emu.sh
emu_plain_mpi = tests/mpi_emu.sh
endif
tests_mpi_emu_SOURCES = tests/mpi_emu.c tests/tap.h
nodist_EXTRA_tests_mpi_emu_SOURCES = force-cxx-linker.cc
tests_mpi_emu_CPPFLAGS = $(emu_test_cppflags)
tests_mpi_emu_LDADD = libgbt_emu.la $(MPI_LIBS)
tests_mpi_emu_LDFLAGS = $(OPENMP_CFLAGS)

emu_asan_tests = tests/test_backend_asan tests/test_cuda_errors_asan tests/emu_planted_asan \
	tests/test_cuda_quantize_asan tests/test_iter_emu_asan
emu_tsan_tests = tests/test_backend_tsan tests/test_cuda_errors_tsan tests/emu_planted_tsan \
	tests/test_cuda_quantize_tsan tests/test_iter_emu_tsan
EXTRA_PROGRAMS = tests/cuda-emu/rewrite $(emu_asan_tests) $(emu_tsan_tests)
tests_test_backend_asan_SOURCES = $(tests_test_backend_SOURCES)
nodist_EXTRA_tests_test_backend_asan_SOURCES = force-cxx-linker.cc
tests_test_backend_asan_CPPFLAGS = $(emu_test_cppflags)
tests_test_backend_asan_CFLAGS = $(AM_CFLAGS) $(EMU_ASAN)
tests_test_backend_asan_LDADD = libgbt_emu_asan.la
tests_test_backend_asan_LDFLAGS = $(OPENMP_CFLAGS) $(EMU_ASAN)
tests_test_cuda_errors_asan_SOURCES = $(tests_test_cuda_errors_SOURCES)
nodist_EXTRA_tests_test_cuda_errors_asan_SOURCES = force-cxx-linker.cc
tests_test_cuda_errors_asan_CPPFLAGS = $(emu_test_cppflags)
tests_test_cuda_errors_asan_CFLAGS = $(AM_CFLAGS) $(EMU_ASAN)
tests_test_cuda_errors_asan_LDADD = libgbt_emu_asan.la
tests_test_cuda_errors_asan_LDFLAGS = $(OPENMP_CFLAGS) $(EMU_ASAN)
tests_test_cuda_quantize_asan_SOURCES = $(tests_test_cuda_quantize_SOURCES)
nodist_EXTRA_tests_test_cuda_quantize_asan_SOURCES = force-cxx-linker.cc
tests_test_cuda_quantize_asan_CPPFLAGS = $(emu_test_cppflags)
tests_test_cuda_quantize_asan_CFLAGS = $(AM_CFLAGS) $(EMU_ASAN)
tests_test_cuda_quantize_asan_LDADD = libgbt_emu_asan.la
tests_test_cuda_quantize_asan_LDFLAGS = $(OPENMP_CFLAGS) $(EMU_ASAN)
tests_test_iter_emu_asan_SOURCES = $(tests_test_iter_emu_SOURCES)
nodist_EXTRA_tests_test_iter_emu_asan_SOURCES = force-cxx-linker.cc
tests_test_iter_emu_asan_CPPFLAGS = $(emu_test_cppflags)
tests_test_iter_emu_asan_CFLAGS = $(AM_CFLAGS) $(EMU_ASAN)
tests_test_iter_emu_asan_LDADD = libgbt_emu_asan.la
tests_test_iter_emu_asan_LDFLAGS = $(OPENMP_CFLAGS) $(EMU_ASAN)
nodist_tests_emu_planted_asan_SOURCES = tests/emu_planted.cc
tests_emu_planted_asan_CPPFLAGS = $(emu_test_cppflags)
tests_emu_planted_asan_CXXFLAGS = $(EMU_CXXFLAGS) $(EMU_ASAN)
tests_emu_planted_asan_LDADD = libgbt_emu_asan.la
tests_emu_planted_asan_LDFLAGS = $(OPENMP_CFLAGS) $(EMU_ASAN)
tests_test_backend_tsan_SOURCES = $(tests_test_backend_SOURCES)
nodist_EXTRA_tests_test_backend_tsan_SOURCES = force-cxx-linker.cc
tests_test_backend_tsan_CPPFLAGS = $(emu_test_cppflags)
tests_test_backend_tsan_CFLAGS = $(EMU_TSAN_CFLAGS)
tests_test_backend_tsan_LDADD = libgbt_emu_tsan.la
tests_test_backend_tsan_LDFLAGS = $(EMU_TSAN)
tests_test_cuda_errors_tsan_SOURCES = $(tests_test_cuda_errors_SOURCES)
nodist_EXTRA_tests_test_cuda_errors_tsan_SOURCES = force-cxx-linker.cc
tests_test_cuda_errors_tsan_CPPFLAGS = $(emu_test_cppflags)
tests_test_cuda_errors_tsan_CFLAGS = $(EMU_TSAN_CFLAGS)
tests_test_cuda_errors_tsan_LDADD = libgbt_emu_tsan.la
tests_test_cuda_errors_tsan_LDFLAGS = $(EMU_TSAN)
tests_test_cuda_quantize_tsan_SOURCES = $(tests_test_cuda_quantize_SOURCES)
nodist_EXTRA_tests_test_cuda_quantize_tsan_SOURCES = force-cxx-linker.cc
tests_test_cuda_quantize_tsan_CPPFLAGS = $(emu_test_cppflags)
tests_test_cuda_quantize_tsan_CFLAGS = $(EMU_TSAN_CFLAGS)
tests_test_cuda_quantize_tsan_LDADD = libgbt_emu_tsan.la
tests_test_cuda_quantize_tsan_LDFLAGS = $(EMU_TSAN)
tests_test_iter_emu_tsan_SOURCES = $(tests_test_iter_emu_SOURCES)
nodist_EXTRA_tests_test_iter_emu_tsan_SOURCES = force-cxx-linker.cc
tests_test_iter_emu_tsan_CPPFLAGS = $(emu_test_cppflags)
tests_test_iter_emu_tsan_CFLAGS = $(EMU_TSAN_CFLAGS)
tests_test_iter_emu_tsan_LDADD = libgbt_emu_tsan.la
tests_test_iter_emu_tsan_LDFLAGS = $(EMU_TSAN)
nodist_tests_emu_planted_tsan_SOURCES = tests/emu_planted.cc
tests_emu_planted_tsan_CPPFLAGS = $(emu_test_cppflags)
tests_emu_planted_tsan_CXXFLAGS = $(EMU_CXXFLAGS) $(EMU_TSAN)
tests_emu_planted_tsan_LDADD = libgbt_emu_tsan.la
tests_emu_planted_tsan_LDFLAGS = $(EMU_TSAN)

# make check-cuda-emu[-asan|-tsan]: only the emulated tests, in one build.
emu_plain_tests = $(emu_backend_halves) tests/test_cuda_errors tests/cuda_nodevice.sh tests/cuda_twodevices.sh $(emu_plain_mpi) \
	tests/cuda_interleave.sh tests/emu_planted tests/test_cuda_quantize
# make check-cuda-emu TESTS='tests/emu_planted ...' runs those only (make puts a TESTS
# given on its command line in MAKEFLAGS).
check-cuda-emu:
	$(MAKE) $(AM_MAKEFLAGS) libgbt_emu.la tests/test_backend$(EXEEXT) tests/test_cuda_errors$(EXEEXT) \
	  tests/emu_planted$(EXEEXT) tests/test_cuda_quantize$(EXEEXT) $(emu_plain_mpi:.sh=$(EXEEXT))
	@case " $$MAKEFLAGS " in *" TESTS="*) t='$(TESTS)';; *) t='$(emu_plain_tests)';; esac; \
	  echo "$(MAKE) check-TESTS TESTS='$$t'"; \
	  $(MAKE) $(AM_MAKEFLAGS) check-TESTS TESTS="$$t" TEST_SUITE_LOG=cuda-emu.log
# The sanitizer builds' tests run under their plain names (automake's log
# rules), each through tests/emu_variant.sh, which picks the _asan or
# _tsan program; the shell tests pick it themselves from GBT_EMU_VARIANT.
# ('+': make sees the sub-make only through a variable, and would run it at -j1.)
emu_variant_run = $(MAKE) $(AM_MAKEFLAGS) check-TESTS LOG_COMPILER='$(SHELL) $(srcdir)/tests/emu_variant.sh'
emu_asan_run = $(emu_backend_halves) tests/test_cuda_errors tests/emu_planted tests/cuda_nodevice.sh \
	tests/cuda_twodevices.sh tests/test_cuda_quantize tests/test_iter_emu
emu_tsan_run = $(emu_backend_halves) tests/test_cuda_errors tests/emu_planted tests/test_cuda_quantize \
	tests/cuda_nodevice.sh tests/cuda_twodevices.sh tests/test_iter_emu
check-cuda-emu-asan:
	$(MAKE) $(AM_MAKEFLAGS) $(emu_asan_tests:=$(EXEEXT))
	+ASAN_OPTIONS=detect_leaks=1:handle_segv=1 GBT_EMU_VARIANT=asan GBT_TEST_QUICK=2 $(emu_variant_run) \
	  TESTS='$(emu_asan_run)' TEST_SUITE_LOG=cuda-emu-asan.log
# Arguments of the ThreadSanitizer run's sub-make: check-TESTS builds only the
# _tsan programs (not every test program, as it does by default) and
# takes the plain programs, which its log rules name, as made (-o).  The
# -o options go in AM_MAKEFLAGS too: make does not pass -o down to
# sub-makes, and check-TESTS runs the tests in one (without it the plain
# emulator library and three plain programs were compiled for nothing).
emu_only_these = check_PROGRAMS= check_LTLIBRARIES= $(emu_tsan_run:%=-o %$(EXEEXT)) \
	AM_MAKEFLAGS='$(emu_tsan_run:%=-o %$(EXEEXT))'
# ThreadSanitizer's runtime must be clang's (LLVM 14 or later): GCC 12's
# libtsan costs every synchronisation a walk over every thread the process
# started, and each CUDA thread of the emulator is one (a block of 1,024
# meeting at a warp shuffle: a million steps), so test_backend did not finish
# in 15 minutes there; with clang's it takes about 4 (tests/cuda-emu/README.md).
check-cuda-emu-tsan:
	@for c in '$(CC)' '$(CXX)'; do case "`$$c --version 2>&1`" in *clang*) ;; *) \
	  echo "make check-cuda-emu-tsan: $$c is not clang; configure a build with CC=clang CXX=clang++" \
	    "(with GCC's ThreadSanitizer runtime test_backend did not finish in 15 minutes: tests/cuda-emu/README.md)" >&2; \
	  exit 1;; esac; done
	$(MAKE) $(AM_MAKEFLAGS) $(emu_tsan_tests:=$(EXEEXT))
	+TSAN_OPTIONS=halt_on_error=1:exitcode=66 GBT_EMU_VARIANT=tsan GBT_TEST_QUICK=2 $(emu_variant_run) \
	  TESTS='$(emu_tsan_run)' TEST_SUITE_LOG=cuda-emu-tsan.log $(emu_only_these)

# ---- the counting build (opt-in: make cuda-emu-cost; README.md "The counting build") ----
# The library and the backend as in the plain build, the runtime with its
# counters (GBT_EMU_COST), and the rewritten kernels compiled by clang with
# load and store callbacks.  Nothing of it is in make check but
# tests/emu_cost, the counters on a kernel whose traffic is known by hand.
if HAVE_EMU_COST
EMU_COST_FLAGS = -fsanitize-coverage=func,trace-loads,trace-stores -fno-vectorize -fno-slp-vectorize
EMU_COST_OBJ = \
	tests/cuda-emu/cost/device.o tests/cuda-emu/cost/segments.o tests/cuda-emu/cost/gradient.o \
	tests/cuda-emu/cost/histogram.o tests/cuda-emu/cost/split.o tests/cuda-emu/cost/partition.o \
	tests/cuda-emu/cost/leaf.o tests/cuda-emu/cost/predict.o tests/cuda-emu/cost/shap.o tests/cuda-emu/cost/quantize.o
EMU_COST_COMPILE = $(AM_V_CXX)$(MKDIR_P) $(@D) && $(EMU_COST_CXX) $(DEFS) $(DEFAULT_INCLUDES) $(EMU_CPPFLAGS) \
	-DGBT_EMU_COST=1 $(CPPFLAGS) $(EMU_CXXFLAGS) $(CXXFLAGS) $(EMU_COST_FLAGS) -c -o $@
$(EMU_COST_OBJ) tests/emu_cost_kernels.o: $(CUDA_HEADER_FILES) $(emu_header_files) tests/cuda-emu/cost.h
tests/cuda-emu/cost/device.o: tests/cuda-emu/gen/device.cc
	$(EMU_COST_COMPILE) tests/cuda-emu/gen/device.cc
tests/cuda-emu/cost/segments.o: tests/cuda-emu/gen/segments.cc
	$(EMU_COST_COMPILE) tests/cuda-emu/gen/segments.cc
tests/cuda-emu/cost/gradient.o: tests/cuda-emu/gen/gradient.cc
	$(EMU_COST_COMPILE) tests/cuda-emu/gen/gradient.cc
tests/cuda-emu/cost/histogram.o: tests/cuda-emu/gen/histogram.cc
	$(EMU_COST_COMPILE) tests/cuda-emu/gen/histogram.cc
tests/cuda-emu/cost/split.o: tests/cuda-emu/gen/split.cc
	$(EMU_COST_COMPILE) tests/cuda-emu/gen/split.cc
tests/cuda-emu/cost/partition.o: tests/cuda-emu/gen/partition.cc
	$(EMU_COST_COMPILE) tests/cuda-emu/gen/partition.cc
tests/cuda-emu/cost/leaf.o: tests/cuda-emu/gen/leaf.cc
	$(EMU_COST_COMPILE) tests/cuda-emu/gen/leaf.cc
tests/cuda-emu/cost/predict.o: tests/cuda-emu/gen/predict.cc
	$(EMU_COST_COMPILE) tests/cuda-emu/gen/predict.cc
tests/cuda-emu/cost/shap.o: tests/cuda-emu/gen/shap.cc
	$(EMU_COST_COMPILE) tests/cuda-emu/gen/shap.cc
tests/cuda-emu/cost/quantize.o: tests/cuda-emu/gen/quantize.cc
	$(EMU_COST_COMPILE) tests/cuda-emu/gen/quantize.cc
tests/emu_cost.cc: $(srcdir)/tests/emu_cost.cu tests/cuda-emu/rewrite$(EXEEXT)
	$(EMU_REWRITE) $(srcdir)/tests/emu_cost.cu $@
tests/emu_cost_kernels.o: tests/emu_cost.cc
	$(EMU_COST_COMPILE) tests/emu_cost.cc
CLEANFILES += $(EMU_COST_OBJ) tests/emu_cost.cc tests/emu_cost_kernels.o libgbt_emu_cost.a bench/costmodel_run$(EXEEXT)

EXTRA_LIBRARIES = libgbt_emu_cost.a
libgbt_emu_cost_a_SOURCES = $(core_sources) $(core_backend_sources) cuda/backend_cuda.c tests/cuda-emu/runtime.cc tests/cuda-emu/cost.cc \
	tests/cuda-emu/cost.h $(emu_header_files)
libgbt_emu_cost_a_CPPFLAGS = $(EMU_CPPFLAGS) -DGBT_EMU_COST=1
libgbt_emu_cost_a_CXXFLAGS = $(EMU_CXXFLAGS)
libgbt_emu_cost_a_LIBADD = $(EMU_COST_OBJ)

# the counters' own test: only the runtime and the hand-counted kernel (quick to build)
check_PROGRAMS += tests/emu_cost
TESTS += tests/emu_cost
tests_emu_cost_SOURCES = tests/cuda-emu/runtime.cc tests/cuda-emu/cost.cc
tests_emu_cost_CPPFLAGS = $(EMU_CPPFLAGS) -DGBT_EMU_COST=1
tests_emu_cost_CXXFLAGS = $(EMU_CXXFLAGS)
tests_emu_cost_LDADD = tests/emu_cost_kernels.o

# bench/costmodel.py's driver: trains through the public API, one take per round
EXTRA_PROGRAMS += bench/costmodel_run
bench_costmodel_run_SOURCES = bench/costmodel_run.c
nodist_EXTRA_bench_costmodel_run_SOURCES = force-cxx-linker.cc
bench_costmodel_run_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/tests/cuda-emu
bench_costmodel_run_LDADD = libgbt_emu_cost.a $(MPI_LIBS) -lm
bench_costmodel_run_LDFLAGS = $(OPENMP_CFLAGS)

cuda-emu-cost: libgbt_emu_cost.a bench/costmodel_run$(EXEEXT) tests/emu_cost$(EXEEXT)
check-cuda-emu-cost: cuda-emu-cost
	$(MAKE) $(AM_MAKEFLAGS) check-TESTS TESTS='tests/emu_cost' TEST_SUITE_LOG=cuda-emu-cost.log
else
cuda-emu-cost check-cuda-emu-cost:
	@echo "The counting build needs clang++ with -fsanitize-coverage=trace-loads,trace-stores (clang 14 or later); configure found none (set EMU_COST_CXX)." >&2; exit 1
endif

else
emu_long_tests =
check-cuda-emu check-cuda-emu-asan check-cuda-emu-tsan cuda-emu-cost check-cuda-emu-cost:
	@echo "The CUDA emulator needs a C++17 compiler; configure found none." >&2; exit 1
endif
.PHONY: check-cuda-emu check-cuda-emu-asan check-cuda-emu-tsan cuda-emu-cost check-cuda-emu-cost

EXTRA_DIST += tests/mpi_emu.sh tests/cuda-emu/README.md tests/cuda-emu/rewrite.c tests/cuda-emu/runtime.cc tests/cuda-emu/emu.h tests/cuda-emu/cub.h \
	tests/cuda-emu/cost.cc tests/cuda-emu/cost.h tests/emu_cost.cu bench/costmodel.py bench/kernel_resources.py bench/costmodel_run.c \
	tests/cuda-emu/gbt_emu.h tests/cuda-emu/include/cuda_runtime.h tests/cuda-emu/include/cub/block/block_scan.cuh \
	tests/cuda-emu/include/cub/block/block_reduce.cuh tests/cuda-emu/include/cub/warp/warp_scan.cuh \
	tests/emu_planted.cu tests/cuda_nodevice.sh tests/cuda_twodevices.sh tests/cuda_interleave.sh \
	tests/emu_variant.sh tests/test_backend_1.sh tests/test_backend_2.sh
