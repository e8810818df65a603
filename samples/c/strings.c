#include "common.h"

size_t length(const char *s) {
  size_t n = 0;
  while (s[n]) n++;
  return n;
}

void copy(char *dst, const char *src, size_t n) { __builtin_memcpy(dst, src, n); }

int compare(const char *a, const char *b) {
  while (*a && *a == *b) { a++; b++; }
  return (unsigned char)*a - (unsigned char)*b;
}

void reverse(char *s) {
  size_t n = length(s);
  for (size_t i = 0; i < n / 2; i++) {
    char t = s[i];
    s[i] = s[n - 1 - i];
    s[n - 1 - i] = t;
  }
}

int count_char(const char *s, char c) {
  int count = 0;
  for (; *s; s++) count += *s == c;
  return count;
}

void strings_demo(void) {
  char buffer[32];
  const char *text = "a \"quoted\" tab\there\\ and newline\n";
  copy(buffer, "abcdef", 7);
  reverse(buffer);
  __builtin_memset(buffer + 2, '-', 2);
  printf("%s|%zu|%d|%d\n", buffer, length(text), compare("abc", "abd"), count_char(text, 'e'));
  printf(text);
  printf("%.*s|%5.3s|%c%c\n", 3, text, "xyz", buffer[0], text[1]);
}
