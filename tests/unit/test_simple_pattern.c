/* tests/unit/test_simple_pattern.c: providers/simple_pattern.c. The byte-table matcher must give
 * PCRE2's verdict on every pattern it compiles: checked on the target table's own patterns and,
 * differentially, on thousands of random patterns and strings over a small alphabet where classes
 * overlap often. Patterns outside its grammar must be refused. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <criterion/criterion.h>
#include <pcre2.h>
#include <stdio.h>
#include <string.h>

#include "providers/simple_pattern.h"
#include "providers/target.h"

static pcre2_code *pcre(const char *pattern) {
  int ec;
  PCRE2_SIZE eo;
  pcre2_code *re =
      pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_DOLLAR_ENDONLY, &ec, &eo, NULL);
  cr_assert_not_null(re, "PCRE2 does not compile %s", pattern);
  return re;
}

/* PCRE2's verdict on a whole string, as providers/rule.c asks for it (invalid UTF-8: no match). */
static bool pcre_matches(pcre2_code *re, const char *s, size_t n) {
  pcre2_match_data *md = pcre2_match_data_create(4, NULL);
  int rc = pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, md, NULL);
  pcre2_match_data_free(md);
  return rc >= 0;
}

static bool fast_matches(const char *pattern, const char *s) {
  cs_simple_pattern sp;
  cr_assert(cs_simple_pattern_compile(pattern, &sp), "%s should compile", pattern);
  return cs_simple_pattern_match(&sp, s, strlen(s));
}

Test(simple_pattern, compiles_every_pattern_of_the_target_table) {
  /* Otherwise rule checks silently fall back to PCRE2 for every ID. */
  int patterns = 0;
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    const cs_rule *r = &cs_target_get((cs_target_id)t)->rule;
    const char *ps[2] = {r->pattern, r->server_pattern};
    for (int k = 0; k < 2; k++) {
      cs_simple_pattern sp;
      if (!ps[k])
        continue;
      cr_assert(cs_simple_pattern_compile(ps[k], &sp), "target %s: %s is not compiled", cs_target_get(t)->name, ps[k]);
      patterns++;
    }
  }
  cr_assert_geq(patterns, 5);
}

Test(simple_pattern, target_patterns_accept_and_reject_as_the_rules_say) {
  cr_assert(fast_matches("^[a-zA-Z0-9_-]+$", "toolu_01-AbC"));
  cr_assert_not(fast_matches("^[a-zA-Z0-9_-]+$", ""));
  cr_assert_not(fast_matches("^[a-zA-Z0-9_-]+$", "a|b"));
  cr_assert_not(fast_matches("^[a-zA-Z0-9_-]+$", "caf\xc3\xa9"));
  cr_assert_not(fast_matches("^[a-zA-Z0-9_-]+$", "toolu_x\n"));
  cr_assert(fast_matches("^[a-zA-Z0-9]{9}$", "abcDEF123"));
  cr_assert_not(fast_matches("^[a-zA-Z0-9]{9}$", "abcDEF12"));
  cr_assert_not(fast_matches("^[a-zA-Z0-9]{9}$", "abcDEF1234"));
  cr_assert(fast_matches("^functions\\.[A-Za-z0-9_.-]+:[0-9]+$", "functions.fs.read:12"));
  cr_assert_not(fast_matches("^functions\\.[A-Za-z0-9_.-]+:[0-9]+$", "functionsXglob:1"));
  cr_assert_not(fast_matches("^functions\\.[A-Za-z0-9_.-]+:[0-9]+$", "functions.glob:"));
  cr_assert_not(fast_matches("^functions\\.[A-Za-z0-9_.-]+:[0-9]+$", "functions.my tool:0"));
  cr_assert(fast_matches("^srvtoolu_[a-zA-Z0-9_]+$", "srvtoolu_01AbC"));
  cr_assert_not(fast_matches("^srvtoolu_[a-zA-Z0-9_]+$", "srvtoolu_"));
}

Test(simple_pattern, refuses_what_it_does_not_fully_understand) {
  const char *refused[] = {
      "[a-z]+$",         /* not anchored at the start */
      "^[a-z]+",         /* not anchored at the end */
      "^[a-z]+$x",       /* '$' before the end */
      "^[^a-z]+$",       /* negated class: it would match non-ASCII code points */
      "^a.b$",           /* any character */
      "^(ab)+$",         /* group */
      "^a|b$",           /* alternation */
      "^a+?$",           /* lazy */
      "^a++$",           /* possessive */
      "^\\d+$",          /* escape class */
      "^\\x41$",         /* hex escape */
      "^a{,3}$",         /* PCRE2's reading depends on its version */
      "^a{3$",           /* '{' that is no quantifier */
      "^a{4,2}$",        /* inverted bounds */
      "^[a-z]+[a-c]$",   /* greedy would take what the next item needs */
      "^[a-z]*b?[b-d]$", /* the same past an optional item */
      "^[[:alpha:]]+$",  /* POSIX class */
      "^[]a]$",          /* ']' first in a class */
      "^[:b-c:]$",       /* POSIX syntax outside a class, which PCRE2 refuses */
      "^a b$",           /* space */
      "^caf\xc3\xa9$",   /* non-ASCII literal */
      "^[z-a]$",         /* inverted range */
      "^+$",             /* a quantifier of nothing */
      "^a{70000}$",      /* past PCRE2's repeat limit */
      NULL,
  };
  cs_simple_pattern sp;
  for (int i = 0; refused[i]; i++)
    cr_assert_not(cs_simple_pattern_compile(refused[i], &sp), "%s should be refused", refused[i]);
  cr_assert_not(cs_simple_pattern_compile(NULL, &sp));
}

