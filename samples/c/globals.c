#include "common.h"

int counter;
int initialized = 42;
static int hidden_counter = -7;
const char greeting[] = "hello, world";
const char *messages[] = { "zero", "one", "two", greeting };
int matrix[3][4] = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 } };
int *middle = &matrix[1][2];
const char *tail = greeting + 7;
double constants[] = { 3.14159265358979, 2.718281828, -0.0, 1e300, 1.0 / 3.0 };
float small[] = { 0.1f, 0.5f, 1e-30f };
long long wide = 0x123456789abcdefLL;
unsigned char bytes[16] = { 0, 1, 2, 255, 128, 127, '\n', '"', '\\' };
__attribute__((weak)) int weak_value = 3;
extern int defined_elsewhere;
struct config { const char *name; int level; double ratio; int flags[2]; } config = { "cfg", 2, 0.75, { 1 } };
static struct config *config_ptr = &config;

int bump(void) {
  static int calls;
  counter += ++calls + hidden_counter;
  return counter;
}

int touch(int i) {
  return matrix[i % 3][i % 4] + *middle + tail[0] + messages[i & 3][0] + bytes[i & 15] +
         config_ptr->flags[1] + weak_value + (int)constants[i % 5] + (int)small[i % 3] +
         (int)wide + defined_elsewhere;
}

void dump(void) {
  printf("%s %s %d %s\n", greeting, tail, *middle, messages[3]);
  printf("config %s level %d ratio %f\n", config.name, config.level, config.ratio);
  printf("counter %d after %d touches\n", bump(), touch(5));
}
