/* tests/unit/test_clock.c: core/clock.c: monotonic, both units on one clock, and it advances at
 * least as far as a sleep (a lower bound only: these machines are too noisy for an upper one). */
#include <criterion/criterion.h>
#include <time.h>

#include "core/clock.h"

Test(clock, monotonic) {
  int64_t prev_ns = cs_now_ns();
  double prev_s = cs_now_s();
  for (int i = 0; i < 100000; i++) {
    int64_t ns = cs_now_ns();
    double s = cs_now_s();
    cr_assert_geq(ns, prev_ns);
    cr_assert_geq(s, prev_s);
    prev_ns = ns;
    prev_s = s;
  }
}

Test(clock, one_clock_in_two_units) {
  int64_t ns = cs_now_ns();
  double s = cs_now_s();
  /* read one after the other: seconds are a little later, by far less than a second */
  cr_assert_geq(s * 1e9, (double)ns - 1e3);
  cr_assert_lt(s * 1e9 - (double)ns, 1e9);
}

Test(clock, advances_with_a_sleep) {
  double t0 = cs_now_s();
  int64_t n0 = cs_now_ns();
  struct timespec d = {0, 20 * 1000 * 1000};
  while (nanosleep(&d, &d) != 0)
    ;
  cr_assert_geq(cs_now_s() - t0, 0.020);
  cr_assert_geq(cs_now_ns() - n0, 20 * 1000 * 1000);
}
