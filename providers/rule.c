/* providers/rule.c: compiling and checking target rules with PCRE2. A pattern of the simple form
 * of providers/simple_pattern.h is also compiled to byte tables, which prove a match without PCRE2;
 * every ID they do not accept takes the PCRE2 path, so verdicts and messages are the same. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "providers/rule.h"

#include "core/alloc.h"
#include "core/fs.h"
#include "core/utf8.h"
#include "providers/simple_pattern.h"

#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  cs_rule rule;
  char *pattern_own, *server_own; /* owned copies after an override */
  pcre2_code *re, *server_re;
  bool has_simple, has_server_simple; /* the patterns' byte-table forms are usable */
  cs_simple_pattern simple, server_simple;
} compiled_rule;

struct cs_ruleset {
  compiled_rule r[CS_TARGET_COUNT];
  pcre2_match_data *md;
};

static pcre2_code *compile(const char *pattern, const char *what, cs_err *err) {
  int ec;
  PCRE2_SIZE eo;
  /* DOLLAR_ENDONLY: by default '$' also matches before a final newline, so "toolu_x\n" would pass. */
  pcre2_code *re =
      pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_DOLLAR_ENDONLY, &ec, &eo, NULL);
  if (!re) {
    PCRE2_UCHAR msg[160];
    pcre2_get_error_message(ec, msg, sizeof msg);
    cs_err_set(err, "%s: pattern '%s' does not compile at offset %zu: %s", what, cs_err_excerpt(pattern).s, (size_t)eo,
               (char *)msg);
    return NULL;
  }
  pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* optional: falls back to the interpreter */
  return re;
}

static int compile_rule(compiled_rule *c, const char *tname, cs_err *err) {
  pcre2_code_free(c->re);
  pcre2_code_free(c->server_re);
  c->re = c->server_re = NULL;
  if (c->rule.pattern && !(c->re = compile(c->rule.pattern, tname, err)))
    return -1;
  if (c->rule.server_pattern && !(c->server_re = compile(c->rule.server_pattern, tname, err)))
    return -1;
  c->has_simple = c->re && cs_simple_pattern_compile(c->rule.pattern, &c->simple);
  c->has_server_simple = c->server_re && cs_simple_pattern_compile(c->rule.server_pattern, &c->server_simple);
  return 0;
}

cs_ruleset *cs_ruleset_new(cs_err *err) {
  cs_ruleset *rs = calloc(1, sizeof *rs);
  if (!rs) {
    cs_err_set(err, "out of memory");
    return NULL;
  }
  rs->md = pcre2_match_data_create(4, NULL);
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    rs->r[t].rule = cs_target_get((cs_target_id)t)->rule;
    if (compile_rule(&rs->r[t], cs_target_get((cs_target_id)t)->name, err)) {
      cs_ruleset_free(rs);
      return NULL;
    }
  }
  return rs;
}

void cs_ruleset_free(cs_ruleset *rs) {
  if (!rs)
    return;
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    pcre2_code_free(rs->r[t].re);
    pcre2_code_free(rs->r[t].server_re);
    free(rs->r[t].pattern_own);
    free(rs->r[t].server_own);
  }
  pcre2_match_data_free(rs->md);
  free(rs);
}

static int parse_u32(const char *v, uint32_t *out) {
  /* Digits only: strtoul also takes " 5", "+5" and " -0", which silently lifted a cap. */
  if (strspn(v, "0123456789") != strlen(v))
    return -1;
  char *end;
  errno = 0;
  unsigned long x = strtoul(v, &end, 10);
  if (!*v || *end || errno || x > 0x7fffffffUL)
    return -1;
  *out = (uint32_t)x;
  return 0;
}

