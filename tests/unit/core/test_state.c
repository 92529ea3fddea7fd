/* test_state.c - the live-state file (state.h): creating it, attaching from
 * a second mapping and from other processes, replacing a foreign or old
 * file, the list of attached processes, faults (raise, ECC, mark healthy,
 * pin, unpin), the fault ring wrapping over, wake-ups and call counters. */
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config_check.h"
#include "state.h"

static const char *const fn_names[] = { "nvmlInit_v2", "nvmlShutdown", "nvmlDeviceGetCount_v2" };
#define NFN 3

static mk_universe *universe(unsigned count)
{
    char yaml[128];
    snprintf(yaml, sizeof yaml, "profile: a100-sxm4-40gb\ncount: %u\n", count);
    return LOAD_CLEAN(yaml);
}

static void open_ok(mk_state *st, const char *dir, const mk_universe *u)
{
    char err[512] = "";
    ck_assert_msg(mk_state_open(st, dir, u, fn_names, NFN, err, sizeof err) == 0, "%s", err);
}

static int has_pid(const mk_state *st, pid_t pid)
{
    for (int i = 0; i < MK_STATE_PIDS; i++)
        if (atomic_load(&st->hdr->pids[i]) == pid)
            return 1;
    return 0;
}

static ino_t inode_of(const char *path)
{
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    return sb.st_ino;
}

START_TEST(create)
{
    mk_universe *u = universe(4);
    char dir[4300];
    snprintf(dir, sizeof dir, "%s/new", mk_test_tmpdir("state"));   /* made if missing */
    mk_state st;
    open_ok(&st, dir, u);
    char path[4400];
    snprintf(path, sizeof path, "%s/state", dir);
    ck_assert_str_eq(st.path, path);
    ck_assert_int_eq(st.shared, 1);
    ck_assert_int_eq(access(path, R_OK | W_OK), 0);
    const mk_state_hdr *h = st.hdr;
    ck_assert_uint_eq(h->magic, MK_STATE_MAGIC);
    ck_assert_uint_eq(h->version, MK_STATE_VERSION);
    ck_assert_uint_eq(h->ndev, 4);
    ck_assert_uint_eq(h->nfn, NFN);
    ck_assert_str_eq(h->node, "node-a");
    ck_assert_str_eq(h->config_path, "t.yaml");
    ck_assert_str_eq(h->driver_version, "535.261.03");
    ck_assert_uint_le(h->epoch_mono_ns, mk_now_mono_ns());
    for (unsigned i = 0; i < 4; i++) {
        ck_assert_str_eq(st.dev[i].uuid, u->dev[i].uuid);
        ck_assert_str_eq(st.dev[i].name, u->dev[i].name);
        ck_assert_str_eq(st.dev[i].bus_id, u->dev[i].bus_id);
        ck_assert_uint_eq(st.dev[i].health, MK_FAULT_NONE);
        ck_assert_int_eq(st.dev[i].value[MK_M_TEMP], u->dev[i].lv[MK_M_TEMP].lo);
    }
    ck_assert_str_eq(st.names[2], "nvmlDeviceGetCount_v2");
    ck_assert(has_pid(&st, getpid()));
    mk_state_close(&st);
    ck_assert_ptr_null(st.hdr);
    /* Closing takes this process off the list. */
    mk_state again;
    char err[512];
    ck_assert_int_eq(mk_state_open_existing(&again, path, err, sizeof err), 0);
    ck_assert(!has_pid(&again, getpid()));
    mk_state_close(&again);
    mk_universe_free(u);
}
END_TEST

START_TEST(private_memory)
{
    mk_universe *u = universe(2);
    mk_state st;
    open_ok(&st, NULL, u);
    ck_assert_int_eq(st.shared, 0);
    ck_assert_str_eq(st.path, "");
    ck_assert_uint_eq(st.hdr->ndev, 2);
    mk_state_raise(&st, 1, MK_FAULT_XID, 31, -1);
    ck_assert_uint_eq(st.dev[1].fault_seq, 1);
    mk_state_close(&st);
    open_ok(&st, "", u);
    ck_assert_int_eq(st.shared, 0);
    mk_state_close(&st);
    mk_universe_free(u);
}
END_TEST

