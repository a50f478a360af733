/* providers/simple_pattern.c: compiling and matching the simple patterns of simple_pattern.h. The
 * parser accepts a deliberately small grammar and refuses everything it does not fully understand
 * (negated classes, escapes other than punctuation, groups, alternation, lazy or possessive
 * quantifiers, '.'), so that a compiled pattern never disagrees with PCRE2. */
#include "providers/simple_pattern.h"

#include <string.h>

static bool printable(unsigned char c) {
  return c >= 0x21 && c <= 0x7e;
}

/* Characters PCRE2 gives a meaning outside a class; escaped, each stands for itself. */
static bool meta(unsigned char c) {
  return c && strchr("\\^$.|?*+()[]{}", c) != NULL;
}

static bool alnum(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static void set_add(cs_simple_item *it, unsigned char c) {
  it->set[c >> 6] |= 1ULL << (c & 63);
}

static bool set_has(const uint64_t set[2], unsigned char c) {
  return c < 128 && (set[c >> 6] >> (c & 63) & 1u);
}

/* One character of a class (a literal or an escaped punctuation character); NULL when refused. */
static const char *class_char(const char *p, unsigned char *out) {
  unsigned char c = (unsigned char)*p;
  if (c == '\\') {
    unsigned char e = (unsigned char)p[1];
    if (!printable(e) || alnum(e))
      return NULL; /* \d, \w, \x.. and the like: PCRE2's business */
    *out = e;
    return p + 2;
  }
  if (!printable(c) || c == '[' || c == ']')
    return NULL; /* '[' could open a POSIX class such as [:alpha:] */
  *out = c;
  return p + 1;
}

/* A bracket class after its '['; returns the position after ']', or NULL when refused. */
static const char *parse_class(const char *p, cs_simple_item *it) {
  if (*p == '^' || *p == ']')
    return NULL; /* negated (it would match non-ASCII code points too), or ']' as a literal */
  if (*p == ':' || *p == '.' || *p == '=')
    return NULL; /* [:x:], [.x.] and [=x=] read as POSIX syntax, which PCRE2 refuses here */
  bool any = false;
  while (*p && *p != ']') {
    unsigned char lo, hi;
    const char *q = class_char(p, &lo);
    if (!q)
      return NULL;
    if (q[0] == '-' && q[1] && q[1] != ']') { /* a range lo-hi */
      const char *r = class_char(q + 1, &hi);
      if (!r || hi < lo)
        return NULL;
      for (unsigned c = lo; c <= hi; c++)
        set_add(it, (unsigned char)c);
      p = r;
    } else {
      set_add(it, lo);
      p = q;
    }
    any = true;
  }
  return *p == ']' && any ? p + 1 : NULL;
}

static const char *parse_number(const char *p, uint32_t *out) {
  uint32_t v = 0;
  const char *start = p;
  while (*p >= '0' && *p <= '9') {
    v = v * 10 + (uint32_t)(*p - '0');
    if (v > 65535)
      return NULL; /* PCRE2's limit for repeat counts */
    p++;
  }
  *out = v;
  return p > start ? p : NULL;
}

/* An optional quantifier; returns the position after it (p itself when there is none), or NULL. */
static const char *parse_quantifier(const char *p, cs_simple_item *it) {
  it->min = it->max = 1;
  if (*p == '+')
    it->max = CS_SIMPLE_UNBOUNDED, p++;
  else if (*p == '*')
    it->min = 0, it->max = CS_SIMPLE_UNBOUNDED, p++;
  else if (*p == '?')
    it->min = 0, p++;
  else if (*p == '{') {
    const char *q = parse_number(p + 1, &it->min);
    if (!q)
      return NULL; /* '{' that is no quantifier is a literal to PCRE2: refuse rather than guess */
    if (*q == '}') {
      it->max = it->min;
    } else if (*q == ',' && q[1] == '}') {
      it->max = CS_SIMPLE_UNBOUNDED, q++;
    } else if (*q == ',') {
      q = parse_number(q + 1, &it->max);
      if (!q || *q != '}' || it->max < it->min)
        return NULL;
    } else {
      return NULL;
    }
    p = q + 1;
  } else {
    return p;
  }
  if (*p == '?' || *p == '+' || *p == '*' || *p == '{')
    return NULL; /* lazy, possessive, or a quantifier of a quantifier */
  return p;
}

/* Greedy matching is exact when what may follow a variable run (the items up to and including the
 * next mandatory one) shares no character with the run. */
static bool greedy_is_exact(const cs_simple_pattern *sp) {
  for (uint32_t i = 0; i < sp->n; i++) {
    const cs_simple_item *it = &sp->item[i];
    if (it->min == it->max)
      continue;
    for (uint32_t j = i + 1; j < sp->n; j++) {
      const cs_simple_item *next = &sp->item[j];
      if ((it->set[0] & next->set[0]) || (it->set[1] & next->set[1]))
        return false;
      if (next->min > 0)
        break;
    }
  }
  return true;
}

bool cs_simple_pattern_compile(const char *pattern, cs_simple_pattern *out) {
  cs_simple_pattern sp;
  memset(&sp, 0, sizeof sp);
  if (!pattern || pattern[0] != '^')
    return false;
  const char *p = pattern + 1;
  for (;;) {
    unsigned char c = (unsigned char)*p;
    if (c == '$')
      break;
    if (!c || sp.n == CS_SIMPLE_MAX_ITEMS)
      return false; /* not anchored at the end, or too long */
    cs_simple_item *it = &sp.item[sp.n++];
    if (c == '[') {
      p = parse_class(p + 1, it);
    } else if (c == '\\') {
      unsigned char e = (unsigned char)p[1];
      if (!printable(e) || alnum(e))
        return false;
      set_add(it, e);
      p += 2;
    } else if (printable(c) && !meta(c)) {
      set_add(it, c);
      p++;
    } else {
      return false; /* '.', groups, alternation, a stray quantifier, space, non-ASCII */
    }
    if (!p || !(p = parse_quantifier(p, it)))
      return false;
  }
  if (p[1] != 0 || !greedy_is_exact(&sp))
    return false; /* '$' must be the last character */
  for (uint32_t i = 0; i < sp.n; i++)
    for (unsigned ch = 0; ch < 128; ch++)
      if (set_has(sp.item[i].set, (unsigned char)ch))
        sp.member[ch] |= (uint16_t)(1u << i);
  for (; sp.nprefix < sp.n; sp.nprefix++) {
    const cs_simple_item *it = &sp.item[sp.nprefix];
    uint64_t lo = it->set[0], hi = it->set[1];
    if (it->min != 1 || it->max != 1 || (lo && hi) || !(lo | hi) || ((lo | hi) & ((lo | hi) - 1)))
      break; /* not exactly one byte, exactly once */
    unsigned c = 0;
    while (!set_has(it->set, (unsigned char)c))
      c++;
    sp.prefix[sp.nprefix] = (char)c;
  }
  *out = sp;
  return true;
}

bool cs_simple_pattern_match(const cs_simple_pattern *p, const char *s, size_t n) {
  if (p->nprefix && (n < p->nprefix || memcmp(s, p->prefix, p->nprefix) != 0))
    return false;
  size_t pos = p->nprefix;
  for (uint32_t i = p->nprefix; i < p->n; i++) {
    const cs_simple_item *it = &p->item[i];
    size_t start = pos, stop = n - pos > it->max ? pos + it->max : n; /* the run may not pass `stop` */
    unsigned bit = 1u << i;
    /* Eight bytes a test while all match (independent loads, one branch), then byte by byte: the
     * greedy run ends at the same place either way. Most IDs checked are 20 to 64 bytes. */
    const unsigned char *u = (const unsigned char *)s;
    while (stop - pos >= 8 &&
           (p->member[u[pos]] & p->member[u[pos + 1]] & p->member[u[pos + 2]] & p->member[u[pos + 3]] &
            p->member[u[pos + 4]] & p->member[u[pos + 5]] & p->member[u[pos + 6]] & p->member[u[pos + 7]] & bit))
      pos += 8;
    while (pos < stop && (p->member[u[pos]] & bit))
      pos++;
    if (pos - start < it->min)
      return false;
  }
  return pos == n;
}
