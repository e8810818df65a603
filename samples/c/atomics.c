#include "common.h"

int shared_counter;
long long shared_total;
volatile int volatile_flag;

int bump_shared(int by) { return __atomic_fetch_add(&shared_counter, by, __ATOMIC_SEQ_CST); }

long long accumulate(long long v) { return __atomic_add_fetch(&shared_total, v, __ATOMIC_RELAXED); }

int try_claim(int *slot, int expected, int desired) {
  return __atomic_compare_exchange_n(slot, &expected, desired, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

int swap_in(int *slot, int v) { return __atomic_exchange_n(slot, v, __ATOMIC_RELEASE); }

int load_acquire(const int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

void store_release(int *p, int v) {
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

int max_update(int *p, int v) { return __atomic_fetch_max(p, v, __ATOMIC_SEQ_CST) + __sync_fetch_and_or(p, 1); }

void spin(void) {
  while (!volatile_flag)
    volatile_flag = volatile_flag + 1;
  printf("counter %d total %lld claim %d\n", bump_shared(2), accumulate(5), try_claim(&shared_counter, 2, 3));
}
