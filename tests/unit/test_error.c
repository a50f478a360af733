/* tests/unit/test_error.c: core/error.c: a message is one line; one too long keeps its head and its
 * reason; a prefix is added in front; an excerpt cuts user input on a character boundary. */
#include <criterion/criterion.h>
#include <string.h>

#include "core/error.h"

Test(error, a_message_is_one_line_and_returns_minus_one) {
  cs_err err = {{0}};
  cr_assert_eq(cs_err_set(&err, "a%sb", "\n\r"), -1);
  cr_assert_str_eq(err.msg, "a  b");
  cr_assert_eq(cs_err_set(NULL, "ignored"), -1);
}

/* A path of a few kilobytes before the reason: the reason stays, the path keeps its head and tail. */
Test(error, a_long_message_keeps_its_reason) {
  static char path[6000];
  memset(path, 'p', sizeof path - 1);
  memcpy(path, "/head/", 6);
  memcpy(path + sizeof path - 10, "tail.json", 9);
  for (size_t len = 300; len < sizeof path; len += 1300) {
    char p[sizeof path];
    memcpy(p, path + sizeof path - 1 - len, len + 1); /* the last len bytes: ends in tail.json */
    memcpy(p, "/head/", 6);
    cs_err err = {{0}};
    cs_err_set(&err, "%s: cannot write: No space left on device", p);
    size_t n = strlen(err.msg);
    cr_assert_lt(n, sizeof err.msg);
    cr_assert(strncmp(err.msg, "/head/", 6) == 0, "%zu: %.40s", len, err.msg);
    const char *end = "tail.json: cannot write: No space left on device";
    cr_assert(n >= strlen(end) && !strcmp(err.msg + n - strlen(end), end), "%zu: ...%s", len, err.msg + n - 60);
    cr_assert_eq(strstr(err.msg, "...") != NULL, len + 41 >= sizeof err.msg, "%zu", len);
  }
}

/* The cut never splits a UTF-8 sequence, at the head or at the tail. */
Test(error, a_cut_keeps_characters_whole) {
  char s[1500] = "";
  for (size_t i = 0; i + 3 < sizeof s; i += 3)
    memcpy(s + i, "\xe2\x82\xac", 3); /* the euro sign */
  for (size_t shift = 0; shift < 3; shift++) {
    cs_err err = {{0}};
    cs_err_set(&err, "%.*s%s", (int)shift, "xx", s);
    const char *dots = strstr(err.msg, "...");
    cr_assert_not_null(dots);
    size_t head = (size_t)(dots - err.msg) - shift;
    cr_assert_eq(head % 3, 0, "shift %zu: the head ends inside a character", shift);
    cr_assert_eq(strlen(dots + 3) % 3, 0, "shift %zu: the tail starts inside a character", shift);
  }
}

Test(error, a_prefix_goes_in_front_and_the_reason_stays) {
  cs_err err = {{0}};
  cs_err_set(&err, "cannot read: Permission denied");
  cs_err_prefix(&err, "%s", "case.json");
  cr_assert_str_eq(err.msg, "case.json: cannot read: Permission denied");
  char longp[400];
  memset(longp, 'x', sizeof longp - 1);
  longp[sizeof longp - 1] = 0;
  cs_err_set(&err, "%s: bad", longp);
  cs_err_prefix(&err, "%s", longp);
  size_t n = strlen(err.msg);
  cr_assert(n > 5 && !strcmp(err.msg + n - 5, ": bad"), "%s", err.msg + n - 20);
  cr_assert_not_null(strstr(err.msg, "..."));
}

Test(error, an_excerpt_is_cut_to_its_limit_with_an_ellipsis) {
  cr_assert_str_eq(cs_err_excerpt("short").s, "short");
  char s[100];
  memset(s, 'a', sizeof s - 1);
  s[sizeof s - 1] = 0;
  cs_excerpt e = cs_err_excerpt(s);
  cr_assert_eq(strlen(e.s), CS_EXCERPT_MAX + 3);
  cr_assert_str_eq(e.s + CS_EXCERPT_MAX, "...");
}
