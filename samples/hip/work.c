/* The same printf calls as work.hip, run on the host: what C's printf prints. */
#include <stdio.h>

#include "calls.h"

void work(int tid, int i) { PRINTF_CALLS(tid, i); }

void print_all(int tid, int calls) {
  for (int i = 0; i < calls; i++)
    work(tid, i);
}