int cs_ruleset_override(cs_ruleset *rs, const char *spec, cs_err *err) {
  const char *dot = strchr(spec, '.'), *eq = strchr(spec, '=');
  if (!dot || !eq || eq < dot)
    return cs_err_set(err, "rule override '%s': expected TARGET.KEY=VALUE (e.g. openai_chat.max_len=64)",
                      cs_err_excerpt(spec).s);
  char tname[32], key[32];
  size_t tl = (size_t)(dot - spec), kl = (size_t)(eq - dot - 1);
  if (tl >= sizeof tname || kl >= sizeof key)
    return cs_err_set(err, "rule override '%s': unknown target or key", cs_err_excerpt(spec).s);
  memcpy(tname, spec, tl);
  tname[tl] = 0;
  memcpy(key, dot + 1, kl);
  key[kl] = 0;
  const char *val = eq + 1;
  int t = cs_target_parse(tname);
  if (t < 0)
    return cs_err_set(err, "rule override '%s': unknown target '%s'", cs_err_excerpt(spec).s, tname);
  compiled_rule *c = &rs->r[t];
  compiled_rule saved = *c;
  if (strcmp(key, "max_len") == 0 || strcmp(key, "min_len") == 0) {
    uint32_t v;
    if (parse_u32(val, &v))
      return cs_err_set(err, "rule override '%s': %s must be a whole number", cs_err_excerpt(spec).s, key);
    *(strcmp(key, "max_len") == 0 ? &c->rule.max_len : &c->rule.min_len) = v;
    return 0;
  }
  char **own = NULL;
  const char **field = NULL;
  if (strcmp(key, "pattern") == 0)
    own = &c->pattern_own, field = &c->rule.pattern;
  else if (strcmp(key, "server_pattern") == 0)
    own = &c->server_own, field = &c->rule.server_pattern;
  else
    return cs_err_set(err, "rule override '%s': unknown key '%s' (pattern, min_len, max_len, server_pattern)",
                      cs_err_excerpt(spec).s, key);
  char *copy = *val ? cs_xstrdup(val) : NULL;
  *field = copy;
  c->re = c->server_re = NULL;
  if (compile_rule(c, tname, err)) {
    pcre2_code_free(c->re);
    pcre2_code_free(c->server_re);
    free(copy);
    *c = saved;
    return -1;
  }
  pcre2_code_free(saved.re);
  pcre2_code_free(saved.server_re);
  free(*own);
  *own = copy;
  return 0;
}

int cs_ruleset_check(const cs_ruleset *rs, cs_err *err) {
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    const cs_rule *r = &rs->r[t].rule;
    const char *name = cs_target_get((cs_target_id)t)->name;
    if (r->max_len && r->min_len > r->max_len)
      return cs_err_set(err, "rule for %s: min_len %u is above max_len %u", name, r->min_len, r->max_len);
    if (r->min_len > CS_RULE_MAX_MIN_LEN)
      return cs_err_set(err, "rule for %s: min_len %u is above %u, the longest ID the reference makes", name,
                        r->min_len, CS_RULE_MAX_MIN_LEN);
  }
  return 0;
}

int cs_ruleset_load_profile(cs_ruleset *rs, const char *path, cs_err *err) {
  FILE *f = fopen(path, "r");
  if (!f)
    return cs_err_set(err, "%s: cannot open: %s", path, strerror(errno));
  char line[1024];
  int lineno = 0, rc = 0, got;
  while ((got = cs_read_line(f, line, sizeof line, path, &lineno, err)) > 0) {
    size_t n = strlen(line);
    if (n && line[n - 1] == '\r')
      line[--n] = 0;
    char *s = line;
    while (*s == ' ' || *s == '\t')
      s++;
    if (!*s || *s == '#')
      continue;
    /* Stripped, a pattern's last space would quietly differ from the same --rule; kept, an
     * invisible one would change the pattern. Neither: it is refused. */
    if (line[n - 1] == ' ' || line[n - 1] == '\t') {
      rc = cs_err_set(err, "%s:%d: the line ends in a space or tab: remove it (a pattern's last space: [ ])", path,
                      lineno);
      break;
    }
    if (cs_ruleset_override(rs, s, err)) {
      cs_err_prefix(err, "%s:%d", path, lineno);
      rc = -1;
      break;
    }
  }
  if (got < 0)
    rc = -1;
  fclose(f);
  return rc;
}

const cs_rule *cs_ruleset_rule(const cs_ruleset *rs, cs_target_id t) {
  return &rs->r[t].rule;
}

static bool same_pattern(const char *a, const char *b) {
  return a == b || (a && b && !strcmp(a, b));
}

