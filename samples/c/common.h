/* Self-contained declarations for the IR corpus: no system headers, so the same sources
 * compile for nvptx64, amdgcn (amdpal) and x86_64 with -nostdinc. */
#ifndef FMTSTR_CORPUS_COMMON_H
#define FMTSTR_CORPUS_COMMON_H

int printf(const char *, ...);
typedef __builtin_va_list va_list;
#define va_start(ap, last) __builtin_va_start(ap, last)
#define va_arg(ap, type) __builtin_va_arg(ap, type)
#define va_end(ap) __builtin_va_end(ap)
#define va_copy(d, s) __builtin_va_copy(d, s)
typedef unsigned long size_t;
typedef long ptrdiff_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef long long int64_t;

#endif
