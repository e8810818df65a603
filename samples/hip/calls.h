/* printf calls shared by work.hip (HIP device code, compiled with clang -mprintf-kind=buffered)
 * and work.c (C on the host): the buffer the device calls fill, decoded by `fmtstr decode --elf`,
 * must print exactly what the host's printf prints for the same calls. Every line starts with
 * the thread's `t<tid>` but the no-argument one, so that lines can be grouped per thread.
 *
 * What each call covers of the buffered printf: integers of every width (zero-extended into an
 * 8-byte slot, read back at the conversion's width), doubles and floats (stored as doubles),
 * '*' arguments, string constants (stored inline, padded to 8 bytes), strings the compiler
 * cannot see (copied by a strlen loop), a format the compiler cannot see (stored in the record
 * instead of its hash; without %s, whose argument clang then stores as a pointer) and a call
 * without arguments. */
#define PRINTF_CALLS(tid, i)                                                                     \
  do {                                                                                           \
    const char *names[3] = {"alpha", "be", "gamma-delta-epsilon"};                               \
    const char *formats[2] = {"t%d i%d even %d %x\n", "t%d i%d odd %d %5.1f\n"};                \
    printf("t%d i%d int %d unsigned %u hex %#x char %c\n", tid, i, i * 7919 - 50000,             \
           (unsigned)i * 2654435761u, i * 31, 'A' + i % 26);                                     \
    printf("t%d i%d long %ld ulong %lu llx %llx lld %lld\n", tid, i, (long)i * -123456789L,      \
           (unsigned long)i * 3000000000UL, (unsigned long long)i << 37,                         \
           -(long long)i * 1000000007LL);                                                        \
    printf("t%d i%d narrow %hd %hu %hhd %hhu %hhx\n", tid, i, (short)(i * -1000),                \
           (unsigned short)(i * 1000), (signed char)(i * 7), (unsigned char)(i * 9),             \
           (unsigned char)i);                                                                    \
    printf("t%d i%d more %i %o %X %zu %zd %jd %td\n", tid, i, -i, i * 8, i * 48879u,             \
           (__SIZE_TYPE__)i * 4096u, (__PTRDIFF_TYPE__)-i, (__INTMAX_TYPE__)i << 40,             \
           (__PTRDIFF_TYPE__)i * -3);                                                            \
    printf("t%d i%d upper %E %G %A %F %+.0e\n", tid, i, i * 1e-5, i * 123456.0, -i * 0.75,       \
           i * 2.5, -1.0 / (i + 3));                                                             \
    printf("t%d i%d double %f %e %g %a %.3f\n", tid, i, i / 7.0, i * 1e10, 1.0 / (i + 1),        \
           i * 0.1, i * 0.25f);                                                                  \
    printf("t%d i%d width [%8d] [%-8d] [%08.3f] [%+d] [%5c] [%*d] [%.*f] 100%%\n", tid, i, i,    \
           -i, i * 1.5, i, 'a' + i % 26, 6, i, 2, i * 0.5);                                      \
    printf("t%d i%d literal %s|%-8s|%.3s|%s|%s\n", tid, i, "hello", "ab", "abcdef", "",          \
           "exactly8");                                                                          \
    printf("t%d i%d names %s [%10s] %s\n", tid, i, names[i % 3], names[(i + 1) % 3],             \
           names[(i + 2) % 3]);                                                                  \
    if (i % 2)                                                                                   \
      printf(formats[1], tid, i, i * 3, i * 0.5);                                                \
    else                                                                                         \
      printf(formats[0], tid, i, i * 3, i * 5u);                                                 \
    printf("no arguments: a:b, c\ttab\n");                                                       \
  } while (0)
