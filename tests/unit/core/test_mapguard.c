/* test_mapguard.c - a state file truncated under a process (mapguard.h):
 * the process goes on from a private copy and says so once; a SIGBUS that
 * is not the state's still reaches the host's handler, or kills the process
 * as it would have without Mokka. Each case runs in a forked child, which
 * installs what the case needs and reports by its exit status. */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
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

/* A state file in a directory of its own; its size. Made by a child, so
 * that this process installs no guard (each child installs its own). */
static size_t make_state(const char *dir, const mk_universe *u)
{
    pid_t child = mk_test_fork();
    if (child == 0) {
        mk_state st;
        char err[512];
        _exit(mk_state_open(&st, dir, u, fn_names, NFN, err, sizeof err) == 0 ? 0 : 2);
    }
    ck_assert_int_eq(mk_test_wait(child), 0);
    char path[4400];
    snprintf(path, sizeof path, "%s/state", dir);
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    return (size_t)sb.st_size;
}

static char *read_all(const char *path)
{
    static char buf[16384];
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    return buf;
}

static void stderr_to(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, 2) < 0)
        _exit(90);
    close(fd);
}

static void foreign_handler(int sig, siginfo_t *si, void *ctx)
{
    _exit(99); /* the state's fault must not reach the host's handler */
}

/* Child: attaches, truncates the file to `to` bytes, then reads and writes
 * through the state across the whole mapping; exits 0 when all of it held. */
static void truncate_under(const char *dir, const mk_universe *u, off_t to, const char *errfile)
{
    stderr_to(errfile);
    struct sigaction sa = { .sa_sigaction = foreign_handler, .sa_flags = SA_SIGINFO };
    sigaction(SIGBUS, &sa, NULL);
    mk_state st;
    char err[512];
    if (mk_state_open(&st, dir, u, fn_names, NFN, err, sizeof err) != 0)
        _exit(2);
    mk_state_pin(&st, 1, MK_M_TEMP, 77);
    mk_state_count(&st, 0, 2, 0);
    if (truncate(st.path, to) != 0)
        _exit(3);
    for (unsigned slot = 0; slot < MK_STATE_SLOTS; slot++)     /* the last page too */
        for (unsigned f = 0; f < NFN; f++)
            mk_state_count(&st, slot, f, 1);
    for (unsigned i = 0; i < u->ndev; i++)
        mk_state_raise(&st, i, MK_FAULT_XID, 79, -1);
    uint64_t sum = 0; /* every byte read (volatile: the reads happen) */
    for (size_t off = 0; off < st.size; off++)
        sum += ((volatile unsigned char *)st.hdr)[off];
    if (sum > 255ull * st.size)
        _exit(8);
    if (st.hdr->magic != MK_STATE_MAGIC || st.hdr->ndev != u->ndev ||
        strcmp(st.dev[1].uuid, u->dev[1].uuid) != 0)
        _exit(4);
    /* What the file still held is kept; past its end, the devices are as
     * they were at attach (the snapshot). */
    if (to > 0 && atomic_load(&st.dev[1].value[MK_M_TEMP]) != 77)
        _exit(5);
    if (mk_state_calls(&st, 2, NULL) < (uint64_t)MK_STATE_SLOTS)
        _exit(6);
    if (atomic_load(&st.dev[0].last_xid) != 79 || !mk_state_detached(&st))
        _exit(7);
    mk_state_close(&st);
    _exit(0);
}

static void check_truncated(off_t to_num, off_t to_den)
{
    mk_universe *u = universe(2);
    const char *dir = mk_test_tmpdir("guard");
    size_t size = make_state(dir, u);
    off_t to = (off_t)size * to_num / to_den;
    char errfile[4400], want[9000];
    snprintf(errfile, sizeof errfile, "%s/stderr", dir);
    pid_t child = mk_test_fork();
    if (child == 0)
        truncate_under(dir, u, to, errfile);
    ck_assert_int_eq(mk_test_wait(child), 0);
    snprintf(want, sizeof want,
             "mokka: live state: %s/state was truncated while in use (size now %lld bytes of "
             "%zu); this process goes on from a private copy (mokka stats and inject no longer "
             "reach it)\n", dir, (long long)to, size);
    ck_assert_str_eq(read_all(errfile), want);
    mk_universe_free(u);
}

START_TEST(truncated_to_zero)
{
    check_truncated(0, 1);
}
END_TEST

START_TEST(truncated_to_half)
{
    check_truncated(1, 2);
}
END_TEST

