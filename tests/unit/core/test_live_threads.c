/* test_live_threads.c - live values under concurrent readers: threads of
 * this process and a second process on the same state file read, tick and
 * integrate energy at once; every health rule still fires exactly once,
 * drift stays in its bounds, and nothing races (this runs under TSan with
 * `make tsan`). */
#include <pthread.h>
#include <unistd.h>
#include "config_check.h"
#include "live.h"

static const char *const fn_names[] = { "nvmlInit_v2" };

#define NDEV 6
#define THREADS 8
#define ROUNDS 3000

static const char yaml[] =
    "profile: a100-sxm4-40gb\nseed: 5\ncount: 6\n"
    "defaults: {utilization: {gpu: -1}}\n"
    "devices:\n"
    "  - {index: 0, temperature: 95, unhealthy_on_temperature: 90}\n"
    "  - {index: 1, temperature: 80-100, unhealthy_on_temperature: 90, xid: 31}\n"
    "  - {index: 2, memoryUsed: 39GiB, unhealthy_on_memory_exceed: 90, mode: ecc}\n"
    "  - {index: 3, unhealthy_after_seconds: 0, mode: lost}\n"
    "  - {index: 4, temperature: 50, unhealthy_on_temperature: 90}\n";

typedef struct {
    mk_universe *u;
    mk_state *st;
    mk_live *L;
} shared;

static void *reader(void *arg)
{
    shared *s = arg;
    for (int i = 0; i < ROUNDS; i++) {
        for (unsigned d = 0; d < NDEV; d++) {
            int64_t v;
            mk_live_read(s->L, s->u, d, MK_M_TEMP, &v);
            mk_live_read(s->L, s->u, d, MK_M_MEM_USED, &v);
            if (mk_live_read(s->L, s->u, d, MK_M_UTIL_GPU, &v) != 0 || v < 0 || v > 100)
                return (void *)1;
            mk_live_energy(s->L, s->u, d);
        }
        if (i % 64 == 0)
            mk_live_tick(s->L, s->u);
    }
    return NULL;
}

/* Runs THREADS readers on one mapping of the state in dir. */
static int hammer(const char *dir)
{
    mk_diags d;
    mk_diags_init(&d);
    mk_universe *u = mk_universe_load_mem("t.yaml", yaml, sizeof yaml - 1, "node-a", &d);
    mk_state st;
    mk_live L;
    char err[512];
    if (!u || mk_state_open(&st, dir, u, fn_names, 1, err, sizeof err) != 0 ||
        mk_live_init(&L, &st, u) != 0)
        return 2;
    shared s = { u, &st, &L };
    pthread_t th[THREADS];
    int bad = 0;
    for (int i = 0; i < THREADS; i++)
        if (pthread_create(&th[i], NULL, reader, &s) != 0)
            return 3;
    for (int i = 0; i < THREADS; i++) {
        void *r;
        pthread_join(th[i], &r);
        bad |= r != NULL;
    }
    mk_live_free(&L);
    mk_state_close(&st);
    mk_universe_free(u);
    mk_diags_free(&d);
    return bad;
}

START_TEST(rules_fire_once_under_concurrent_readers)
{
    const char *dir = mk_test_tmpdir("state");
    int go[2];
    ck_assert_int_eq(pipe(go), 0);
    pid_t child = mk_test_fork();
    if (child == 0) {
        char c;
        if (read(go[0], &c, 1) != 1)
            _exit(4);
        _exit(hammer(dir));
    }
    /* The state file exists before either process starts reading. */
    mk_universe *u = LOAD_CLEAN(yaml);
    mk_state st;
    char err[512];
    ck_assert_msg(mk_state_open(&st, dir, u, fn_names, 1, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(write(go[1], "g", 1), 1);
    ck_assert_int_eq(hammer(dir), 0);
    ck_assert_int_eq(mk_test_wait(child), 0);
    static const uint64_t faults[NDEV] = { 1, 1, 2, 1, 0, 0 };
    static const uint32_t health[NDEV] = { MK_FAULT_XID, MK_FAULT_XID, MK_FAULT_ECC,
                                           MK_FAULT_LOST, MK_FAULT_NONE, MK_FAULT_NONE };
    for (unsigned i = 0; i < NDEV; i++) {
        ck_assert_msg(st.dev[i].fault_seq == faults[i], "GPU %u: %llu faults, want %llu", i,
                      (unsigned long long)st.dev[i].fault_seq, (unsigned long long)faults[i]);
        ck_assert_uint_eq(st.dev[i].health, health[i]);
    }
    ck_assert_uint_eq(st.dev[1].last_xid, 31);
    ck_assert_uint_eq(st.dev[2].last_xid, 48);
    mk_state_close(&st);
    mk_universe_free(u);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("live_threads");
    TCase *tc = tcase_create("live_threads");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, rules_fire_once_under_concurrent_readers);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
