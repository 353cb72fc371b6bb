/*
 * test_attrs.c - the model's user attributes (gbt_booster_set_attr,
 * XGBoost's Booster.set_attr): set, read, replaced and removed; the
 * facts of gbt_booster_get_attr refused; kept through the model file
 * (awkward characters included), slicing and continued training; in the
 * XGBoost export's learner attributes.
 */
#include <stdio.h>

#include "testutil.h"

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = calloc((size_t)n + 1, 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

int main(void)
{
    const char *const settings[] = {"max_depth=2", NULL};
    /* quotes, a backslash, a newline, a tab and UTF-8: each must survive the JSON */
    const char *const odd = "{\"1\": [\"a\\\\b\", \"line\nbreak\ttab\", \"caf\xc3\xa9\"]}";
    gbt_dataset *d = tu_dataset(200, 3, 0.0, 0);
    gbt_booster *b = tu_train(d, 3, settings), *c = NULL, *s = NULL;
    char buf[256], *json = NULL, *m = NULL, *x = NULL, path[512];
    size_t len = 0;

    ok(b != NULL, "a trained booster");
    ok_call(gbt_booster_attributes(b, &json), "attributes of a fresh model");
    ok(json && strcmp(json, "{}") == 0, "are {} (%s)", json ? json : "NULL");
    gbt_free(json);
    ok(gbt_booster_get_attr(b, "comment", buf, sizeof buf) == GBT_E_INVALID_ARG,
       "an attribute never set is unknown: %s", gbt_last_error());
    ok_call(gbt_booster_set_attr(b, "comment", odd), "set an attribute");
    ok_call(gbt_booster_set_attr(b, "note", "first"), "set another");
    ok_call(gbt_booster_set_attr(b, "note", "second"), "replace it");
    ok(gbt_booster_get_attr(b, "note", buf, sizeof buf) == GBT_OK && strcmp(buf, "second") == 0,
       "get_attr reads the value set last (%s)", buf);
    ok(gbt_booster_get_attr(b, "note", buf, 3) == GBT_E_INVALID_ARG, "a buffer too small is refused: %s",
       gbt_last_error());
    ok(gbt_booster_set_attr(b, "best_iteration", "3") == GBT_E_INVALID_ARG &&
           gbt_booster_set_attr(b, "device", "cpu") == GBT_E_INVALID_ARG &&
           gbt_booster_set_attr(b, "", "x") == GBT_E_INVALID_ARG,
       "facts and the empty name cannot be set: %s", gbt_last_error());
    ok(gbt_booster_get_attr(b, "device", buf, sizeof buf) == GBT_OK && strcmp(buf, "cpu") == 0,
       "the facts are still the booster's (device=%s)", buf);

    /* the model file: saved and loaded, the same attributes in the same order */
    ok_call(gbt_booster_save_to_buffer(b, &m, &len), "save");
    ok_call(gbt_booster_load_from_buffer(m, len, &c), "load");
    ok(c && gbt_booster_get_attr(c, "comment", buf, sizeof buf) == GBT_OK && strcmp(buf, odd) == 0,
       "the loaded model has the attribute, byte for byte");
    ok_call(c ? gbt_booster_attributes(c, &json) : GBT_E_INTERNAL, "attributes of the loaded model");
    ok(json && strstr(json, "\"note\": \"second\"") && strstr(json, "comment") &&
           strstr(json, "comment") < strstr(json, "\"note\""),
       "both, in the order first set: %.80s...", json ? json : "NULL");
    gbt_free(json);

    /* \\u escapes read back as UTF-8: a surrogate pair, a two-byte one, a lone surrogate */
    {
        const char *at = m ? strstr(m, "\"second\"") : NULL;
        char *t = at ? malloc(len + 64) : NULL;
        gbt_booster *u = NULL;
        if (t) {
            const size_t head = (size_t)(at - m);
            memcpy(t, m, head);
            strcpy(t + head, "\"\\ud83d\\ude00\\u00e9\\ud800x\"");
            strcat(t, at + strlen("\"second\""));
        }
        ok(t && gbt_booster_load_from_buffer(t, strlen(t), &u) == GBT_OK &&
               gbt_booster_get_attr(u, "note", buf, sizeof buf) == GBT_OK &&
               strcmp(buf, "\xf0\x9f\x98\x80\xc3\xa9?x") == 0,
           "\\u escapes in a model file read back as UTF-8");
        free(t);
        gbt_booster_free(u);
    }

    /* slicing and continued training keep them */
    ok_call(gbt_booster_slice(b, 1, 2, &s), "slice");
    ok(s && gbt_booster_get_attr(s, "note", buf, sizeof buf) == GBT_OK && strcmp(buf, "second") == 0,
       "the slice keeps the attributes");
    ok_call(c ? gbt_booster_train(c, d, 1, NULL, NULL, 0) : GBT_E_INTERNAL, "continued training");
    ok(c && gbt_booster_get_attr(c, "note", buf, sizeof buf) == GBT_OK && strcmp(buf, "second") == 0,
       "keeps them too");

    /* the XGBoost export: learner attributes */
    snprintf(path, sizeof path, "%s/x.json", tu_tmpdir());
    ok_call(gbt_booster_save_xgboost(b, path), "XGBoost export");
    x = read_all(path);
    ok(x && strstr(x, "\"attributes\":{") && strstr(x, "\"note\":\"second\"") &&
           strstr(x, "\"comment\":\"{\\\"1\\\": [\\\"a\\\\\\\\b\\\", \\\"line\\nbreak\\ttab\\\""),
       "holds them as learner attributes, escaped (newline and tab as XGBoost's JSON reader reads them)");

    /* removed */
    ok_call(gbt_booster_set_attr(b, "note", NULL), "remove one");
    ok(gbt_booster_get_attr(b, "note", buf, sizeof buf) == GBT_E_INVALID_ARG, "it is gone");
    ok_call(gbt_booster_set_attr(b, "never_set", NULL), "removing one never set is no error");

    free(x);
    gbt_free(m);
    gbt_booster_free(b);
    gbt_booster_free(c);
    gbt_booster_free(s);
    gbt_dataset_free(d);
    tu_cleanup();
    return done_testing();
}
