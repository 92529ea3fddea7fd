/* libmark.h - whether a file is a Mokka libnvidia-ml.so.1 of any build, by
 * a mark every build carries. No need for the embedded copy, so that the
 * engines can tell without linking it. */
#ifndef MOKKA_LIBMARK_H
#define MOKKA_LIBMARK_H

#define MK_LIB_SONAME "libnvidia-ml.so.1"

/* 1: a Mokka library, 0: another file (the real driver's), -1: unreadable. */
int mk_lib_marked(const char *path);

#endif
