/* providers/simple_pattern.h: a byte-table matcher for the simple patterns most target rules are
 * (`^[a-zA-Z0-9_-]+$`, `^[a-zA-Z0-9]{9}$`, `^functions\.[A-Za-z0-9_.-]+:[0-9]+$`): an anchored
 * sequence of printable-ASCII literals and ASCII character classes, each with an optional greedy
 * quantifier. Such a pattern is compiled only when every run of variable length is followed by
 * something it cannot match; then greedy matching without backtracking gives exactly PCRE2's
 * verdict, at a fraction of its cost per call. Anything else is refused, and PCRE2 matches it.
 * Rule checks use it to prove a match cheaply; a non-match still goes through PCRE2. */
#ifndef CS_PROVIDERS_SIMPLE_PATTERN_H
#define CS_PROVIDERS_SIMPLE_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CS_SIMPLE_MAX_ITEMS 16
#define CS_SIMPLE_UNBOUNDED UINT32_MAX

typedef struct {
  uint64_t set[2];   /* bit c: the item matches ASCII byte c */
  uint32_t min, max; /* repetitions; max CS_SIMPLE_UNBOUNDED: no limit */
} cs_simple_item;

typedef struct {
  cs_simple_item item[CS_SIMPLE_MAX_ITEMS];
  uint32_t n;
  /* The leading items that are one literal byte each (`functions.`, `srvtoolu_`): compared as one
   * string, not run by run. Item i < nprefix is byte i of the ID. */
  uint32_t nprefix;
  char prefix[CS_SIMPLE_MAX_ITEMS];
  uint16_t member[256]; /* bit i of member[c]: item i matches byte c (one load per byte matched) */
} cs_simple_pattern;

/* Compiles `pattern` (PCRE2 syntax, as the rule uses it: UTF, '$' only at the very end). Returns
 * false, leaving nothing to use, when the pattern is not of the simple form above. */
bool cs_simple_pattern_compile(const char *pattern, cs_simple_pattern *out);

/* Whether the whole of s[0..n) matches. Bytes outside printable ASCII never match. */
bool cs_simple_pattern_match(const cs_simple_pattern *p, const char *s, size_t n);

#endif