/* A small deterministic generator, so a failure names a reproducible pattern. */
static uint64_t next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static const char ALPHABET[] = "abc-.:_0";

static void random_item(uint64_t *s, char *out, size_t *o) {
  if (next(s) % 3 == 0) { /* a literal, escaped when it is a metacharacter */
    char c = ALPHABET[next(s) % (sizeof ALPHABET - 1)];
    if (c == '.')
      out[(*o)++] = '\\';
    out[(*o)++] = c;
  } else { /* a class of one to three members or ranges */
    out[(*o)++] = '[';
    int members = 1 + (int)(next(s) % 3);
    for (int m = 0; m < members; m++) {
      char c = ALPHABET[next(s) % (sizeof ALPHABET - 1)];
      if (c == '-' || c == '.')
        out[(*o)++] = '\\';
      out[(*o)++] = c;
      if (next(s) % 4 == 0 && c >= 'a' && c < 'c') {
        out[(*o)++] = '-';
        out[(*o)++] = (char)(c + 1 + (char)(next(s) % (unsigned)('c' - c)));
      }
    }
    out[(*o)++] = ']';
  }
  static const char *const QUANT[] = {"", "", "+", "*", "?", "{2}", "{1,3}", "{0,2}", "{2,}"};
  const char *q = QUANT[next(s) % (sizeof QUANT / sizeof *QUANT)];
  memcpy(out + *o, q, strlen(q));
  *o += strlen(q);
}

Test(simple_pattern, agrees_with_pcre2_on_random_patterns_and_strings) {
  uint64_t s = 0x9E3779B97F4A7C15ULL;
  int compiled = 0, strings = 0, matched = 0;
  for (int k = 0; k < 3000; k++) {
    char pattern[128];
    size_t o = 0;
    pattern[o++] = '^';
    int items = 1 + (int)(next(&s) % 4);
    for (int i = 0; i < items; i++)
      random_item(&s, pattern, &o);
    pattern[o++] = '$';
    pattern[o] = 0;
    cs_simple_pattern sp;
    if (!cs_simple_pattern_compile(pattern, &sp))
      continue;
    compiled++;
    pcre2_code *re = pcre(pattern);
    for (int t = 0; t < 60; t++) {
      char str[16];
      size_t n = next(&s) % 9;
      for (size_t i = 0; i < n; i++)
        str[i] = ALPHABET[next(&s) % (sizeof ALPHABET - 1)];
      if (n && next(&s) % 16 == 0) /* now and then a byte no class holds */
        str[next(&s) % n] = (char)(next(&s) % 2 ? 0xC3 : 'z');
      bool fast = cs_simple_pattern_match(&sp, str, n), slow = pcre_matches(re, str, n);
      cr_assert_eq(fast, slow, "pattern %s, string \"%.*s\": byte tables say %d, PCRE2 says %d", pattern, (int)n, str,
                   fast, slow);
      strings++;
      matched += slow;
    }
    pcre2_code_free(re);
  }
  /* The comparison must have teeth: many patterns compiled, and both verdicts seen often. */
  cr_assert_gt(compiled, 500, "only %d random patterns compiled", compiled);
  cr_assert_gt(matched, strings / 50, "only %d of %d strings matched", matched, strings);
  cr_assert_lt(matched, strings - strings / 50);
}

/* Long runs go eight bytes a test: one byte no class holds, at every position of IDs up to 40
 * bytes, must end the run exactly where PCRE2 ends it, and so must a length past a bound. */
Test(simple_pattern, long_runs_agree_with_pcre2_at_every_position) {
  static const char *const PATTERNS[] = {"^[a-zA-Z0-9_-]+$", "^functions\\.[A-Za-z0-9_.-]+:[0-9]+$", "^[a-zA-Z0-9]{9}$",
                                         "^call_[A-Za-z0-9]{1,20}$", "^[a-z]{3,12}[0-9]*$"};
  static const char BODY[] = "functions.abcdefghij_klmnopq-rstuv.wxyz0:123456789";
  int checked = 0, matched = 0;
  for (size_t k = 0; k < sizeof PATTERNS / sizeof *PATTERNS; k++) {
    cs_simple_pattern sp;
    cr_assert(cs_simple_pattern_compile(PATTERNS[k], &sp), "%s did not compile", PATTERNS[k]);
    pcre2_code *re = pcre(PATTERNS[k]);
    for (size_t n = 0; n <= 40; n++) {
      char str[48];
      for (int shape = 0; shape < 3; shape++) {
        /* three shapes: the body as is, all letters, letters then digits */
        for (size_t i = 0; i < n; i++)
          str[i] = shape == 0 ? BODY[i] : shape == 1 ? (char)('a' + i % 26) : i < n / 2 ? 'q' : (char)('0' + i % 10);
        for (size_t bad = 0; bad <= n; bad++) { /* bad == n: no bad byte */
          char saved = bad < n ? str[bad] : 0;
          if (bad < n)
            str[bad] = bad % 2 ? '\xC3' : ' ';
          bool fast = cs_simple_pattern_match(&sp, str, n), slow = pcre_matches(re, str, n);
          cr_assert_eq(fast, slow, "pattern %s, string \"%.*s\": byte tables say %d, PCRE2 says %d", PATTERNS[k],
                       (int)n, str, fast, slow);
          checked++;
          matched += slow;
          if (bad < n)
            str[bad] = saved;
        }
      }
    }
    pcre2_code_free(re);
  }
  cr_assert_gt(matched, 100, "only %d of %d strings matched: the long runs were not exercised", matched, checked);
}
