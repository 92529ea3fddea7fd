/* log.c - log lines shaped like the klog lines of NVIDIA's device plugin,
 * on stderr: level letter, date, time with microseconds, pid, source. */
#include <stdarg.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "plugin.h"

void mk_log(char level, const char *fmt, ...)
{
    struct timeval tv;
    struct tm tm;
    gettimeofday(&tv, NULL);
    localtime_r(&tv.tv_sec, &tm);
    char line[2048];
    int n = snprintf(line, sizeof line, "%c%02d%02d %02d:%02d:%02d.%06ld %7d fake-device-plugin] ",
                     level, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                     (long)tv.tv_usec, (int)getpid());
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    /* One write per line, so lines from threads do not interleave. */
    fprintf(stderr, "%s\n", line);
}
