/* config.h - GPU configs on the command line: reading them, checking
 * them with the core loader, printing diagnostics, strict lint, and the
 * concrete universe as JSON or YAML for `mokka render`. */
#ifndef MOKKA_CONFIG_H
#define MOKKA_CONFIG_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include "diag.h"
#include "universe.h"
#include "ytree.h"

/* configin.c: reading a config (or suite) given on the command line: a
 * file, '-' for stdin, or nothing for the built-in default universe. */
/* The name diagnostics use for stdin. */
#define MK_STDIN_NAME "<stdin>"

/* The whole input, NUL-terminated; NULL with an error in d. */
char *mk_read_input(const char *path, size_t *len, mk_diags *d);
/* Loads a config file, stdin ("-") or the built-in default (NULL). */
mk_universe *mk_load_config(const char *path, const char *node, mk_diags *d);


/* cfgcheck.c: checking a GPU config with the core loader before a program
 * on the mock reads it: the same loader as the library's, so the same
 * verdict, but reported up front with every position. */
/* Loads the config at path (NULL: the built-in default universe). Returns 0
 * with its GPU count, or -1 with every error as "file:line:col: error: msg",
 * one a line, in a malloc'd *errors. */
int mk_config_check(const char *path, size_t *ngpus, char **errors);
/* The config a program on the mock is going to read: `given`, else
 * $MOCK_CONFIG_PATH, else $MOKKA_CONFIG (none: the built-in universe).
 * Checks it, reporting every error as "mokka CMD: file:line:col: ..." on
 * stderr, and exports it as an absolute MOCK_CONFIG_PATH. Returns 0, or the
 * exit code (MK_EXIT_USAGE) after reporting. */
int mk_config_prepare(const char *cmd, const char *given);


/* diagprint.c: a loader's diagnostics for people: sorted by file, line and
 * column, exact repeats dropped, one "file:line:col: error|warning: message"
 * per line, with colour only on a terminal (util.h). */
/* Sorts d by file, line and column (stable) and drops exact repeats, which
 * the loader makes when one `defaults:` line is applied to every device;
 * the error and warning counts follow. */
void mk_diags_tidy(mk_diags *d);
/* Prints d in its order (tidy it first). */
void mk_print_diags(const mk_diags *d, FILE *f);


/* lint_strict.c: `mokka lint --strict`: warnings for legal but suspicious
 * values that only show once the whole universe is compiled (profile,
 * defaults and device entry merged): temperatures above the shutdown
 * threshold, health rules that can never fire, power above the enforced
 * limit, ranges without a seed. What a single value shows on its own (a
 * size without a unit, a non-hex UUID, MIG without instances) the loader
 * already warns about in strict mode. */
/* Adds the warnings to d, positioned at the value responsible (the device
 * entry's key, else the defaults' key, else the device entry or profile);
 * one warning per position, naming every GPU it concerns. */
void mk_lint_strict(const mk_universe *u, const mk_ydoc *doc, mk_diags *d);


/* universe_json.c: a universe as a JSON tree for `mokka render`: every
 * device with every resolved field, in a fixed order, with values written in
 * config syntax where the config has a key for them (memory: 40960MiB,
 * power: 400W, temperature: 35-45, utilization: -1), plus what the loader
 * derives (UUIDs for the node, bus ids, MIG ids and caps minors, NVLink
 * peers per link). yamlout.h prints the same tree as YAML. */
json_t *mk_universe_json(const mk_universe *u);
/* The built-in GPU profiles: name, GPU name, architecture, memory and MIG
 * profiles. NULL (with a message on stderr) if one does not load. */
json_t *mk_profiles_json(void);


/* yamlout.c: writing a JSON tree (jansson) as YAML with libyaml's emitter,
 * so that a command builds its output once and prints it as either.
 *
 * Maps keep their order. Strings that YAML would read as something else (a
 * number, a boolean, null, a date) are double-quoted; the rest are plain
 * where YAML allows. Lists of scalars and small maps of scalars (up to five
 * keys) are written in flow style, [1, 2] and {a: 1, b: 2}, so that one
 * object is one line of a diff; everything else is block style. */
/* 0, or -1 when the emitter failed (the message is on stderr). */
int mk_yaml_write(FILE *f, const json_t *root);


#endif
