/* tests/unit/test_utf8.c: core/utf8.c: strict UTF-8 (RFC 3629), NUL rejected, offset of the bad byte. */
#include <criterion/criterion.h>
#include <string.h>

#include "core/utf8.h"

static bool valid(const char *s, size_t n, size_t *bad) {
  return cs_utf8_valid(s, n, bad);
}

Test(utf8, accepts_well_formed_text) {
  const char *ok[] = {
      "",
      "plain ASCII ~!@#",
      "\xc2\x80",                 /* U+0080, first two-byte */
      "\xdf\xbf",                 /* U+07FF */
      "\xe0\xa0\x80",             /* U+0800 */
      "\xed\x9f\xbf",             /* U+D7FF, just below the surrogates */
      "\xee\x80\x80",             /* U+E000, just above */
      "\xe2\x80\xa8\xe2\x80\xa9", /* U+2028 U+2029 */
      "\xef\xbf\xbf",             /* U+FFFF */
      "\xf0\x90\x80\x80",         /* U+10000 */
      "\xf0\x9f\x98\x80",         /* emoji */
      "\xf4\x8f\xbf\xbf",         /* U+10FFFF */
      "\x01\x1f\x7f",             /* control characters other than NUL are text */
  };
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    size_t bad = 12345;
    cr_assert(valid(ok[i], strlen(ok[i]), &bad), "case %zu rejected at %zu", i, bad);
    cr_assert_eq(bad, 12345, "bad_at is left alone on success");
  }
  cr_assert(valid(NULL, 0, NULL));
}

typedef struct {
  const char *s;
  size_t n, bad;
} bad_case;

Test(utf8, rejects_ill_formed_with_offset) {
  const bad_case cases[] = {
      {"a\0b", 3, 1}, /* NUL byte */
      {"\x80", 1, 0}, /* stray continuation */
      {"ab\xbf", 3, 2},
      {"\xc0\xaf", 2, 0}, /* overlong '/' */
      {"\xc1\xbf", 2, 0},
      {"\xe0\x80\xaf", 3, 0}, /* overlong three-byte */
      {"\xe0\x9f\xbf", 3, 0},
      {"\xf0\x80\x80\xaf", 4, 0}, /* overlong four-byte */
      {"\xf0\x8f\xbf\xbf", 4, 0},
      {"x\xed\xa0\x80", 4, 1},    /* U+D800 encoded (surrogate) */
      {"\xed\xbf\xbf", 3, 0},     /* U+DFFF */
      {"\xf4\x90\x80\x80", 4, 0}, /* U+110000 */
      {"\xf5\x80\x80\x80", 4, 0},
      {"\xff", 1, 0},
      {"\xfe", 1, 0},
      {"ok\xc3", 3, 2},       /* truncated two-byte */
      {"ok\xe2\x80", 4, 2},   /* truncated three-byte */
      {"\xf0\x9f\x98", 3, 0}, /* truncated four-byte */
      {"\xc3(", 2, 0},        /* bad continuation */
      {"\xe2\x28\xa1", 3, 0},
      {"\xe2\x82\x28", 3, 0},
      {"\xf0\x9f\x28\x80", 4, 0},
      {"\xf0\x9f\x98\x28", 4, 0},
      {"\xc3\xa9\xc3", 3, 2}, /* good then cut */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    size_t bad = 999;
    cr_assert_not(valid(cases[i].s, cases[i].n, &bad), "case %zu accepted", i);
    cr_assert_eq(bad, cases[i].bad, "case %zu: bad_at %zu, expected %zu", i, bad, cases[i].bad);
    cr_assert_not(valid(cases[i].s, cases[i].n, NULL), "a NULL bad_at is allowed");
  }
}

Test(utf8, length_bounds_are_respected) {
  /* The check reads only `n` bytes: a valid prefix of a longer buffer is valid. */
  const char *s = "abc\xff";
  cr_assert(valid(s, 3, NULL));
  cr_assert_not(valid(s, 4, NULL));
  /* A sequence cut by `n` is invalid even if the bytes after it would complete it. */
  const char *e = "\xe2\x80\xa8";
  cr_assert_not(valid(e, 2, NULL));
  cr_assert(valid(e, 3, NULL));
}

