# make fuzz: the libFuzzer harnesses of tests/fuzz/ (clang, ASan + UBSan),
# FUZZ_SECONDS each (docs/reliability.md).  Not part of make check.
FUZZ_SECONDS = 60
FUZZ_CC = clang
FUZZ_TARGETS = readers model params invariants
FUZZ_JOBS = 2
fuzz:
	FUZZ_CC='$(FUZZ_CC)' FUZZ_SECONDS='$(FUZZ_SECONDS)' FUZZ_TARGETS='$(FUZZ_TARGETS)' FUZZ_JOBS='$(FUZZ_JOBS)' \
	FUZZ_SOURCES='$(filter-out src/train/comm_mpi.c,$(filter %.c,$(core_sources) $(core_backend_sources)))' \
	  $(SHELL) $(srcdir)/tests/fuzz/fuzz.sh $(srcdir) tests/fuzz/build
clean-local:
	rm -rf tests/fuzz/build
.PHONY: fuzz
EXTRA_DIST += tests/fuzz/fuzz.sh tests/fuzz/fuzz_common.h tests/fuzz/fuzz_readers.c \
	tests/fuzz/fuzz_model.c tests/fuzz/fuzz_params.c tests/fuzz/fuzz_invariants.c tests/fuzz/fuzz_ref.h tests/fuzz/corpus
