/*
 * The baseline of `cargo xtask bench decode`: an AMD printf-buffer decoder that works the way
 * the AMD driver's does (xgl icd/api/debug_printf.cpp), written here from its description.
 *
 * - Each format string is split once into sections, one per conversion, and cached by ID.
 * - For each entry, each conversion reads one dword, or two when its bit is set in the
 *   64-bit mask, and is printed by glibc's snprintf with the conversion's own text as the
 *   format: 64-bit values as long long or double, 32-bit ones as int, unsigned int or a float
 *   (promoted to double), as the driver passes them. Literal text between conversions is
 *   copied. Like the driver it stops at the first unknown ID or short entry, and knows no
 *   %%, %s or vectors.
 *
 * It is made as fast as that scheme allows: conversion texts are kept NUL-terminated (the
 * driver copies each one into a local buffer per use), snprintf writes straight into a large
 * output buffer, and output goes out with fwrite in big blocks.
 *
 * Usage: driver_decode TABLE BUFFER > TEXT
 *   TABLE: records of u64 id, u64 mask (bit i: argument i is 64 bits), u32 length, bytes.
 *   BUFFER: the printf buffer (16-byte header, then entries).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { SIGNED, UNSIGNED, FLOAT };

struct section {
    uint32_t literal_begin; /* literal text before the conversion */
    uint32_t literal_len;
    char *spec;             /* the conversion's text, NUL-terminated */
    enum kind kind;
};

struct format {
    uint64_t id;
    uint64_t mask;
    char *text;
    uint32_t len;
    struct section *sections;
    uint32_t count;
    uint32_t tail_begin; /* literal text after the last conversion */
};

static struct format *formats;
static uint32_t format_count;
static uint32_t *slots; /* open addressing: index + 1, 0 = empty */
static uint32_t slot_mask;

static void die(const char *message) {
    fprintf(stderr, "driver_decode: %s\n", message);
    exit(2);
}

static unsigned char *read_file(const char *path, size_t *len) {
    FILE *file = fopen(path, "rb");
    if (!file) die("cannot open an input");
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *bytes = malloc(size > 0 ? (size_t)size : 1);
    if (!bytes) die("out of memory");
    if (size > 0 && fread(bytes, 1, (size_t)size, file) != (size_t)size) die("short read");
    fclose(file);
    *len = (size_t)size;
    return bytes;
}

/* Splits a format into sections: %[flags][width][.precision][length]conversion. */
static void parse(struct format *f) {
    f->sections = calloc(f->len / 2 + 1, sizeof(struct section));
    uint32_t literal = 0;
    uint32_t i = 0;
    while (i < f->len) {
        if (f->text[i] != '%') { i++; continue; }
        uint32_t begin = i++;
        while (i < f->len && strchr("-+ #0", f->text[i])) i++;
        while (i < f->len && f->text[i] >= '0' && f->text[i] <= '9') i++;
        if (i < f->len && f->text[i] == '.') {
            i++;
            while (i < f->len && f->text[i] >= '0' && f->text[i] <= '9') i++;
        }
        while (i < f->len && strchr("hljztL", f->text[i])) i++;
        if (i >= f->len) break;
        char conversion = f->text[i++];
        enum kind kind;
        if (strchr("dic", conversion)) kind = SIGNED;
        else if (strchr("uoxX", conversion)) kind = UNSIGNED;
        else if (strchr("fFeEgGaA", conversion)) kind = FLOAT;
        else continue; /* not a conversion the driver knows: left as text */
        struct section *s = &f->sections[f->count++];
        s->literal_begin = literal;
        s->literal_len = begin - literal;
        s->spec = malloc(i - begin + 1);
        memcpy(s->spec, f->text + begin, i - begin);
        s->spec[i - begin] = 0;
        s->kind = kind;
        literal = i;
    }
    f->tail_begin = literal;
}

