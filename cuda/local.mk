# cuda/local.mk - build rules of the CUDA backend (included by Makefile.am).
#
# Each .cu file is compiled once by nvcc, through build-aux/cudalt.sh, into
# a libtool object (PIC, used for both the shared and the static library).
# -fmad=false (device) and -ffp-contract=off (host) keep every number that
# decides the model free of fused multiply-adds, as gcc's objects are.
# Automake does not track the dependencies of .cu files: they are listed
# below by hand.  Every CUDA file is distributed, whether or not this
# configuration builds it.

CUDA_HEADER_FILES = cuda/gbt_cuda.h cuda/cu_internal.cuh cuda/math_check.h
CUDA_CU_FILES = \
	cuda/device.cu cuda/segments.cu cuda/gradient.cu cuda/histogram.cu \
	cuda/split.cu cuda/partition.cu cuda/leaf.cu cuda/predict.cu cuda/shap.cu \
	cuda/quantize.cu cuda/pages.cu

NVCC_FLAGS = -O3 -std=c++17 $(NVCC_ARCHFLAGS) -fmad=false \
	-Xcompiler -ffp-contract=off -Xcompiler -Wall -Xcompiler -Wextra \
	-I$(top_srcdir)/include -I$(top_srcdir)/src -I$(top_srcdir)/cuda -I$(top_builddir) \
	-DHAVE_CONFIG_H

SUFFIXES = .cu
.cu.lo:
	$(AM_V_GEN)$(SHELL) $(top_srcdir)/build-aux/cudalt.sh $@ $(NVCC) $(NVCC_FLAGS) -c $<

if HAVE_CUDA
libgbt_core_la_SOURCES += cuda/backend_cuda.c $(CUDA_CU_FILES) $(CUDA_HEADER_FILES)
endif

# What the .cu files include (config.h changes with every configure).
CUDA_DEPS = $(CUDA_HEADER_FILES) $(top_builddir)/config.h $(top_srcdir)/include/gbt.h \
	$(top_srcdir)/src/backend.h $(top_srcdir)/src/model/predict.h $(top_srcdir)/src/data/quantize.h \
	$(top_srcdir)/src/data/dataset.h $(top_srcdir)/src/model/tree.h \
	$(top_srcdir)/src/common/gmath.h $(top_srcdir)/src/common/grad_math.h \
	$(top_srcdir)/src/common/hostdev.h $(top_srcdir)/src/common/rng.h \
	$(top_srcdir)/src/common/shap_math.h $(top_srcdir)/src/common/catset.h \
	$(top_srcdir)/src/common/split_math.h $(top_srcdir)/src/common/constraint_math.h \
	$(top_srcdir)/src/common/types.h \
	$(top_srcdir)/src/common/surv_math.h \
	$(top_srcdir)/src/common/rank_math.h $(top_srcdir)/src/common/cuts.h \
	$(top_srcdir)/src/data/pages.h
cuda/device.lo cuda/segments.lo cuda/gradient.lo cuda/histogram.lo cuda/split.lo \
cuda/partition.lo cuda/leaf.lo cuda/predict.lo cuda/shap.lo cuda/quantize.lo cuda/pages.lo: $(CUDA_DEPS)


EXTRA_DIST += $(CUDA_CU_FILES) $(CUDA_HEADER_FILES) cuda/backend_cuda.c
# ptxas's reports (build-aux/cudalt.sh), read by tests/cuda_resources.sh
CLEANFILES += $(CUDA_CU_FILES:.cu=.ptxas)

# ---- tests on a real GPU: every op and whole trainings against the CPU ----
# The same tests run on the emulated device in every build (tests/cuda-emu/local.mk);
# these link the nvcc-built backend and skip without a GPU.
if HAVE_CUDA
check_PROGRAMS += tests/test_backend_gpu tests/test_cuda_errors_gpu
TESTS += tests/test_backend_gpu tests/test_cuda_errors_gpu
endif
tests_test_backend_gpu_SOURCES = tests/test_backend.c tests/tap.h
tests_test_backend_gpu_LDADD = libgbt_core.la
tests_test_cuda_errors_gpu_SOURCES = tests/test_cuda_errors.c tests/tap.h
tests_test_cuda_errors_gpu_LDADD = libgbt_core.la