START_TEST(second_mapping)
{
    mk_universe *u = universe(2);
    const char *dir = mk_test_tmpdir("state");
    mk_state a, b, c;
    open_ok(&a, dir, u);
    ino_t ino = inode_of(a.path);
    open_ok(&b, dir, u);
    ck_assert(a.hdr != b.hdr);
    ck_assert_uint_eq(inode_of(b.path), ino);            /* attached, not replaced */
    mk_state_pin(&a, 1, MK_M_TEMP, 77);
    ck_assert_int_eq(b.dev[1].value[MK_M_TEMP], 77);
    ck_assert_uint_eq(b.dev[1].pinned_mask, 1u << MK_M_TEMP);
    char err[512];
    ck_assert_msg(mk_state_open_existing(&c, a.path, err, sizeof err) == 0, "%s", err);
    mk_state_raise(&c, 0, MK_FAULT_XID, 79, -1);
    ck_assert_uint_eq(a.dev[0].fault_seq, 1);
    ck_assert_uint_eq(b.dev[0].last_xid, 79);
    mk_state_close(&c);
    mk_state_close(&b);
    mk_state_close(&a);
    mk_universe_free(u);
}
END_TEST

START_TEST(other_processes)
{
    mk_universe *u = universe(2);
    const char *dir = mk_test_tmpdir("state");
    mk_state st;
    open_ok(&st, dir, u);
    int go[2], ready[2];
    ck_assert_int_eq(pipe(go), 0);
    ck_assert_int_eq(pipe(ready), 0);
    pid_t child = mk_test_fork();
    if (child == 0) {
        mk_state mine;
        char err[512];
        if (mk_state_open(&mine, dir, u, fn_names, NFN, err, sizeof err) != 0)
            _exit(2);
        mk_state_raise(&mine, 1, MK_FAULT_XID, 94, -1);
        char c = 'r';
        if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
            _exit(3);
        mk_state_close(&mine);
        _exit(0);
    }
    char c;
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    ck_assert_msg(has_pid(&st, child), "child %d not among the attached processes", (int)child);
    ck_assert(has_pid(&st, getpid()));
    ck_assert_uint_eq(st.dev[1].last_xid, 94);
    ck_assert_uint_eq(st.dev[1].health, MK_FAULT_XID);
    ck_assert_int_eq(write(go[1], "g", 1), 1);
    ck_assert_int_eq(mk_test_wait(child), 0);
    ck_assert(!has_pid(&st, child));
    ck_assert(has_pid(&st, getpid()));
    mk_state_close(&st);
    mk_universe_free(u);
}
END_TEST

/* Processes starting at once all end up on one file, even when the file
 * they find must be replaced. */
