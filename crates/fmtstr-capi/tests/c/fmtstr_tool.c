/* A small C program over libfmtstr, run by `cargo xtask capi` on the samples and compared byte
 * for byte with the fmtstr CLI:
 *   fmtstr_tool hash STRING                 the ID in decimal, as `fmtstr hash --json` gives it
 *   fmtstr_tool decode BUFFER ELF...        the text on stdout, warnings on stderr
 *   fmtstr_tool merge OUT BASE [INPUT...]   the merged image into OUT (exit 1 on collisions)
 *   fmtstr_tool lower OPTIONS MODULE [TABLE] the lowered module on stdout, diagnostics on
 *                                           stderr, --emit-strings's table into TABLE
 *   fmtstr_tool check OPTIONS FORMAT        a format (its bytes as given) checked
 *   fmtstr_tool check-file OPTIONS FILE     a SPIR-V module checked (named by its path)
 *   fmtstr_tool audit OPTIONS PATH...       files and directories audited
 *   fmtstr_tool edges                       NULL pointers and lengths give errors, not crashes
 * Exit status: the library's (0, 1, 2), or 3 when this program itself fails. */
#include <fmtstr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *read_file(const char *path, size_t *len) {
    FILE *file = fopen(path, "rb");
    if (!file) {
        perror(path);
        exit(3);
    }
    size_t capacity = 1 << 16, used = 0;
    unsigned char *bytes = malloc(capacity);
    size_t got;
    while (bytes && (got = fread(bytes + used, 1, capacity - used, file)) > 0) {
        used += got;
        if (used == capacity) {
            capacity *= 2;
            bytes = realloc(bytes, capacity);
        }
    }
    fclose(file);
    if (!bytes) {
        fputs("out of memory\n", stderr);
        exit(3);
    }
    *len = used;
    return bytes;
}

static int decode(int argc, char **argv) {
    size_t buffer_len;
    unsigned char *buffer = read_file(argv[0], &buffer_len);
    size_t count = (size_t)(argc - 1);
    const uint8_t **elfs = calloc(count + 1, sizeof *elfs);
    size_t *lens = calloc(count + 1, sizeof *lens);
    for (size_t i = 0; i < count; i++)
        elfs[i] = read_file(argv[1 + i], &lens[i]);
    char *text = NULL, *warnings = NULL, *error = NULL;
    size_t text_len = 0;
    int status = fmtstr_decode(buffer, buffer_len, elfs, lens, count, &text, &text_len,
                               &warnings, &error);
    if (status == 0) {
        fwrite(text, 1, text_len, stdout);
        if (text[text_len] != '\0') {
            fputs("text is not NUL-terminated\n", stderr);
            status = 3;
        }
        if (warnings)
            fputs(warnings, stderr);
    } else {
        fprintf(stderr, "fmtstr: error: %s\n", error ? error : "(no message)");
    }
    fmtstr_free(text);
    fmtstr_free(warnings);
    fmtstr_free(error);
    for (size_t i = 0; i < count; i++)
        free((void *)elfs[i]);
    free(elfs);
    free(lens);
    free(buffer);
    return status;
}

static int merge(int argc, char **argv) {
    size_t base_len;
    unsigned char *base = read_file(argv[1], &base_len);
    size_t count = (size_t)(argc - 2);
    const uint8_t **inputs = calloc(count + 1, sizeof *inputs);
    size_t *lens = calloc(count + 1, sizeof *lens);
    for (size_t i = 0; i < count; i++)
        inputs[i] = read_file(argv[2 + i], &lens[i]);
    uint8_t *out = NULL;
    size_t out_len = 0;
    char *error = NULL;
    int status = fmtstr_merge(base, base_len, inputs, lens, count, &out, &out_len, &error);
    if (status == 0) {
        FILE *file = fopen(argv[0], "wb");
        if (!file || fwrite(out, 1, out_len, file) != out_len || fclose(file) != 0) {
            perror(argv[0]);
            status = 3;
        }
    } else {
        fprintf(stderr, "%s\n", error ? error : "(no message)");
    }
    fmtstr_free(out);
    fmtstr_free(error);
    for (size_t i = 0; i < count; i++)
        free((void *)inputs[i]);
    free(inputs);
    free(lens);
    free(base);
    return status;
}

static int lower(int argc, char **argv) {
    size_t module_len;
    unsigned char *module = read_file(argv[1], &module_len);
    char *out = NULL, *strings = NULL, *report = NULL, *diagnostics = NULL, *error = NULL;
    size_t out_len = 0;
    int status = fmtstr_lower(module, module_len, "module", argv[0], &out, &out_len, &strings,
                              &report, &diagnostics, &error);
    if (diagnostics)
        fputs(diagnostics, stderr);
    if (status == 0) {
        fwrite(out, 1, out_len, stdout);
        if (argc == 3) {
            FILE *file = fopen(argv[2], "wb");
            if (!file || !strings || fputs(strings, file) < 0 || fclose(file) != 0) {
                perror(argv[2]);
                status = 3;
            }
        }
    } else {
        fprintf(stderr, "fmtstr: error: %s\n", error ? error : "(no message)");
    }
    fmtstr_free(out);
    fmtstr_free(strings);
    fmtstr_free(report);
    fmtstr_free(diagnostics);
    fmtstr_free(error);
    free(module);
    return status;
}

static int check(const char *options, const uint8_t *input, size_t input_len, const char *name) {
    char *out = NULL, *diagnostics = NULL, *error = NULL;
    int status = fmtstr_check(input, input_len, name, options, &out, &diagnostics, &error);
    if (out)
        fputs(out, stdout);
    if (diagnostics)
        fputs(diagnostics, stderr);
    if (status == 2)
        fprintf(stderr, "fmtstr: error: %s\n", error ? error : "(no message)");
    fmtstr_free(out);
    fmtstr_free(diagnostics);
    fmtstr_free(error);
    return status;
}

