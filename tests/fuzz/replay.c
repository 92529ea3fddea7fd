/* replay.c - the main() a fuzz target gets outside libFuzzer: runs
 * LLVMFuzzerTestOneInput once on each file named (directories: on each file
 * in them), so that the normal test suite, under gcc or any sanitizer,
 * replays the seeds and the regression cases of every target.
 *
 *   replay-NAME FILE|DIR...
 *
 * Each input's name goes to stderr before it runs, so that a crash names
 * the input at fault. Exits 0 after all of them, 2 when a file cannot be
 * read; a crash, a sanitizer report or a target's own check ends it
 * otherwise. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replayed;

/* Runs the target on the file's bytes, in a buffer of exactly their size
 * so that ASan sees a read past the input's end. */
static int replay_file(const char *path, off_t size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *in = malloc(size ? (size_t)size : 1);
    int ok = f && in && fread(in, 1, (size_t)size, f) == (size_t)size;
    if (f)
        fclose(f);
    if (!ok) {
        fprintf(stderr, "%s: cannot read\n", path);
        free(in);
        return -1;
    }
    fprintf(stderr, "replay: %s (%lld bytes)\n", path, (long long)size);
    LLVMFuzzerTestOneInput(in, (size_t)size);
    free(in);
    replayed++;
    return 0;
}

static int replay_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path, st.st_size);
    struct dirent **ents;
    int n = scandir(path, &ents, NULL, alphasort);
    if (n < 0) {
        perror(path);
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (ents[i]->d_name[0] != '.' && rc == 0) {
            char *sub = malloc(strlen(path) + strlen(ents[i]->d_name) + 2);
            if (!sub)
                rc = -1;
            else {
                sprintf(sub, "%s/%s", path, ents[i]->d_name);
                rc = replay_path(sub);
                free(sub);
            }
        }
        free(ents[i]);
    }
    free(ents);
    return rc;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++)
        if (replay_path(argv[i]) != 0)
            return 2;
    fprintf(stderr, "replay: %d inputs, no crash\n", replayed);
    return 0;
}
