/*
 * version.c - the version and how the library was built.
 */
#include "config.h"

#include <stdlib.h>

#include "gbt.h"

#ifdef _OPENMP
#define GBT_OPENMP_JSON "true"
#else
#define GBT_OPENMP_JSON "false"
#endif

#if defined(GBT_CUDA_EMU)
#define GBT_CUDA_JSON "{\"compiled\": true, \"emulated\": true, \"version\": null, \"archs\": []}"
#elif defined(GBT_WITH_CUDA)
#define GBT_CUDA_JSON "{\"compiled\": true, \"version\": \"" GBT_CUDA_VERSION "\", \"archs\": [" GBT_CUDA_ARCHS_JSON "]}"
#else
#define GBT_CUDA_JSON "{\"compiled\": false, \"version\": null, \"archs\": []}"
#endif

#ifdef GBT_WITH_MPI
#define GBT_MPI_JSON "true"
#else
#define GBT_MPI_JSON "false"
#endif

#if defined(__clang__)
#define GBT_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define GBT_COMPILER "gcc " __VERSION__
#else
#define GBT_COMPILER "unknown"
#endif

const char *gbt_version(void)
{
    return PACKAGE_VERSION;
}

const char *gbt_build_info(void)
{
    return "{\"version\": \"" PACKAGE_VERSION "\", \"compiler\": \"" GBT_COMPILER
           "\", \"openmp\": " GBT_OPENMP_JSON ", \"cuda\": " GBT_CUDA_JSON ", \"mpi\": " GBT_MPI_JSON "}";
}

void gbt_free(void *p)
{
    free(p);
}
