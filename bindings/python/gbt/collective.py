"""gbt.collective: XGBoost's ``collective`` module over an MPI communicator
(mpi4py), so that scripts written for XGBoost's distributed training run.

The processes are started by ``mpirun`` (or another MPI launcher), and
:func:`init` takes their communicator: ``comm=`` (an ``mpi4py.MPI.Comm``), by
default ``MPI.COMM_WORLD``.  XGBoost's tracker arguments (``dmlc_*``) do not
apply and are refused.  While a communicator is set (between :func:`init` and
:func:`finalize`, or inside :class:`CommunicatorContext`), :func:`gbt.train`
and the estimators' ``fit`` train on it: each process passes its own rows,
and every process ends with the model one process trains on all the rows,
byte for byte (docs/distributed.md)::

    from mpi4py import MPI
    import gbt

    with gbt.collective.CommunicatorContext():     # MPI.COMM_WORLD
        booster = gbt.train(params, gbt.DMatrix(X_mine, y_mine), 100)

Outside a communicator every function answers as for one process (rank 0 of
1; :func:`allreduce` and :func:`broadcast` give their input back).
"""
from __future__ import annotations

import ctypes
import os
import re
import sys
from enum import IntEnum
from typing import Any, Optional

import numpy as np

from ._lib import LIB, check

__all__ = ["CommunicatorContext", "Op", "init", "finalize", "get_rank", "get_world_size", "is_distributed",
           "communicator_print", "get_processor_name", "allreduce", "broadcast"]

_comm: Any = None  # the communicator of init(), None outside one


class Op(IntEnum):
    """The reductions of :func:`allreduce` (XGBoost's names and values)."""

    MAX = 0
    MIN = 1
    SUM = 2
    BITWISE_AND = 3
    BITWISE_OR = 4
    BITWISE_XOR = 5


def _mpi() -> Any:
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise ImportError("gbt's distributed training from Python runs over MPI through mpi4py, which is not "
                          f"installed ({e}): pip install mpi4py, then start the script with "
                          "mpirun -np N python3 script.py") from e
    return MPI


def _checked(comm: Any) -> Any:
    """comm, or MPI.COMM_WORLD for None, after checking that it is an intracommunicator."""
    MPI = _mpi()
    if comm is None:
        return MPI.COMM_WORLD
    if not isinstance(comm, MPI.Intracomm) or comm == MPI.COMM_NULL:
        raise TypeError("comm must be an mpi4py intracommunicator (MPI.COMM_WORLD, or one made from it with "
                        f"Split or Create); got {comm!r}")
    return comm


def _mpi_libraries() -> set:
    """The MPI libraries mapped into this process (Linux; empty elsewhere)."""
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split(None, 5)[-1].strip() for line in f if ".so" in line}
    except OSError:
        return set()
    return {os.path.realpath(p) for p in paths
            if re.match(r"lib(mpi|mpich|mpi_abi)\.so", os.path.basename(p))}


def _attach(booster: Any, comm: Any) -> None:
    """Puts booster on comm (gbt_booster_set_mpi_comm), which the library duplicates."""
    comm = _checked(comm)
    check(LIB.gbt_booster_set_mpi_comm(booster._handle, _comm_address(comm)))
    booster._comm = comm


def _comm_address(comm: Any) -> ctypes.c_void_p:
    """The address of comm's MPI_Comm, the C calls' `const void *mpi_comm`, after
    checking that libgbt has MPI and that one MPI library is loaded."""
    comm = _checked(comm)
    from .core import build_info
    if not build_info().get("mpi"):
        raise RuntimeError("this libgbt was built without MPI (configure found no working mpicc), so it cannot "
                           "train across processes: install an MPI (apt-get install libopenmpi-dev openmpi-bin) "
                           "and reinstall the package (pip install ./bindings/python)")
    libs = _mpi_libraries()
    if len(libs) > 1:
        raise RuntimeError(f"two MPI libraries are loaded ({', '.join(sorted(libs))}): mpi4py must use the "
                           "MPI that libgbt was built with: set MPI4PY_LIBMPI to the libmpi that `ldd` shows "
                           "for libgbt, or build mpi4py against it (pip install --no-binary mpi4py mpi4py)")
    MPI = _mpi()
    # the address of the MPI_Comm inside the mpi4py object
    return ctypes.c_void_p(MPI._addressof(comm))


