# tools/local.mk - the developer tools' build rules (included by Makefile.am).

# gpu_tool: device listing, the synthetic data set and the benchmark of gpu-validate
if HAVE_CUDA
check_PROGRAMS += tools/gpu_tool
endif
tools_gpu_tool_SOURCES = tools/gpu_tool.c
tools_gpu_tool_LDADD = libgbt_core.la
EXTRA_DIST += tools/gpu-validate.sh

# ---- make gpu-validate: everything that needs a GPU, in one command ----
gpu-validate: gbtrain$(EXEEXT) tests/test_backend_gpu$(EXEEXT) tests/test_cuda_errors_gpu$(EXEEXT) \
		tools/gpu_tool$(EXEEXT)
	@top_srcdir='$(top_srcdir)' top_builddir='$(top_builddir)' NVCC='$(NVCC)' \
	  LIBTOOL='$(LIBTOOL)' $(SHELL) $(top_srcdir)/tools/gpu-validate.sh
.PHONY: gpu-validate

# XGBoost's own tests/python run against gbt (by hand, not in CI: tools/xgb_pytests.py says how)
EXTRA_DIST += tools/xgb_pytests.py tools/xgbshim/xgboost/__init__.py
