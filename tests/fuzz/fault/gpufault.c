/* gpufault.c (fuzz target "gpufault") - feeds any bytes, as JSON, to what
 * the GPU fault agent runs on objects from the API server (src/fault/):
 * mk_gfault_from_json, mk_gfault_selects, mk_gfault_gpus and
 * mk_gfault_describe; and the same bytes, as a string, to the label
 * selector parser (src/kube/kube_selparse.c). Checks what they promise: a
 * reason that is printable ASCII, a valid fault that holds together
 * (limits, expiry, GPUs on the node), and a selector printed in its
 * string form that reads back the same and survives JSON.
 *
 * fuzz-flags: -max_len=4096 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fault/fault.h"
#include "util/util.h"

#define CHECK(cond) \
    do { if (!(cond)) { fprintf(stderr, "gpufault: %s fails\n", #cond); abort(); } } while (0)

static void printable(const char *s)
{
    for (; *s; s++)
        CHECK(*s >= 0x20 && *s < 0x7f);
}

static void holds_together(const mk_gfault *f)
{
    CHECK(f->all_gpus || f->nindexes || f->nuuids);
    CHECK(f->nindexes + f->nuuids <= MK_GF_MAX_GPUS && f->nnames <= MK_GF_MAX_NAMES);
    for (size_t i = 0; i < f->nindexes; i++)
        CHECK(f->indexes[i] >= 0 && f->indexes[i] < MK_GF_MAX_GPUS);
    CHECK(f->kind != MK_GF_XID || (f->xid >= 1 && f->xid <= MK_GF_XID_MAX));
    CHECK((f->kind == MK_GF_SET) == (f->npins > 0));
    CHECK(f->duration_ms >= 0 && f->duration_ms <= MK_DURATION_MAX_MS);
    CHECK(f->expires_ms == (f->created_ms && f->duration_ms ? f->created_ms + f->duration_ms : 0));
}

static void lands(const mk_gfault *f)
{
    static const mk_nv_kv labels[] = { { "zone", "z1" }, { "mokka.io/pool", "a" } };
    static const char *const uuids[] = {
        "GPU-00000000-0000-0000-0000-000000000000", NULL, "GPU-6f0c", "GPU-a",
        "GPU-b", "GPU-c", "GPU-d", "GPU-e",
    };
    static const unsigned ndevs[] = { 0, 1, 8 };
    unsigned char hit[9];
    char why[600];
    CHECK(mk_gfault_selects(f, "gpu-node-1", labels, 2) <= 1);
    CHECK(mk_gfault_selects(f, "", NULL, 0) <= 1);
    for (size_t i = 0; i < sizeof ndevs / sizeof ndevs[0]; i++) {
        hit[ndevs[i]] = 7;
        int rc = mk_gfault_gpus(f, ndevs[i], uuids, hit, why, sizeof why);
        CHECK(rc == 0 || rc == -1);
        CHECK(hit[ndevs[i]] == 7);
        CHECK(rc == 0 || (printable(why), why[0] != 0));
        CHECK(rc != 0 || !f->invalid[0]);
    }
}

static void describe(const mk_gfault *f)
{
    char big[1024], small[5];
    mk_gfault_describe(f, big, sizeof big);
    mk_gfault_describe(f, small, sizeof small);
    printable(big);
    CHECK(strncmp(big, small, strlen(small)) == 0);
}

static void fault(const uint8_t *data, size_t size)
{
    json_t *j = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
    if (!j)
        return;
    mk_gfault f;
    if (mk_gfault_from_json(j, &f) == 0) {
        printable(f.invalid);
        if (!f.invalid[0])
            holds_together(&f);
        lands(&f);
        describe(&f);
        mk_gfault_free(&f);
    }
    json_decref(j);
}

static void selector(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1), err[512];
    mk_ksel sel, again, back;
    if (!s)
        return;
    memcpy(s, data, size);
    s[size] = 0;
    if (mk_ksel_parse(s, &sel, err, sizeof err) != 0) {
        printable(err);
        free(s);
        return;
    }
    char *str = mk_ksel_to_string(&sel);
    CHECK(mk_ksel_parse(str, &again, err, sizeof err) == 0);
    char *str2 = mk_ksel_to_string(&again);
    CHECK(strcmp(str, str2) == 0);
    json_t *j = mk_ksel_to_json(&sel);
    CHECK(mk_ksel_from_json(j, &back, err, sizeof err) == 0 && back.n == sel.n);
    json_decref(j);
    mk_ksel_free(&back);
    free(str2);
    mk_ksel_free(&again);
    free(str);
    mk_ksel_free(&sel);
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fault(data, size);
    selector(data, size);
    return 0;
}
