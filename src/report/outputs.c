/* outputs.c - report outputs and the cancel switch (see report.h). */
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "util/util.h"
#include "report.h"

volatile sig_atomic_t mk_cancel;

int mk_outputs_report_opt(mk_outputs *o, const char *cmd, const char *arg)
{
    if (strcmp(arg, "json") == 0)
        o->json = "-";
    else if (strncmp(arg, "json=", 5) == 0 && arg[5])
        o->json = arg + 5;
    else
        return mk_usage_error(cmd, "--report takes json or json=FILE, not '%s'", arg);
    return 0;
}

int mk_outputs_write(const mk_outputs *o, const char *cmd, const mk_report *rep)
{
    char err[1024];
    int rc = 0;
    mk_summary_write(rep, stderr);
    if (o->junit && mk_report_save(rep, o->junit, mk_junit_write, err, sizeof err) != 0) {
        mk_err(cmd, "%s", err);
        rc = MK_EXIT_ENV;
    }
    if (o->json && mk_report_save(rep, o->json, mk_report_json_write, err, sizeof err) != 0) {
        mk_err(cmd, "%s", err);
        rc = MK_EXIT_ENV;
    }
    return rc;
}

static void on_signal(int sig)
{
    mk_cancel = sig;
}

static pthread_t dog;
static int dog_running;
static pthread_mutex_t dog_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dog_cond = PTHREAD_COND_INITIALIZER;
static int dog_stop;

/* Sleeps on a condition variable until the deadline or mk_cancel_stop. */
static void *watchdog(void *arg)
{
    double timeout = *(double *)arg;
    struct timespec until = mk_abstime_in(CLOCK_REALTIME, (long long)(timeout * 1000));
    pthread_mutex_lock(&dog_lock);
    int rc = 0;
    while (!dog_stop && rc == 0)
        rc = pthread_cond_timedwait(&dog_cond, &dog_lock, &until);
    if (!dog_stop && !mk_cancel)
        mk_cancel = SIGALRM;
    pthread_mutex_unlock(&dog_lock);
    return NULL;
}

int mk_cancel_start(double timeout_s)
{
    static double timeout;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    timeout = timeout_s;
    dog_stop = 0;
    dog_running = pthread_create(&dog, NULL, watchdog, &timeout) == 0;
    return dog_running ? 0 : -1;
}

void mk_cancel_stop(void)
{
    if (!dog_running)
        return;
    pthread_mutex_lock(&dog_lock);
    dog_stop = 1;
    pthread_cond_signal(&dog_cond);
    pthread_mutex_unlock(&dog_lock);
    pthread_join(dog, NULL);
    dog_running = 0;
}