static void put_override(cs_buf *out, size_t *n, const char *target, const char *key, const char *value) {
  cs_buf_printf(out, "%s.%s=%s", target, key, value ? value : "");
  cs_buf_putc(out, 0);
  (*n)++;
}

size_t cs_rule_overrides(cs_target_id t, const cs_rule *r, cs_buf *out) {
  const cs_rule *dflt = &cs_target_get(t)->rule;
  const char *name = cs_target_get(t)->name;
  size_t n = 0;
  char num[16];
  if (!same_pattern(r->pattern, dflt->pattern))
    put_override(out, &n, name, "pattern", r->pattern);
  if (r->min_len != dflt->min_len && snprintf(num, sizeof num, "%u", r->min_len) > 0)
    put_override(out, &n, name, "min_len", num);
  if (r->max_len != dflt->max_len && snprintf(num, sizeof num, "%u", r->max_len) > 0)
    put_override(out, &n, name, "max_len", num);
  if (!same_pattern(r->server_pattern, dflt->server_pattern))
    put_override(out, &n, name, "server_pattern", r->server_pattern);
  return n;
}

size_t cs_ruleset_overrides(const cs_ruleset *rs, cs_buf *out) {
  size_t n = 0;
  for (int t = 0; t < CS_TARGET_COUNT; t++)
    n += cs_rule_overrides((cs_target_id)t, &rs->r[t].rule, out);
  return n;
}

size_t cs_utf8_length(cs_str s) {
  size_t n = 0;
  for (size_t i = 0; i < s.len; i++)
    n += ((unsigned char)s.ptr[i] & 0xC0) != 0x80;
  return n;
}

/* The message of a match that PCRE2 gave up: the rule, PCRE2's reason and the ID (at most 60
 * bytes of it, control bytes as '?'), so the user can tell which override to simplify. */
static void undecided(char *why, size_t why_len, cs_target_id t, const char *key, cs_str id, int rc) {
  if (!why)
    return;
  PCRE2_UCHAR reason[120];
  if (pcre2_get_error_message(rc, reason, sizeof reason) < 0)
    snprintf((char *)reason, sizeof reason, "error %d", rc);
  char shown[CS_EXCERPT_MAX + 4];
  size_t n = cs_utf8_clamp(id.ptr, id.len, CS_EXCERPT_MAX);
  for (size_t i = 0; i < n; i++)
    shown[i] = (unsigned char)id.ptr[i] < 0x20 || id.ptr[i] == 0x7f ? '?' : id.ptr[i];
  snprintf(shown + n, sizeof shown - n, "%s", n < id.len ? "..." : "");
  bool limit = rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT ||
               rc == PCRE2_ERROR_JIT_STACKLIMIT;
  snprintf(why, why_len, "rule %s.%s: PCRE2 %s on ID \"%s\"%s", cs_target_get(t)->name, key, (char *)reason, shown,
           limit ? ": the pattern backtracks too much" : "");
}

/* Matches `id` against the rule's `key` pattern; a match PCRE2 gives up on (a limit hit) is no
 * verdict either way, whatever pcre2_match's return suggests. Callers pass only valid UTF-8
 * (checked first), which makes PCRE2_NO_UTF_CHECK safe. */
static cs_rule_verdict match(cs_ruleset *rs, pcre2_code *re, cs_target_id t, const char *key, cs_str id, char *why,
                             size_t why_len) {
  PCRE2_SPTR s = (PCRE2_SPTR)(id.ptr ? id.ptr : "");
  int rc = pcre2_match(re, s, id.len, 0, PCRE2_NO_UTF_CHECK, rs->md, NULL);
  /* JIT code recurses on its own 32 KiB stack, which a group repeated over a long ID fills
   * (^([a-z])+$ on 1,600 characters) where the interpreter, on the heap, matches at once. */
  if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
    rc = pcre2_match(re, s, id.len, 0, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, rs->md, NULL);
  if (rc >= 0)
    return CS_RULE_MET;
  if (rc == PCRE2_ERROR_NOMATCH)
    return CS_RULE_BROKEN;
  undecided(why, why_len, t, key, id, rc);
  return CS_RULE_UNDECIDED;
}

