/*
 * shap.h - prediction outputs that explain a model: the leaf each row
 * reaches in each tree, SHAP values and SHAP interaction values (the math
 * is common/shap_math.h, shared with the CUDA backend).
 */
#ifndef GBT_SHAP_H
#define GBT_SHAP_H

#include <stdint.h>

#include "model/model.h"
#include "common/shap_math.h"

/*
 * A device's explanation of nrow rows (the backend's predict_explain,
 * backend.h): output `kind` of the forest f for rows x (nfeat values each,
 * NaN: missing) starting from base (nrow * K), into out.
 */
typedef gbt_status (*gbt_explain_device_fn)(int ordinal, const struct gbt_shap_forest *f, int kind,
                                            const float *x, const double *base, uint64_t nrow,
                                            float *out);

/* The floats of one row's output of `kind` for trees [t0, t1) of m. */
uint64_t gbt__explain_width(const struct gbt_model *m, int kind, uint32_t t0, uint32_t t1);

/*
 * Output `kind` of trees [t0, t1) of m (t0 and t1 multiples of K) for
 * every row of v into out (v->nrow * gbt__explain_width floats,
 * row-major).  With a device function (not NULL) the rows are
 * computed on device `ordinal` in chunks, densified on the host; else on
 * the CPU with nthread threads.  Both give the same bits.  Allocates its
 * working memory (the trees in SHAP form; per thread or chunk, the row's
 * values and the walk's scratch).
 */
gbt_status gbt__explain(const struct gbt_model *m, const struct gbt_dview *v, int kind, uint32_t t0,
                        uint32_t t1, int nthread, gbt_explain_device_fn device, int ordinal,
                        float *out);

#endif