static int check_file(const char *options, const char *path) {
    size_t len;
    unsigned char *bytes = read_file(path, &len);
    int status = check(options, bytes, len, path);
    free(bytes);
    return status;
}

static int audit(int argc, char **argv) {
    char *out = NULL, *error = NULL;
    int status = fmtstr_audit((const char *const *)(argv + 1), (size_t)(argc - 1), argv[0], &out,
                              &error);
    if (out)
        fputs(out, stdout);
    if (status == 2)
        fprintf(stderr, "fmtstr: error: %s\n", error ? error : "(no message)");
    fmtstr_free(out);
    fmtstr_free(error);
    return status;
}

#define EXPECT(condition)                                                               \
    do {                                                                                \
        if (!(condition)) {                                                             \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #condition);    \
            return 3;                                                                   \
        }                                                                               \
    } while (0)

static int edges(void) {
    /* 0 is never an ID: it answers a NULL string with a length. */
    EXPECT(fmtstr_hash(NULL, 5) == 0);
    EXPECT(fmtstr_hash(NULL, 0) == fmtstr_hash((const uint8_t *)"", 0));
    char *text = NULL, *warnings = NULL, *error = NULL;
    size_t text_len = 7;
    EXPECT(fmtstr_decode(NULL, 16, NULL, NULL, 0, &text, &text_len, &warnings, &error) == 2);
    EXPECT(text == NULL && text_len == 0 && error != NULL && strstr(error, "NULL"));
    fmtstr_free(error);
    error = NULL;
    static const uint8_t header[16] = {0};
    const uint8_t *elfs[1] = {NULL};
    size_t lens[1] = {64};
    EXPECT(fmtstr_decode(header, 16, elfs, lens, 1, &text, &text_len, &warnings, &error) == 2);
    EXPECT(error != NULL && strstr(error, "elfs[0]"));
    fmtstr_free(error);
    error = NULL;
    /* Not an ELF image: a message naming it, not a crash. */
    static const uint8_t junk[4] = {1, 2, 3, 4};
    elfs[0] = junk;
    lens[0] = sizeof junk;
    EXPECT(fmtstr_decode(header, 16, elfs, lens, 1, &text, &text_len, &warnings, &error) == 2);
    EXPECT(error != NULL && strstr(error, "elfs[0]"));
    fmtstr_free(error);
    error = NULL;
    uint8_t *out = NULL;
    size_t out_len = 0;
    EXPECT(fmtstr_merge(NULL, 1, NULL, NULL, 0, &out, &out_len, &error) == 2);
    EXPECT(out == NULL && error != NULL);
    fmtstr_free(error);
    error = NULL;
    EXPECT(fmtstr_merge(junk, sizeof junk, NULL, NULL, 0, &out, &out_len, &error) == 2);
    EXPECT(out == NULL && error != NULL && strstr(error, "base"));
    fmtstr_free(error);
    /* Options that are not JSON, or not fmtstr lower's: a message, nothing lowered. */
    char *lowered = NULL, *diagnostics = NULL;
    EXPECT(fmtstr_lower(junk, sizeof junk, NULL, "{\"targte\": \"nvptx\"}", &lowered, NULL,
                        NULL, NULL, &diagnostics, &error) == 2);
    EXPECT(lowered == NULL && error != NULL && strstr(error, "targte"));
    fmtstr_free(error);
    error = NULL;
    EXPECT(fmtstr_lower(NULL, 3, NULL, NULL, &lowered, NULL, NULL, NULL, NULL, &error) == 2);
    EXPECT(lowered == NULL && error != NULL && strstr(error, "NULL"));
    fmtstr_free(error);
    error = NULL;
    EXPECT(fmtstr_audit(NULL, 2, NULL, &diagnostics, &error) == 2);
    EXPECT(error != NULL && strstr(error, "NULL"));
    fmtstr_free(error);
    error = NULL;
    EXPECT(fmtstr_check(junk, sizeof junk, NULL, "{\"format\": \"xml\"}", &lowered, &diagnostics,
                        &error) == 2);
    EXPECT(error != NULL && strstr(error, "xml"));
    fmtstr_free(error);
    fmtstr_free(NULL);
    puts("edges: ok");
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "hash") == 0) {
        printf("%llu\n", (unsigned long long)fmtstr_hash((const uint8_t *)argv[2], strlen(argv[2])));
        return 0;
    }
    if (argc >= 3 && strcmp(argv[1], "decode") == 0)
        return decode(argc - 2, argv + 2);
    if (argc >= 4 && strcmp(argv[1], "merge") == 0)
        return merge(argc - 2, argv + 2);
    if (argc == 4 && strcmp(argv[1], "check") == 0)
        return check(argv[2], (const uint8_t *)argv[3], strlen(argv[3]), NULL);
    if (argc == 4 && strcmp(argv[1], "check-file") == 0)
        return check_file(argv[2], argv[3]);
    if (argc >= 4 && strcmp(argv[1], "audit") == 0)
        return audit(argc - 2, argv + 2);
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "lower") == 0)
        return lower(argc - 2, argv + 2);
    if (argc == 2 && strcmp(argv[1], "edges") == 0)
        return edges();
    fputs("usage: fmtstr_tool hash STRING | decode BUFFER ELF... | merge OUT BASE [INPUT...] | "
          "lower OPTIONS MODULE [TABLE] | check OPTIONS FORMAT | check-file OPTIONS FILE | "
          "audit OPTIONS PATH... | edges\n",
          stderr);
    return 3;
}