Test(utf8, every_two_byte_lead_and_continuation) {
  /* Exhaustive over two-byte sequences: valid exactly for C2..DF followed by 80..BF. */
  for (int a = 0x80; a < 0x100; a++)
    for (int b = 0; b < 0x100; b++) {
      char s[2] = {(char)a, (char)b};
      bool expect = a >= 0xC2 && a <= 0xDF && b >= 0x80 && b <= 0xBF;
      cr_assert_eq(valid(s, 2, NULL), expect, "%02x %02x", a, b);
    }
}

/* The counting variant agrees with cs_utf8_valid on every input, and its ASCII fast path (eight
 * bytes at a time) hands over to the slow path wherever the odd byte sits. */
Test(utf8, valid_count_agrees_with_valid) {
  const char *samples[] = {"",
                           "call_0",
                           "toolu_01ABCDEFGHabcdefgh",
                           "caf\xc3\xa9",
                           "\xf0\x9f\x98\x80x",
                           "abcdefgh\xe2\x82\xac",
                           "abcdefg\xc3",
                           "abc\xed\xa0\x80zz"};
  const size_t counts[] = {0, 6, 24, 4, 2, 9, 0, 0};
  for (size_t k = 0; k < sizeof samples / sizeof *samples; k++) {
    size_t n = strlen(samples[k]), chars = 99;
    bool ok = cs_utf8_valid_count(samples[k], n, &chars);
    cr_assert_eq(ok, cs_utf8_valid(samples[k], n, NULL), "sample %zu", k);
    if (ok)
      cr_assert_eq(chars, counts[k], "sample %zu: %zu code points", k, chars);
  }
  /* a NUL byte or a high byte at every offset of a 24-byte ASCII run */
  for (size_t at = 0; at < 24; at++) {
    char buf[24];
    memset(buf, 'a', sizeof buf);
    size_t chars = 0;
    cr_assert(cs_utf8_valid_count(buf, sizeof buf, &chars));
    cr_assert_eq(chars, 24);
    buf[at] = 0;
    cr_assert_not(cs_utf8_valid_count(buf, sizeof buf, &chars), "NUL at %zu", at);
    buf[at] = (char)0xC3;
    cr_assert_not(cs_utf8_valid_count(buf, sizeof buf, &chars), "lone lead at %zu", at);
    if (at + 1 < sizeof buf) {
      buf[at + 1] = (char)0xA9;
      cr_assert(cs_utf8_valid_count(buf, sizeof buf, &chars), "two-byte character at %zu", at);
      cr_assert_eq(chars, 23);
    }
  }
}

/* cs_utf8_clamp: a cut at `max` bytes never splits a character; a short text is kept whole. */
Test(utf8, clamp_cuts_on_a_character_boundary) {
  const char *s = "ab\xc3\xa9\xe2\x82\xac"; /* a b é € : 2 + 2 + 3 bytes */
  size_t len = strlen(s);
  cr_assert_eq(cs_utf8_clamp(s, len, 100), len);
  cr_assert_eq(cs_utf8_clamp(s, len, len), len);
  cr_assert_eq(cs_utf8_clamp(s, len, 6), 4, "inside the 3-byte euro sign: cut before it");
  cr_assert_eq(cs_utf8_clamp(s, len, 5), 4);
  cr_assert_eq(cs_utf8_clamp(s, len, 4), 4, "after é");
  cr_assert_eq(cs_utf8_clamp(s, len, 3), 2, "inside é: cut before it");
  cr_assert_eq(cs_utf8_clamp(s, len, 0), 0);
}

/* Text from outside is made valid in place: each byte outside a well-formed character becomes
 * '?', and well-formed characters are kept as they are. */
Test(utf8, scrub_replaces_only_the_bad_bytes) {
  char s[] = "ok \xC3\xA9 \xFF cut \xE2\x82 nul \0 overlong \xC0\xAF surrogate \xED\xA0\x80 end \xF0\x9F\x98";
  size_t n = sizeof s - 1;
  cs_utf8_scrub(s, n);
  cr_assert(cs_utf8_valid(s, n, NULL));
  const char want[] = "ok \xC3\xA9 ? cut ?? nul ? overlong ?? surrogate ??? end ???";
  cr_assert_eq(n, sizeof want - 1);
  cr_assert(memcmp(s, want, n) == 0, "%.*s", (int)n, s);
  char fine[] = "plain \xE2\x82\xAC";
  cs_utf8_scrub(fine, sizeof fine - 1);
  cr_assert_str_eq(fine, "plain \xE2\x82\xAC");
}