cs_rule_verdict cs_rule_server_ok(cs_ruleset *rs, cs_target_id t, cs_str id, char *why, size_t why_len) {
  compiled_rule *c = &rs->r[t];
  if (c->has_server_simple && id.ptr && cs_simple_pattern_match(&c->server_simple, id.ptr, id.len))
    return CS_RULE_MET;
  if (!c->server_re || !id.ptr || !cs_utf8_valid(id.ptr, id.len, NULL))
    return CS_RULE_BROKEN;
  return match(rs, c->server_re, t, "server_pattern", id, why, why_len);
}

#define WHY(...) (why ? (void)snprintf(why, why_len, __VA_ARGS__) : (void)0)

/* Kimi: the number after the last ':' is the call's global index, written as the model writes it
 * (no leading zero: "functions.f:00" is not index 0). */
static bool index_ok(cs_str id, uint32_t global_index, char *why, size_t why_len) {
  const char *colon = NULL;
  for (size_t i = id.len; i > 0; i--)
    if (id.ptr[i - 1] == ':') {
      colon = id.ptr + i - 1;
      break;
    }
  unsigned long long v = 0;
  size_t digits = 0;
  bool all_digits = true; /* an overridden pattern may let other characters through */
  for (const char *p = colon ? colon + 1 : id.ptr + id.len; p < id.ptr + id.len; p++, digits++) {
    all_digits = all_digits && *p >= '0' && *p <= '9';
    v = v * 10 + (unsigned)(*p - '0');
  }
  bool leading_zero = digits > 1 && colon[1] == '0';
  if (!colon || digits == 0 || digits > 10 || !all_digits || leading_zero || v != global_index) {
    WHY("index is not the call's global index %u", global_index);
    return false;
  }
  return true;
}

cs_rule_verdict cs_rule_check(cs_ruleset *rs, cs_target_id t, cs_str id, uint32_t global_index, bool server, char *why,
                              size_t why_len) {
  compiled_rule *c = &rs->r[t];
  if (!id.ptr) {
    WHY("is null");
    return CS_RULE_BROKEN;
  }
  /* A byte-table match is all ASCII, so its byte count is its character count. */
  if (c->has_simple && !(server && c->server_re) && id.len >= c->rule.min_len &&
      (!c->rule.max_len || id.len <= c->rule.max_len) && cs_simple_pattern_match(&c->simple, id.ptr, id.len))
    return !c->rule.global_index || global_index == CS_RULE_ANY_INDEX || index_ok(id, global_index, why, why_len)
               ? CS_RULE_MET
               : CS_RULE_BROKEN;
  /* A code point takes at most 4 bytes: a long ID fails here without a pass over its bytes, when
   * no reason is asked for (the reason gives the exact length, which takes that pass). */
  if (!why && !(server && c->server_re) && c->rule.max_len && id.len / 4 > c->rule.max_len)
    return CS_RULE_BROKEN;
  size_t len;
  if (!cs_utf8_valid_count(id.ptr, id.len, &len)) {
    WHY("is not valid UTF-8 (or holds a NUL byte)");
    return CS_RULE_BROKEN;
  }
  if (server && c->server_re) {
    cs_rule_verdict v = match(rs, c->server_re, t, "server_pattern", id, why, why_len);
    if (v == CS_RULE_BROKEN)
      WHY("server call ID does not match %s", c->rule.server_pattern);
    return v;
  }
  if (len < c->rule.min_len) {
    WHY("is %zu characters, the minimum is %u", len, c->rule.min_len);
    return CS_RULE_BROKEN;
  }
  if (c->rule.max_len && len > c->rule.max_len) {
    WHY("is %zu characters, the maximum is %u", len, c->rule.max_len);
    return CS_RULE_BROKEN;
  }
  cs_rule_verdict v = c->re ? match(rs, c->re, t, "pattern", id, why, why_len) : CS_RULE_MET;
  if (v == CS_RULE_BROKEN)
    WHY("does not match %s", c->rule.pattern);
  if (v != CS_RULE_MET) /* UNDECIDED: the implementation is not to blame either way */
    return v;
  if (c->rule.global_index && global_index != CS_RULE_ANY_INDEX && !index_ok(id, global_index, why, why_len))
    return CS_RULE_BROKEN;
  return CS_RULE_MET;
}
