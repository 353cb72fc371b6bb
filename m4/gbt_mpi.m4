dnl GBT_CHECK_MPI: --with-mpi[=MPICC] / --without-mpi.  By default MPI is used
dnl when `mpicc` works.  Sets MPI_CFLAGS, MPI_LIBS, MPIRUN, defines
dnl GBT_WITH_MPI, and the automake conditional HAVE_MPI.  The flags come from
dnl the wrapper compiler (Open MPI's --showme, MPICH's -show), and a program
dnl calling MPI_Init must link with them.
AC_DEFUN([GBT_CHECK_MPI], [
AC_ARG_WITH([mpi],
  [AS_HELP_STRING([--with-mpi@<:@=MPICC@:>@],
    [train across processes with MPI, using the wrapper compiler MPICC (default: mpicc, when it works)])],
  [], [with_mpi=check])
gbt_mpi=no
MPI_CFLAGS=
MPI_LIBS=
AS_IF([test "x$with_mpi" != "xno"], [
  AS_CASE([$with_mpi], [yes|check], [gbt_mpicc=mpicc], [gbt_mpicc=$with_mpi])
  AC_MSG_CHECKING([for the flags of MPI ($gbt_mpicc)])
  gbt_mpi_show=`$gbt_mpicc --showme 2>/dev/null || $gbt_mpicc -show 2>/dev/null`
  AS_IF([test -n "$gbt_mpi_show"], [
    for gbt_w in $gbt_mpi_show; do
      AS_CASE([$gbt_w],
        [-I*|-D*|-pthread], [MPI_CFLAGS="$MPI_CFLAGS $gbt_w"],
        [-L*|-l*|-Wl,*], [MPI_LIBS="$MPI_LIBS $gbt_w"])
    done
    AC_MSG_RESULT([$MPI_CFLAGS $MPI_LIBS])
    gbt_save_CFLAGS=$CFLAGS
    gbt_save_LIBS=$LIBS
    CFLAGS="$CFLAGS $MPI_CFLAGS"
    LIBS="$MPI_LIBS $LIBS"
    AC_MSG_CHECKING([whether a program calling MPI_Init links])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]], [[MPI_Init(0, 0); MPI_Finalize();]])],
      [gbt_mpi=yes], [gbt_mpi=no])
    AC_MSG_RESULT([$gbt_mpi])
    CFLAGS=$gbt_save_CFLAGS
    LIBS=$gbt_save_LIBS
  ], [AC_MSG_RESULT([$gbt_mpicc not found or not a wrapper compiler])])
  AS_IF([test "x$gbt_mpi" = "xno"], [
    MPI_CFLAGS=
    MPI_LIBS=
    AS_IF([test "x$with_mpi" != "xcheck"],
      [AC_MSG_ERROR([--with-mpi: $gbt_mpicc does not build MPI programs (install libopenmpi-dev and openmpi-bin, or name another wrapper compiler)])])
  ])
])
MPIRUN=
AS_IF([test "x$gbt_mpi" = "xyes"], [
  AC_DEFINE([GBT_WITH_MPI], [1], [Define to 1 to build distributed training over MPI.])
  AC_PATH_PROGS([MPIRUN], [mpirun mpiexec])
])
AC_SUBST([MPI_CFLAGS])
AC_SUBST([MPI_LIBS])
AC_SUBST([MPIRUN])
AM_CONDITIONAL([HAVE_MPI], [test "x$gbt_mpi" = "xyes"])
gbt_mpi_summary=$gbt_mpi
AS_IF([test "x$gbt_mpi" = "xyes"], [gbt_mpi_summary="yes ($MPI_LIBS; tests run ${MPIRUN:-no mpirun found})"])
])
