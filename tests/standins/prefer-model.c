/* prefer-model.c - what the models of src/nvmodel/ say NVIDIA's device
 * plugin lists and prefers on a universe, for tests that set them beside
 * the real plugin's answers (tests/e2e/test_prefer_model.py).
 *
 *   prefer-model --config FILE [--node NAME] [--strategy none|single|mixed] [--list]
 *
 * --list prints the devices (mk_pdevs_list) as one JSON array of
 * {"resource", "id", "gpu", "mig"}. Otherwise each line of stdin is a
 * request, {"available": [ids], "must": [ids], "size": N}, and each gets one
 * line on stdout: {"devices": [ids]} (mk_pdevs_prefer) or {"error": "..."}.
 * Exit 0, 1 when the plugin refuses the universe (the reason on stderr), 2
 * on a usage error or an unreadable config. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvmodel/nvmodel.h"

static int usage(void)
{
    fprintf(stderr, "usage: prefer-model --config FILE [--node NAME] "
            "[--strategy none|single|mixed] [--list]\n");
    return 2;
}

static int find(const mk_pdev *devs, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(devs[i].id, id) == 0)
            return (int)i;
    return -1;
}

/* The devices of a JSON array of ids, as indexes into devs; -1 naming the
 * first id that is not listed. */
static int indexes(const json_t *arr, const mk_pdev *devs, size_t ndevs, size_t *out, size_t *n,
                   char *err, size_t errlen)
{
    size_t i;
    json_t *v;
    *n = 0;
    json_array_foreach(arr, i, v) {
        int k = json_is_string(v) ? find(devs, ndevs, json_string_value(v)) : -1;
        if (k < 0) {
            snprintf(err, errlen, "not a listed device: %s",
                     json_is_string(v) ? json_string_value(v) : "(not a string)");
            return -1;
        }
        out[(*n)++] = (size_t)k;
    }
    return 0;
}

static json_t *answer(const mk_universe *u, const mk_pdev *devs, size_t ndevs, const char *line)
{
    char err[512] = "";
    json_error_t jerr;
    json_t *req = json_loads(line, 0, &jerr), *res = NULL;
    const json_t *av = json_object_get(req, "available"), *mu = json_object_get(req, "must");
    const json_t *sz = json_object_get(req, "size");
    size_t navail = json_array_size(av), nmust = json_array_size(mu), size;
    size_t *avail = calloc(navail + 1, sizeof *avail), *must = calloc(nmust + 1, sizeof *must);
    size_t *out = NULL;
    if (!req || !json_is_array(av) || !json_is_integer(sz) || json_integer_value(sz) < 0) {
        snprintf(err, sizeof err, "a request is {\"available\": [ids], \"must\": [ids], "
                 "\"size\": N}");
    } else if (indexes(av, devs, ndevs, avail, &navail, err, sizeof err) == 0 &&
               (!mu || indexes(mu, devs, ndevs, must, &nmust, err, sizeof err) == 0)) {
        size = (size_t)json_integer_value(sz);
        out = calloc(size + 1, sizeof *out);
        if (mk_pdevs_prefer(u, devs, ndevs, avail, navail, must, nmust, size, out, err,
                            sizeof err) == 0) {
            json_t *ids = json_array();
            for (size_t i = 0; i < size; i++)
                json_array_append_new(ids, json_string(devs[out[i]].id));
            err[0] = 0;
            res = json_pack("{s:o}", "devices", ids);
        }
    }
    if (err[0])
        res = json_pack("{s:s}", "error", err);
    json_decref(req);
    free(avail);
    free(must);
    free(out);
    return res;
}

static json_t *listing(const mk_pdev *devs, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, json_pack("{s:s, s:s, s:i, s:i}", "resource", devs[i].resource,
                                             "id", devs[i].id, "gpu", (int)devs[i].gpu,
                                             "mig", devs[i].mig));
    return arr;
}

int main(int argc, char **argv)
{
    const char *config = NULL, *node = "node-a", *strategy = NULL;
    int list = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--list") == 0)
            list = 1;
        else if (i + 1 < argc && strcmp(argv[i], "--config") == 0)
            config = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--node") == 0)
            node = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--strategy") == 0)
            strategy = argv[++i];
        else
            return usage();
    }
    if (!config)
        return usage();
    mk_diags d;
    mk_diags_init(&d);
    mk_universe *u = mk_universe_load(config, node, &d);
    mk_diags_free(&d);
    if (!u) {
        fprintf(stderr, "prefer-model: %s does not load\n", config);
        return 2;
    }
    mk_pdev *devs;
    size_t ndevs;
    char err[512];
    if (mk_pdevs_list(u, strategy, &devs, &ndevs, err, sizeof err) != 0) {
        fprintf(stderr, "prefer-model: %s\n", err);
        mk_universe_free(u);
        return 1;
    }
    if (list) {
        json_t *arr = listing(devs, ndevs);
        json_dumpf(arr, stdout, JSON_COMPACT);
        putchar('\n');
        json_decref(arr);
    } else {
        char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, stdin) > 0) {
            json_t *res = answer(u, devs, ndevs, line);
            json_dumpf(res, stdout, JSON_COMPACT);
            putchar('\n');
            fflush(stdout);
            json_decref(res);
        }
        free(line);
    }
    free(devs);
    mk_universe_free(u);
    return 0;
}
