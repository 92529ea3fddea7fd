/* yamlout.h - writing a JSON tree (jansson) as YAML with libyaml's emitter,
 * so that a command builds its output once and prints it as either.
 *
 * Maps keep their order. Strings that YAML would read as something else (a
 * number, a boolean, null, a date) are double-quoted; the rest are plain
 * where YAML allows. Lists of scalars and small maps of scalars (up to five
 * keys) are written in flow style, [1, 2] and {a: 1, b: 2}, so that one
 * object is one line of a diff; everything else is block style. */
#ifndef MOKKA_YAMLOUT_H
#define MOKKA_YAMLOUT_H

#include <jansson.h>
#include <stdio.h>

/* 0, or -1 when the emitter failed (the message is on stderr). */
int mk_yaml_write(FILE *f, const json_t *root);

#endif
