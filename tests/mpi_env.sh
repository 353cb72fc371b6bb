# mpi_env.sh - the environment of the tests that run mpirun; source it after
# tests/tap.sh (it uses $work).  In a build without MPI the test skips.
if [ -z "${MPIRUN:-}" ]; then
    echo "1..0 # SKIP no mpirun (configure found none)"
    exit 0
fi
# the test suite runs as root in CI's containers; no single-copy (CMA) transfers there
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
# Open MPI 4 keeps its session files in one directory per user under /tmp,
# which a job removes when it ends: with two of these tests at once (make -j)
# a starting mpirun can fail with "orte_session_dir failed".  Each test keeps
# its own in $work.
OMPI_MCA_orte_tmpdir_base=$work
OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
# Sockets on the loopback device only: mpirun's start-up channel (oob) on lo,
# and no TCP transport between the ranks (they share one machine: shared
# memory), since Open MPI 4.1's TCP transport listens on every address
# whatever btl_tcp_if_include says (set too, for an MPI that honours it).
OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_btl=self,vader
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_btl_vader_single_copy_mechanism \
    OMPI_MCA_orte_tmpdir_base OMP_NUM_THREADS OMPI_MCA_oob_tcp_if_include OMPI_MCA_btl_tcp_if_include OMPI_MCA_btl
