#!/bin/sh
# mpi_emu.sh - tests/mpi_emu under mpirun on two ranks: distributed training
# on the emulated CUDA backend gives the single-process CPU model.
if [ -z "${MPIRUN:-}" ]; then
    echo "1..0 # SKIP no mpirun (configure found none)"
    exit 0
fi
# the test suite runs as root in CI's containers; no single-copy (CMA) transfers there
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_btl_vader_single_copy_mechanism OMP_NUM_THREADS
# Open MPI 4.1 leaks at MPI_Finalize (ompi_op_base_op_select and the components it
# unloads, which LeakSanitizer cannot even name): in an AddressSanitizer build the
# leak check stays off for this program; its address and UB checks stay on, and the
# library's own leaks are checked by the rest of the suite.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
exec timeout 600 "$MPIRUN" -np 2 --oversubscribe "${top_builddir:-.}/tests/mpi_emu" "${top_srcdir:-.}/datasets"
