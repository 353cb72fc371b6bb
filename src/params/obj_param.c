/*
 * obj_param.c - the objective's parameters for the gradients, resolved from
 * the booster's parameters (scale_pos_weight, max_delta_step's auto, the
 * quantiles), for every booster and backend.
 */
#include <math.h>
#include <string.h>

#include "params/params.h"

double gbt__params_scale_pos(const struct gbt_params *p)
{
    const int binary = p->objective == GBT_OBJ_BINARY_LOGISTIC || p->objective == GBT_OBJ_BINARY_LOGITRAW;
    return binary ? p->scale_pos_weight : 1.0;
}

/* max_delta_step resolved: auto is 0.7 for count:poisson (as XGBoost), else 0. */
double gbt__params_max_delta_step(const struct gbt_params *p)
{
    if (!isnan(p->max_delta_step)) return p->max_delta_step;
    return p->objective == GBT_OBJ_COUNT_POISSON ? 0.7 : 0.0;
}

/* The objective's parameters for the backends' gradients. */
struct gbt_obj_param gbt__params_obj_param(const struct gbt_params *p)
{
    struct gbt_obj_param op;
    /* zeroed whole: the padding too travels to the device as a kernel argument */
    memset(&op, 0, sizeof op);
    op.scale_pos = gbt__params_scale_pos(p);
    op.poisson_delta = gbt__params_max_delta_step(p);
    op.huber_slope = p->huber_slope;
    op.tweedie_rho = p->tweedie_variance_power;
    if (p->objective == GBT_OBJ_REG_QUANTILEERROR)
        memcpy(op.alpha, p->quantile_alpha, (size_t)p->num_quantile_alpha * sizeof op.alpha[0]);
    else
        op.alpha[0] = 0.5;
    op.aft_dist = (int)p->aft_loss_distribution;
    op.aft_sigma = p->aft_loss_distribution_scale;
    return op;
}