static void load_table(const char *path) {
    size_t len;
    unsigned char *bytes = read_file(path, &len);
    size_t at = 0, capacity = 64;
    formats = malloc(capacity * sizeof(struct format));
    while (at + 20 <= len) {
        if (format_count == capacity) {
            capacity *= 2;
            formats = realloc(formats, capacity * sizeof(struct format));
        }
        struct format *f = &formats[format_count++];
        memset(f, 0, sizeof *f);
        memcpy(&f->id, bytes + at, 8);
        memcpy(&f->mask, bytes + at + 8, 8);
        memcpy(&f->len, bytes + at + 16, 4);
        at += 20;
        if (at + f->len > len) die("bad table");
        f->text = malloc(f->len + 1);
        memcpy(f->text, bytes + at, f->len);
        f->text[f->len] = 0;
        at += f->len;
        parse(f);
    }
    free(bytes);
    uint32_t size = 16;
    while (size < format_count * 2) size *= 2;
    slots = calloc(size, sizeof(uint32_t));
    slot_mask = size - 1;
    for (uint32_t k = 0; k < format_count; k++) {
        uint32_t h = (uint32_t)(formats[k].id * 0x9e3779b97f4a7c15ull >> 32) & slot_mask;
        while (slots[h]) h = (h + 1) & slot_mask;
        slots[h] = k + 1;
    }
}

static struct format *find(uint64_t id) {
    uint32_t h = (uint32_t)(id * 0x9e3779b97f4a7c15ull >> 32) & slot_mask;
    while (slots[h]) {
        if (formats[slots[h] - 1].id == id) return &formats[slots[h] - 1];
        h = (h + 1) & slot_mask;
    }
    return NULL;
}

#define OUT_SIZE (8u << 20)
static char out[OUT_SIZE];
static size_t out_len;

static void flush(void) {
    if (out_len && fwrite(out, 1, out_len, stdout) != out_len) die("cannot write");
    out_len = 0;
}

static void append(const char *text, size_t len) {
    if (out_len + len > OUT_SIZE) flush();
    memcpy(out + out_len, text, len);
    out_len += len;
}

int main(int argc, char **argv) {
    if (argc != 3) die("usage: driver_decode TABLE BUFFER");
    load_table(argv[1]);
    size_t len;
    unsigned char *buffer = read_file(argv[2], &len);
    if (len < 16) die("buffer shorter than its header");
    uint64_t used;
    memcpy(&used, buffer, 8);
    uint64_t capacity = (len - 16) / 4;
    if (used > capacity) used = capacity;
    const uint32_t *dwords = (const uint32_t *)(buffer + 16);
    uint64_t at = 0;
    while (used - at > 1) {
        uint64_t header = (uint64_t)dwords[at + 1] << 32 | dwords[at];
        uint64_t size = header & 0xffff;
        struct format *f = find(header >> 16);
        if (!f || size < 2 || size > used - at) break;
        uint64_t p = at + 2, end = at + size;
        for (uint32_t k = 0; k < f->count; k++) {
            struct section *s = &f->sections[k];
            if (s->literal_len) append(f->text + s->literal_begin, s->literal_len);
            int wide = k < 64 && (f->mask >> k & 1);
            if (p + (wide ? 2 : 1) > end) break;
            uint64_t value = dwords[p++];
            if (wide) value |= (uint64_t)dwords[p++] << 32;
            if (out_len + 512 > OUT_SIZE) flush();
            int n;
            if (wide) {
                double d;
                memcpy(&d, &value, 8);
                if (s->kind == FLOAT) n = snprintf(out + out_len, 512, s->spec, d);
                else n = snprintf(out + out_len, 512, s->spec, (long long)value);
            } else {
                uint32_t dword = (uint32_t)value;
                float x;
                memcpy(&x, &dword, 4);
                if (s->kind == FLOAT) n = snprintf(out + out_len, 512, s->spec, x);
                else if (s->kind == SIGNED) n = snprintf(out + out_len, 512, s->spec, (int)dword);
                else n = snprintf(out + out_len, 512, s->spec, dword);
            }
            if (n > 0) out_len += n < 512 ? (size_t)n : 511;
        }
        append(f->text + f->tail_begin, f->len - f->tail_begin);
        at = end;
    }
    flush();
    free(buffer);
    return 0;
}
