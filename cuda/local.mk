# cuda/local.mk - build rules of the CUDA backend (included by Makefile.am).