START_TEST(processes_starting_together)
{
    mk_universe *u = universe(2);
    for (int round = 0; round < 2; round++) {
        const char *dir = mk_test_tmpdir("state");
        char path[4300];
        snprintf(path, sizeof path, "%s/state", dir);
        if (round == 1)
            mk_test_write(path, "not a state file\n");
        enum { N = 8 };
        int ready[2];
        ck_assert_int_eq(pipe(ready), 0);
        pid_t kids[N];
        for (int i = 0; i < N; i++) {
            kids[i] = mk_test_fork();
            if (kids[i] == 0) {
                mk_state mine;
                char err[512];
                if (mk_state_open(&mine, dir, u, fn_names, NFN, err, sizeof err) != 0)
                    _exit(2);
                struct stat sb;
                if (fstat(ready[1], &sb) != 0)
                    _exit(3);
                /* Report the inode this process mapped. */
                int fd = open(mine.path, O_RDONLY);
                if (fd < 0 || fstat(fd, &sb) != 0)
                    _exit(4);
                uint64_t ino = (uint64_t)sb.st_ino;
                mk_state_raise(&mine, 0, MK_FAULT_XID, 13, -1);
                if (write(ready[1], &ino, sizeof ino) != sizeof ino)
                    _exit(5);
                _exit(0);
            }
        }
        close(ready[1]);
        uint64_t first = 0, ino;
        for (int i = 0; i < N; i++) {
            ck_assert_int_eq(read(ready[0], &ino, sizeof ino), sizeof ino);
            if (i == 0)
                first = ino;
            ck_assert_uint_eq(ino, first);
        }
        for (int i = 0; i < N; i++)
            ck_assert_int_eq(mk_test_wait(kids[i]), 0);
        close(ready[0]);
        mk_state st;
        char err[512];
        ck_assert_msg(mk_state_open_existing(&st, path, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(inode_of(path), first);
        ck_assert_uint_eq(st.dev[0].fault_seq, N);    /* every raise landed in that file */
        mk_state_close(&st);
    }
    mk_universe_free(u);
}
END_TEST

static void write_bytes(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
    fclose(f);
}

START_TEST(foreign_files_replaced)
{
    mk_universe *u = universe(2), *other = universe(3);
    char err[512];
    for (int kind = 0; kind < 5; kind++) {
        const char *dir = mk_test_tmpdir("state");
        char path[4300];
        snprintf(path, sizeof path, "%s/state", dir);
        mk_state st;
        if (kind == 0) {
            mk_test_write(path, "hello\n");             /* not ours at all */
        } else if (kind == 1) {
            write_bytes(path, "", 0);                  /* empty */
        } else if (kind == 2 || kind == 3) {
            /* A state file of another version, or a damaged one. */
            open_ok(&st, dir, u);
            if (kind == 2)
                st.hdr->version = MK_STATE_VERSION + 1;
            else
                st.hdr->file_size += 4096;
            mk_state_close(&st);
            ck_assert_int_eq(mk_state_open_existing(&st, path, err, sizeof err), -1);
            char want[4600];
            snprintf(want, sizeof want, "%s is not a Mokka state file (or it is from another "
                     "version)", path);
            ck_assert_str_eq(err, want);
        } else {
            open_ok(&st, dir, other);                  /* another universe's */
            mk_state_raise(&st, 0, MK_FAULT_LOST, 79, -1);
            mk_state_close(&st);
        }
        ino_t before = inode_of(path);
        open_ok(&st, dir, u);
        ck_assert_msg(inode_of(path) != before, "kind %d: the file was not replaced", kind);
        ck_assert_uint_eq(st.hdr->ndev, 2);
        ck_assert_uint_eq(st.dev[0].health, MK_FAULT_NONE);
        ck_assert(has_pid(&st, getpid()));
        mk_state_close(&st);
    }
    mk_universe_free(u);
    mk_universe_free(other);
}
END_TEST

/* Another universe's state that a running process uses stays its own:
 * the newcomer is refused with the directory, the holder and what to do,
 * and takes the directory only once the holder is gone (issue 20). */
START_TEST(live_state_of_another_universe_kept)
{
    mk_universe *u = universe(2), *other = universe(3);
    const char *dir = mk_test_tmpdir("state");
    char path[4300], err[1024] = "", want[8192];
    snprintf(path, sizeof path, "%s/state", dir);
    int ready[2], go[2];
    ck_assert_int_eq(pipe(ready), 0);
    ck_assert_int_eq(pipe(go), 0);
    pid_t holder = mk_test_fork();
    if (holder == 0) {
        mk_state mine;
        char e[512];
        char c = 0;
        if (mk_state_open(&mine, dir, other, fn_names, NFN, e, sizeof e) != 0)
            _exit(2);
        mk_state_raise(&mine, 2, MK_FAULT_XID, 79, -1);
        if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) < 0)
            _exit(3);
        _exit(atomic_load(&mine.dev[2].health) == MK_FAULT_XID ? 0 : 4);
    }
    char c;
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    ino_t before = inode_of(path);
    mk_state st;
    ck_assert_int_eq(mk_state_open(&st, dir, u, fn_names, NFN, err, sizeof err), -1);
    snprintf(want, sizeof want, "state directory %s is in use by pid %d with another universe "
             "(3 GPUs, config t.yaml, node node-a); give this program a state directory of its own "
             "(MOKKA_STATE_DIR, mokka exec --state-dir) or stop pid %d first",
             dir, (int)holder, (int)holder);
    ck_assert_str_eq(err, want);
    ck_assert_uint_eq(inode_of(path), before);
    ck_assert_msg(mk_state_open_existing(&st, path, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(st.hdr->ndev, 3);
    ck_assert_uint_eq(st.dev[2].health, MK_FAULT_XID);
    ck_assert(has_pid(&st, holder));
    mk_state_close(&st);
    ck_assert_int_eq(write(go[1], "g", 1), 1);
    ck_assert_int_eq(mk_test_wait(holder), 0);
    open_ok(&st, dir, u);                               /* the holder is gone: replaced */
    ck_assert_uint_eq(st.hdr->ndev, 2);
    ck_assert_uint_ne(inode_of(path), before);
    mk_state_close(&st);
    close(ready[0]);
    close(ready[1]);
    close(go[0]);
    close(go[1]);
    mk_universe_free(u);
    mk_universe_free(other);
}
END_TEST

START_TEST(open_errors)
{
    const char *dir = mk_test_tmpdir("state");
    char path[4300], want[8192], err[512];
    mk_state st;
    snprintf(path, sizeof path, "%s/none", dir);
    ck_assert_int_eq(mk_state_open_existing(&st, path, err, sizeof err), -1);
    snprintf(want, sizeof want, "cannot open %s: No such file or directory", path);
    ck_assert_str_eq(err, want);
    snprintf(path, sizeof path, "%s/text", dir);
    mk_test_write(path, "text\n");
    ck_assert_int_eq(mk_state_open_existing(&st, path, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s is not a Mokka state file (or it is from another version)",
             path);
    ck_assert_str_eq(err, want);
    /* A state directory under a regular file cannot be made. */
    mk_universe *u = universe(1);
    char sub[4400];
    snprintf(sub, sizeof sub, "%s/sub", path);
    ck_assert_int_eq(mk_state_open(&st, sub, u, fn_names, NFN, err, sizeof err), -1);
    snprintf(want, sizeof want, "cannot create state directory %s: Not a directory", sub);
    ck_assert_str_eq(err, want);
    mk_universe_free(u);
}
END_TEST

START_TEST(pid_slots_reused)
{
    mk_universe *u = universe(1);
    const char *dir = mk_test_tmpdir("state");
    mk_state st;
    open_ok(&st, dir, u);
    pid_t dead = mk_test_fork();
    if (dead == 0)
        _exit(0);
    ck_assert_int_eq(mk_test_wait(dead), 0);
    for (int i = 0; i < MK_STATE_PIDS; i++)
        atomic_store(&st.hdr->pids[i], dead);           /* every slot taken by the dead */
    mk_state again;
    open_ok(&again, dir, u);
    ck_assert(has_pid(&again, getpid()));
    mk_state_close(&again);
    mk_state_close(&st);
    mk_universe_free(u);
}
END_TEST

START_TEST(faults)
{
    mk_universe *u = universe(4);
    mk_state st;
    open_ok(&st, mk_test_tmpdir("state"), u);
    uint32_t wake = st.hdr->wake;

    mk_state_raise(&st, 0, MK_FAULT_XID, 79, -1);
    mk_state_dev *d0 = &st.dev[0];
    ck_assert_uint_eq(d0->health, MK_FAULT_XID);
    ck_assert_uint_eq(d0->last_xid, 79);
    ck_assert_uint_eq(d0->xid_count, 1);
    ck_assert_uint_eq(d0->fault_seq, 1);
    ck_assert_uint_eq(d0->ring[1].seq, 1);
    ck_assert_uint_eq(d0->ring[1].kind, MK_EV_XID);
    ck_assert_uint_eq(d0->ring[1].xid, 79);
    ck_assert_int_eq(d0->ring[1].mig, -1);
    ck_assert_uint_gt(d0->ring[1].time_ns, 0);
    ck_assert_uint_eq(st.hdr->wake, wake + 1);

    /* An ECC fault: a double-bit event and XID 48, rising counters. */
    mk_state_raise(&st, 1, MK_FAULT_ECC, 79, 2);
    mk_state_dev *d1 = &st.dev[1];
    ck_assert_uint_eq(d1->health, MK_FAULT_ECC);
    ck_assert_uint_eq(d1->ecc_dbe, 1);
    ck_assert_uint_gt(d1->ecc_since_ns, 0);
    ck_assert_uint_eq(d1->fault_seq, 2);
    ck_assert_uint_eq(d1->ring[1].kind, MK_EV_ECC_DBE);
    ck_assert_int_eq(d1->ring[1].mig, 2);
    ck_assert_uint_eq(d1->ring[2].kind, MK_EV_XID);
    ck_assert_uint_eq(d1->ring[2].xid, 48);
    ck_assert_uint_eq(d1->last_xid, 48);
    mk_state_raise_ecc(&st, 1, 0, -1);
    ck_assert_uint_eq(d1->ecc_sbe, 1);
    ck_assert_uint_eq(d1->ring[3].kind, MK_EV_ECC_SBE);
    ck_assert_uint_eq(d1->health, MK_FAULT_ECC);
    mk_state_raise_ecc(&st, 3, 0, -1);                 /* single-bit: still healthy */
    ck_assert_uint_eq(st.dev[3].health, MK_FAULT_NONE);

    /* A lost GPU stays lost whatever comes next, until marked healthy. */
    mk_state_raise(&st, 2, MK_FAULT_LOST, 79, -1);
    mk_state_raise(&st, 2, MK_FAULT_XID, 13, -1);
    mk_state_raise_ecc(&st, 2, 1, -1);
    ck_assert_uint_eq(st.dev[2].health, MK_FAULT_LOST);
    ck_assert_uint_eq(st.dev[2].xid_count, 3);
    mk_state_mark_healthy(&st, 2);
    ck_assert_uint_eq(st.dev[2].health, MK_FAULT_NONE);
    ck_assert_uint_eq(st.dev[2].ecc_since_ns, 0);
    ck_assert_uint_eq(st.dev[2].rules_fired, MK_RULE_AFTER | MK_RULE_TEMP | MK_RULE_MEM);

    /* Pins. */
    mk_state_pin(&st, 3, MK_M_POWER, 123000);
    mk_state_pin(&st, 3, MK_M_TEMP, 88);
    ck_assert_int_eq(st.dev[3].pinned[MK_M_POWER], 123000);
    ck_assert_int_eq(st.dev[3].value[MK_M_POWER], 123000);
    ck_assert_uint_eq(st.dev[3].pinned_mask, (1u << MK_M_POWER) | (1u << MK_M_TEMP));
    mk_state_unpin(&st, 3, MK_M_POWER);
    ck_assert_uint_eq(st.dev[3].pinned_mask, 1u << MK_M_TEMP);
    ck_assert_uint_gt(st.hdr->wake, wake + 8);
    mk_state_close(&st);
    mk_universe_free(u);
}
END_TEST

START_TEST(ring_wraps)
{
    mk_universe *u = universe(1);
    mk_state st;
    open_ok(&st, NULL, u);
    for (unsigned x = 1; x <= 40; x++)
        mk_state_raise(&st, 0, MK_FAULT_XID, x, -1);
    ck_assert_uint_eq(st.dev[0].fault_seq, 40);
    ck_assert_uint_eq(st.dev[0].xid_count, 40);
    for (uint64_t c = 40 - MK_FAULT_RING + 1; c <= 40; c++) {
        const mk_fault_rec *r = &st.dev[0].ring[c % MK_FAULT_RING];
        ck_assert_uint_eq(r->seq, c);
        ck_assert_uint_eq(r->xid, c);
    }
    mk_state_close(&st);
    mk_universe_free(u);
}
END_TEST

typedef struct {
    mk_state *st;
    uint32_t seen;
    double waited;   /* ms */
} waiter;

static void *wait_thread(void *arg)
{
    waiter *w = arg;
    double t0 = mk_test_now_ms();
    while (atomic_load(&w->st->hdr->wake) == w->seen && mk_test_now_ms() - t0 < 10000)
        mk_state_wait(w->st, w->seen, 5000000000ull);
    w->waited = mk_test_now_ms() - t0;
    return NULL;
}

START_TEST(wake_ups)
{
    mk_universe *u = universe(1);
    mk_state st;
    open_ok(&st, mk_test_tmpdir("state"), u);
    /* A wait with nothing happening lasts its timeout. */
    double t0 = mk_test_now_ms();
    mk_state_wait(&st, st.hdr->wake, 200000000ull);
    double slept = mk_test_now_ms() - t0;
    ck_assert_double_ge(slept, 190);
    ck_assert_double_lt(slept, 5000);
    /* A waiter wakes when another process raises a fault. */
    waiter w = { &st, atomic_load(&st.hdr->wake), 0 };
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, wait_thread, &w), 0);
    mk_test_sleep_ms(100);
    pid_t child = mk_test_fork();
    if (child == 0) {
        mk_state other;
        char err[512];
        if (mk_state_open_existing(&other, st.path, err, sizeof err) != 0)
            _exit(2);
        mk_state_raise(&other, 0, MK_FAULT_XID, 79, -1);
        _exit(0);
    }
    ck_assert_int_eq(mk_test_wait(child), 0);
    pthread_join(th, NULL);
    ck_assert_double_lt(w.waited, 5000);
    mk_state_close(&st);
    mk_universe_free(u);
}
END_TEST

START_TEST(call_counters)
{
    mk_universe *u = universe(1);
    mk_state st;
    open_ok(&st, NULL, u);
    for (unsigned slot = 0; slot < MK_STATE_SLOTS; slot++)
        mk_state_count(&st, slot, 2, slot % 2);
    mk_state_count(&st, 0, 1, 0);
    uint64_t uns = 99;
    ck_assert_uint_eq(mk_state_calls(&st, 2, &uns), MK_STATE_SLOTS);
    ck_assert_uint_eq(uns, MK_STATE_SLOTS / 2);
    ck_assert_uint_eq(mk_state_calls(&st, 1, &uns), 1);
    ck_assert_uint_eq(uns, 0);
    ck_assert_uint_eq(mk_state_calls(&st, 0, NULL), 0);
    mk_state_close(&st);
    mk_universe_free(u);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("state");
    TCase *tc = tcase_create("state");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, create);
    tcase_add_test(tc, private_memory);
    tcase_add_test(tc, second_mapping);
    tcase_add_test(tc, other_processes);
    tcase_add_test(tc, processes_starting_together);
    tcase_add_test(tc, foreign_files_replaced);
    tcase_add_test(tc, live_state_of_another_universe_kept);
    tcase_add_test(tc, open_errors);
    tcase_add_test(tc, pid_slots_reused);
    tcase_add_test(tc, faults);
    tcase_add_test(tc, ring_wraps);
    tcase_add_test(tc, wake_ups);
    tcase_add_test(tc, call_counters);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
