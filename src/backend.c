/*
 * backend.c - the backend registry and device selection.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "util/error.h"

#ifdef GBT_WITH_CUDA
extern const struct gbt_backend_ops gbt__cuda_ops;
#endif

const struct gbt_backend_ops *gbt__backend_cuda(void)
{
#ifdef GBT_WITH_CUDA
    return &gbt__cuda_ops;
#else
    return NULL;
#endif
}

/* Why no CUDA device is usable, for messages: the driver's error, or NULL when it counted. */
static const char *device_error(const struct gbt_backend_ops *cuda)
{
    return cuda && cuda->device_error ? cuda->device_error() : NULL;
}

int gbt_device_count(void)
{
    const struct gbt_backend_ops *cuda = gbt__backend_cuda();
    return cuda ? cuda->device_count() : 0;
}

gbt_status gbt_device_describe(int ordinal, char *name, size_t name_len, int *cc_major,
                               int *cc_minor, uint64_t *total_bytes, uint64_t *free_bytes)
{
    const struct gbt_backend_ops *cuda = gbt__backend_cuda();
    int n = cuda ? cuda->device_count() : 0;
    const char *why = device_error(cuda);
    RETURN_ERROR_IF(ordinal < 0 || ordinal >= n, GBT_E_NO_DEVICE,
                    "no CUDA device %d (%d present%s%s)", ordinal, n,
                    cuda ? (why ? ": " : "") : "; this library was built without CUDA",
                    why ? why : "");
    return cuda->describe(ordinal, name, name_len, cc_major, cc_minor, total_bytes, free_bytes);
}

gbt_status gbt__device_resolve(const char *text, int verbosity,
                               const struct gbt_backend_ops **ops, int *ordinal)
{
    const struct gbt_backend_ops *cuda = gbt__backend_cuda();
    const char *why = device_error(cuda);
    int kind, o, n;
    FORWARD_IF_ERROR(gbt__device_parse(text, &kind, &o));
    n = cuda ? cuda->device_count() : 0;
    if (kind == GBT_DEVICE_CPU) {
        *ops = gbt__backend_cpu();
        *ordinal = -1;
        return GBT_OK;
    }
    if (kind == GBT_DEVICE_AUTO) {
        if (n > 0) {
            *ops = cuda;
            *ordinal = 0;
            gbt__log((int)verbosity, GBT_LOG_INFO, "device=auto: training on cuda:0");
        } else {
            const char *reason = cuda ? why : "built without CUDA";
            *ops = gbt__backend_cpu();
            *ordinal = -1;
            gbt__log((int)verbosity, GBT_LOG_INFO,
                     "device=auto: no usable CUDA device%s%s%s; training on the CPU",
                     reason ? " (" : "", reason ? reason : "", reason ? ")" : "");
        }
        return GBT_OK;
    }
    RETURN_ERROR_IF(cuda == NULL, GBT_E_NO_DEVICE,
                    "device '%s' requested, but this library was built without CUDA support", text);
    RETURN_ERROR_IF(o >= n, GBT_E_NO_DEVICE, "device '%s' requested, but %d CUDA device%s usable%s%s",
                    text, n, n == 1 ? " is" : "s are", why ? ": " : "", why ? why : "");
    *ops = cuda;
    *ordinal = o;
    return GBT_OK;
}
