/* The same printf calls as kernel.cl, run on the host: what C's printf prints. */
#include <stdio.h>

#include "calls.h"

int main(void) {
  PRINTF_CALLS
  return 0;
}
