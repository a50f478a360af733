/* Unit tests for harness/cli.c: durations (--time, --deadline), the parsing every command shares. */
#include <criterion/criterion.h>

#include "harness/cli.h"

Test(cli, durations_in_every_unit) {
  const struct {
    const char *text;
    double seconds;
  } ok[] = {{"30", 30}, {"30s", 30}, {"1.5", 1.5}, {"250ms", 0.25}, {"5m", 300}, {"2h", 7200}, {"0", 0}, {"0.5m", 30}};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    double v = -1;
    cr_assert_eq(cs_parse_duration(ok[i].text, &v), 0, "%s", ok[i].text);
    cr_assert_float_eq(v, ok[i].seconds, 1e-9, "%s: %g", ok[i].text, v);
  }
}

Test(cli, durations_refused) {
  const char *bad[] = {"", "s", "-1", "-1s", "10x", "10 s", "10sec", "1d", "abc", "nan", "inf", "infinity", "1e999"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    double v = 42;
    cr_assert_eq(cs_parse_duration(bad[i], &v), -1, "%s was taken", bad[i]);
    cr_assert_float_eq(v, 42, 0, "%s: a refused duration writes nothing", bad[i]);
  }
}