def _same_categories(comm: Any, categories: Any) -> None:
    """Raises on every rank when the ranks' category columns (pandas
    categories, column -> list) differ: the codes must mean the same
    categories on every rank."""
    every = comm.allgather({i: list(c) for i, c in (categories or {}).items()})
    for r, cats in enumerate(every):
        if cats != every[0]:
            raise ValueError(f"rank {r}: its category columns have categories other than rank 0's "
                             f"({_first_difference(every[0], cats)}): give every rank's frame the same "
                             "categories, e.g. .astype(pandas.CategoricalDtype(categories=[...]))")


def _first_difference(a: dict, b: dict) -> str:
    for i in sorted(set(a) | set(b)):
        if a.get(i) != b.get(i):
            return f"column {i}: {b.get(i)!r}, rank 0 {a.get(i)!r}"
    return ""  # pragma: no cover - called only when a != b


def _current() -> Any:
    """The communicator of init(), or None."""
    return _comm


def init(comm: Any = None, **args: Any) -> None:
    """Sets the communicator that training and the functions of this module
    use: ``comm`` (an mpi4py intracommunicator), by default
    ``MPI.COMM_WORLD``.  MPI itself is started by importing ``mpi4py.MPI``
    and ended by mpi4py at exit; XGBoost's tracker arguments are refused."""
    global _comm
    if args:
        raise TypeError(f"gbt.collective.init takes comm= (an mpi4py communicator), not {', '.join(sorted(args))}: "
                        "gbt's processes communicate over MPI, started by mpirun, so XGBoost's tracker "
                        "arguments do not apply")
    if _comm is not None:
        raise RuntimeError("gbt.collective is already initialised; call finalize() first")
    _comm = _checked(comm)


def finalize() -> None:
    """Forgets the communicator of :func:`init` (MPI stays up: mpi4py ends it at exit)."""
    global _comm
    _comm = None


def get_rank() -> int:
    """This process's rank in the communicator (0 outside one)."""
    return _comm.Get_rank() if _comm is not None else 0


def get_world_size() -> int:
    """The number of processes in the communicator (1 outside one)."""
    return _comm.Get_size() if _comm is not None else 1


def is_distributed() -> bool:
    """Whether a communicator of more than one process is set."""
    return get_world_size() > 1


def get_processor_name() -> str:
    """The name of the machine this process runs on (MPI_Get_processor_name)."""
    if _comm is None:
        import socket
        return socket.gethostname()
    return _mpi().Get_processor_name()


def communicator_print(msg: str) -> None:
    """Prints msg on this process's standard output, which mpirun forwards
    (as XGBoost's callbacks do, call it on one rank to print once)."""
    if not isinstance(msg, str):
        raise TypeError(f"msg must be a str; got {type(msg).__name__}")
    sys.stdout.write(msg if msg.endswith("\n") else msg + "\n")
    sys.stdout.flush()


def broadcast(data: Any, root: int) -> Any:
    """``data`` of process ``root`` (any picklable object), on every process."""
    if _comm is None:
        return data
    return _comm.bcast(data, root=int(root))


def allreduce(data: np.ndarray, op: Op) -> np.ndarray:
    """The element-wise reduction ``op`` of ``data`` over the processes, a
    new array of data's shape and type on every process.  Bitwise
    operations take integer arrays.  A SUM of floating-point values is
    MPI's, whose order of additions is its own."""
    op = Op(op)
    buf = np.ascontiguousarray(data)
    if not isinstance(data, np.ndarray) or buf.dtype.kind not in "biuf":
        raise TypeError(f"allreduce takes a numpy array of numbers; got {type(data).__name__}")
    if op >= Op.BITWISE_AND and buf.dtype.kind not in "biu":
        raise TypeError(f"{op.name} takes an integer array; got {buf.dtype}")
    if _comm is None:
        return buf.copy()
    MPI = _mpi()
    mpi_op = {Op.MAX: MPI.MAX, Op.MIN: MPI.MIN, Op.SUM: MPI.SUM, Op.BITWISE_AND: MPI.BAND,
              Op.BITWISE_OR: MPI.BOR, Op.BITWISE_XOR: MPI.BXOR}[op]
    out = np.empty_like(buf)
    _comm.Allreduce(buf, out, op=mpi_op)
    return out


class CommunicatorContext:
    """``with CommunicatorContext(comm):`` :func:`init` on entry and
    :func:`finalize` on exit, as XGBoost's; ``comm`` defaults to
    ``MPI.COMM_WORLD``.  Training inside it (:func:`gbt.train`, the
    estimators' ``fit``) runs on the communicator."""

    def __init__(self, comm: Optional[Any] = None, **args: Any) -> None:
        self.comm = comm
        self.args = args

    def __enter__(self) -> "CommunicatorContext":
        init(self.comm, **self.args)
        return self

    def __exit__(self, *exc: Any) -> None:
        finalize()
