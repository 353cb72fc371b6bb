#!/bin/sh
# mpi_emu.sh - tests/mpi_emu under mpirun on two ranks: distributed training
# on the emulated CUDA backend gives the single-process CPU model.
. "${top_srcdir:-.}/tests/tap.sh"
. "$srcdir/tests/mpi_env.sh"
# Open MPI 4.1 leaks at MPI_Finalize (ompi_op_base_op_select and the components it
# unloads, which LeakSanitizer cannot even name): in an AddressSanitizer build the
# leak check stays off for this program; its address and UB checks stay on, and the
# library's own leaks are checked by the rest of the suite.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
# not exec: the shell removes $work when mpirun ends
timeout 600 "$MPIRUN" -np 2 --oversubscribe "$builddir/tests/mpi_emu" "$data"
