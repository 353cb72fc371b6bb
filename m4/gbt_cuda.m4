dnl GBT_CHECK_CUDA: find nvcc and decide whether to build the CUDA backend.
dnl
dnl   --with-cuda[=DIR]      use CUDA (from DIR); an error if it does not work
dnl   --without-cuda         build the CPU-only library
dnl   (default)              use CUDA when a working nvcc is found
dnl   --with-cuda-arch=LIST  compute capabilities (default "75 80 86 89 90"),
dnl                          with PTX for the newest so later GPUs run it too
dnl
dnl Substitutes NVCC, NVCC_ARCHFLAGS, CUDA_CPPFLAGS, CUDA_LDFLAGS, CUDA_LIBS
dnl (all empty without CUDA) and defines GBT_WITH_CUDA, GBT_CUDA_VERSION and
dnl GBT_CUDA_ARCHS_JSON; sets the HAVE_CUDA conditional.
AC_DEFUN([GBT_CHECK_CUDA], [
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda@<:@=DIR@:>@], [build the CUDA backend (default: when nvcc is found)])],
    [], [with_cuda=check])
  AC_ARG_WITH([cuda-arch],
    [AS_HELP_STRING([--with-cuda-arch=LIST], [CUDA compute capabilities, e.g. "80 90" or 80,90 (default: 75 80 86 89 90)])],
    [with_cuda_arch=`echo "$with_cuda_arch" | tr ',' ' '`], [with_cuda_arch="75 80 86 89 90"])

  gbt_have_cuda=no
  gbt_cuda_summary="no"
  NVCC=""
  NVCC_ARCHFLAGS=""
  CUDA_CPPFLAGS=""
  CUDA_LDFLAGS=""
  CUDA_LIBS=""
  AS_IF([test "x$with_cuda" != "xno"], [
    AS_CASE([$with_cuda],
      [yes|check], [AC_PATH_PROG([NVCC], [nvcc], [], [$PATH:/usr/local/cuda/bin])],
      [AS_IF([test -x "$with_cuda/bin/nvcc"], [NVCC="$with_cuda/bin/nvcc"])])
    AS_IF([test -n "$NVCC"], [
      gbt_cuda_home=`AS_DIRNAME(["$NVCC"])`
      gbt_cuda_home=`AS_DIRNAME(["$gbt_cuda_home"])`
      gbt_newest=""
      for gbt_a in $with_cuda_arch; do
        AS_CASE([$gbt_a], [*[[!0-9]]*|""], [AC_MSG_ERROR([bad CUDA architecture '$gbt_a' in --with-cuda-arch])])
        NVCC_ARCHFLAGS="$NVCC_ARCHFLAGS -gencode arch=compute_$gbt_a,code=sm_$gbt_a"
        AS_IF([test -z "$gbt_newest" || test "$gbt_a" -gt "$gbt_newest"], [gbt_newest=$gbt_a])
      done
      AS_IF([test -z "$gbt_newest"], [AC_MSG_ERROR([--with-cuda-arch lists no architecture])])
      NVCC_ARCHFLAGS="$NVCC_ARCHFLAGS -gencode arch=compute_$gbt_newest,code=compute_$gbt_newest"
      AC_MSG_CHECKING([whether $NVCC compiles for $with_cuda_arch])
      cat > conftest.cu <<_GBT_EOF
__global__ void k(int *p) { p[[threadIdx.x]] = 1; }
int main(void) { return 0; }
_GBT_EOF
      AS_IF([$NVCC -c $NVCC_ARCHFLAGS -o conftest.o conftest.cu >&AS_MESSAGE_LOG_FD 2>&1],
            [gbt_have_cuda=yes], [gbt_have_cuda=no])
      rm -f conftest.cu conftest.o
      AC_MSG_RESULT([$gbt_have_cuda])
    ])
    AS_IF([test "x$gbt_have_cuda" = "xno" && test "x$with_cuda" != "xcheck"],
          [AC_MSG_ERROR([--with-cuda was given, but no working nvcc was found (looked for ${NVCC:-nvcc}; see config.log)])])
  ])
  AS_IF([test "x$gbt_have_cuda" = "xyes"], [
    gbt_cuda_version=`$NVCC --version | sed -n 's/.*release \([[0-9]]*\.[[0-9]]*\).*/\1/p'`
    gbt_cuda_libdir="$gbt_cuda_home/lib64"
    AS_IF([test -d "$gbt_cuda_libdir"], [], [gbt_cuda_libdir="$gbt_cuda_home/lib"])
    CUDA_CPPFLAGS="-I$gbt_cuda_home/include"
    CUDA_LDFLAGS="-L$gbt_cuda_libdir"
    CUDA_LIBS="-lcudart_static -ldl -lrt -lpthread -lstdc++"
    gbt_archs_json=`echo $with_cuda_arch | sed 's/ /, /g'`
    AC_DEFINE([GBT_WITH_CUDA], [1], [Define to build the CUDA backend.])
    AC_DEFINE_UNQUOTED([GBT_CUDA_VERSION], ["$gbt_cuda_version"], [CUDA toolkit version.])
    AC_DEFINE_UNQUOTED([GBT_CUDA_ARCHS_JSON], ["$gbt_archs_json"], [CUDA architectures, as JSON list items.])
    gbt_cuda_summary="yes ($NVCC, CUDA $gbt_cuda_version, archs $with_cuda_arch + PTX $gbt_newest)"
  ])
  AC_SUBST([NVCC])
  AC_SUBST([NVCC_ARCHFLAGS])
  AC_SUBST([CUDA_CPPFLAGS])
  AC_SUBST([CUDA_LDFLAGS])
  AC_SUBST([CUDA_LIBS])
  AM_CONDITIONAL([HAVE_CUDA], [test "x$gbt_have_cuda" = "xyes"])
])
