/*
 * error.c - status names, this thread's last error, and the log callback.
 */
#include <stdio.h>
#include <string.h>

#include "util/error.h"

static _Thread_local char last_error[GBT_ERROR_MSG_MAX];

static gbt_log_fn log_fn;
static void *log_user;

const char *gbt_status_str(gbt_status s)
{
    switch (s) {
#define GBT_STATUS_CASE_(name, value, text) \
    case GBT_##name:                        \
        return text;
        GBT_STATUS_MAP(GBT_STATUS_CASE_)
#undef GBT_STATUS_CASE_
    }
    return "unknown status";
}

const char *gbt_last_error(void)
{
    return last_error;
}

gbt_status gbt__fail(gbt_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return s;
}

gbt_status gbt__fail_context(gbt_status s, const char *fmt, ...)
{
    char prefix[GBT_ERROR_MSG_MAX];
    char old[GBT_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, last_error, sizeof old);
    if (snprintf(last_error, sizeof last_error, "%s: %s", prefix, old) < 0) last_error[0] = '\0';
    return s;
}

void gbt__par_error_init(struct gbt_par_error *e)
{
    e->status = GBT_OK;
    e->index = UINT64_MAX;
    e->msg[0] = '\0';
}

void gbt__par_error_keep(struct gbt_par_error *e, uint64_t index, gbt_status s)
{
    if (s == GBT_OK) return;
#pragma omp critical(gbt_par_error)
    {
        if (e->status == GBT_OK || index < e->index) {
            e->status = s;
            e->index = index;
            memcpy(e->msg, last_error, sizeof e->msg);
        }
    }
}

gbt_status gbt__par_error_raise(const struct gbt_par_error *e)
{
    if (e->status != GBT_OK) memcpy(last_error, e->msg, sizeof last_error);
    return e->status;
}

void gbt_set_log_callback(gbt_log_fn fn, void *user)
{
    log_fn = fn;
    log_user = user;
}

void gbt__log(int verbosity, int level, const char *fmt, ...)
{
    char msg[GBT_ERROR_MSG_MAX];
    gbt_log_fn fn = log_fn;
    va_list ap;
    if (fn == NULL || level > verbosity) return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fn(level, msg, log_user);
}