/* The CLI (stats, inject) maps the state the same way. */
START_TEST(truncated_under_the_cli)
{
    mk_universe *u = universe(2);
    const char *dir = mk_test_tmpdir("guard");
    size_t size = make_state(dir, u);
    char path[4400], errfile[4400], want[9000];
    snprintf(path, sizeof path, "%s/state", dir);
    snprintf(errfile, sizeof errfile, "%s/stderr", dir);
    pid_t child = mk_test_fork();
    if (child == 0) {
        stderr_to(errfile);
        mk_state st;
        char err[512];
        if (mk_state_open_existing(&st, path, err, sizeof err) != 0 || truncate(path, 0) != 0)
            _exit(2);
        mk_state_raise(&st, 1, MK_FAULT_XID, 79, -1);
        _exit(mk_state_calls(&st, 0, NULL) == 0 && st.dev[1].last_xid == 79 ? 0 : 3);
    }
    ck_assert_int_eq(mk_test_wait(child), 0);
    snprintf(want, sizeof want,
             "mokka: live state: %s was truncated while in use (size now 0 bytes of %zu); this "
             "command goes on from a private copy (what it reads or writes from now on is not "
             "the live state)\n", path, size);
    ck_assert_str_eq(read_all(errfile), want);
    mk_universe_free(u);
}
END_TEST

/* A shared mapping of another file, truncated: a fault that is not ours. */
static void foreign_fault(const char *dir)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/other", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ftruncate(fd, 8192) != 0)
        _exit(80);
    volatile unsigned char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED || ftruncate(fd, 0) != 0)
        _exit(81);
    p[4096] = 1;
    _exit(82); /* not reached */
}

static void attach(const char *dir, const mk_universe *u)
{
    mk_state st;
    char err[512];
    if (mk_state_open(&st, dir, u, fn_names, NFN, err, sizeof err) != 0)
        _exit(2);
}

START_TEST(not_ours_kills_by_default)
{
    mk_universe *u = universe(1);
    const char *dir = mk_test_tmpdir("guard");
    pid_t child = mk_test_fork();
    if (child == 0) {
        signal(SIGBUS, SIG_DFL);
        attach(dir, u);
        foreign_fault(dir);
    }
    ck_assert_int_eq(mk_test_wait(child), 128 + SIGBUS);
    mk_universe_free(u);
}
END_TEST

static void host_siginfo_handler(int sig, siginfo_t *si, void *ctx)
{
    _exit(sig == SIGBUS && si->si_code == BUS_ADRERR ? 42 : 43);
}

static void host_plain_handler(int sig)
{
    _exit(sig == SIGBUS ? 44 : 45);
}

START_TEST(not_ours_reaches_the_host_handler)
{
    mk_universe *u = universe(1);
    const char *dir = mk_test_tmpdir("guard");
    pid_t child = mk_test_fork();
    if (child == 0) {
        struct sigaction sa = { .sa_sigaction = host_siginfo_handler, .sa_flags = SA_SIGINFO };
        sigaction(SIGBUS, &sa, NULL);
        attach(dir, u);
        foreign_fault(dir);
    }
    ck_assert_int_eq(mk_test_wait(child), 42);
    child = mk_test_fork();
    if (child == 0) {
        signal(SIGBUS, host_plain_handler);
        attach(dir, u);
        foreign_fault(dir);
    }
    ck_assert_int_eq(mk_test_wait(child), 44);
    mk_universe_free(u);
}
END_TEST

/* kill(2) is not a fault: with the default action it still kills. */
START_TEST(sent_sigbus_still_kills)
{
    mk_universe *u = universe(1);
    const char *dir = mk_test_tmpdir("guard");
    pid_t child = mk_test_fork();
    if (child == 0) {
        signal(SIGBUS, SIG_DFL);
        attach(dir, u);
        kill(getpid(), SIGBUS);
        _exit(0);
    }
    ck_assert_int_eq(mk_test_wait(child), 128 + SIGBUS);
    mk_universe_free(u);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mapguard");
    TCase *tc = tcase_create("mapguard");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, truncated_to_zero);
    tcase_add_test(tc, truncated_to_half);
    tcase_add_test(tc, truncated_under_the_cli);
    tcase_add_test(tc, not_ours_kills_by_default);
    tcase_add_test(tc, not_ours_reaches_the_host_handler);
    tcase_add_test(tc, sent_sigbus_still_kills);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
