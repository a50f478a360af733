/* harness/campaign.c: fuzz campaigns on the runner, the window rule for shrinking, findings,
 * their selection and merging, and the results directory (harness/campaign.h). */
#include "harness/campaign.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"
#include "core/fs.h"
#include "core/hash.h"
#include "core/history_json.h"
#include "harness/cli.h"
#include "harness/corpus.h"
#include "harness/session.h"

uint32_t cs_campaign_window(uint64_t case_index) {
  if (case_index == UINT64_MAX)
    return CS_WINDOW_CORPUS;
  uint32_t w = 0;
  for (uint64_t x = case_index; x; x >>= 2)
    w++;
  return w; /* 0 -> 0, 1..3 -> 1, 4..15 -> 2, ... */
}

static char *dup_s(const char *s) {
  return s ? cs_xstrdup(s) : NULL;
}

static cs_finding *add_finding(cs_findings *f) {
  if (f->n == f->cap) {
    f->cap = f->cap ? f->cap * 2 : 16;
    f->f = cs_xrealloc_array(f->f, f->cap, sizeof *f->f);
  }
  cs_finding *x = &f->f[f->n++];
  memset(x, 0, sizeof *x);
  return x;
}

static void free_finding(cs_finding *x) {
  free(x->token);
  free(x->message);
  free(x->history_json);
  free(x->answer_json);
}

static void signature_over(const cs_finding *x, const char *history_json, char out[17]) {
  cs_hasher *hs = cs_hasher_new();
  uint8_t d[32];
  if (!hs)
    cs_out_of_memory();
  cs_hasher_begin(hs);
  cs_hasher_add(hs, x->property, strlen(x->property) + 1);
  cs_hasher_add(hs, x->target, strlen(x->target) + 1);
  if (history_json)
    cs_hasher_add(hs, history_json, strlen(history_json));
  cs_hasher_finish(hs, d);
  cs_hasher_free(hs);
  cs_hex(d, 8, out);
}

static void signature_of(cs_finding *x) {
  signature_over(x, x->history_json, x->signature);
}

/* --- settings ---------------------------------------------------------------------------------- */

static uint64_t property_bit(const cs_property *p) {
  size_t n;
  return 1ull << (p - cs_properties(&n));
}

/* A heap copy of a NULL-terminated argv (NULL for NULL). */
static char **dup_argv(char *const *argv) {
  if (!argv)
    return NULL;
  size_t n = 0;
  while (argv[n])
    n++;
  char **out = cs_xcalloc(n + 1, sizeof *out);
  for (size_t i = 0; i < n; i++)
    out[i] = cs_xstrdup(argv[i]);
  return out;
}

static void free_argv(char **argv) {
  for (char **p = argv; p && *p; p++)
    free(*p);
  free(argv);
}

static void settings_free(cs_findings_settings *s) {
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    free(s->rules[t].pattern);
    free(s->rules[t].server_pattern);
  }
  free_argv(s->impl_cmd);
  memset(s, 0, sizeof *s);
}

static void settings_copy(cs_findings_settings *to, const cs_findings_settings *from) {
  settings_free(to);
  *to = *from;
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    to->rules[t].pattern = dup_s(from->rules[t].pattern);
    to->rules[t].server_pattern = dup_s(from->rules[t].server_pattern);
  }
  to->impl_cmd = dup_argv(from->impl_cmd);
}

void cs_findings_set_settings(cs_findings *f, const cs_campaign_config *cfg, const cs_ruleset *rs) {
  cs_findings_settings *s = &f->settings;
  settings_free(s);
  s->max_id_len = cfg->run.gen.max_id_len ? cfg->run.gen.max_id_len : CS_GEN_DEFAULT_MAX_ID_LEN;
  s->targets = cfg->run.targets ? cfg->run.targets : (1u << CS_TARGET_COUNT) - 1;
  size_t np;
  const cs_property *props = cs_properties(&np);
  for (size_t i = 0; i < np; i++)
    if (cs_run_selects(&cfg->run, props[i].name))
      s->properties |= property_bit(&props[i]);
  s->strict = cfg->strict;
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    const cs_rule *r = cs_ruleset_rule(rs, (cs_target_id)t);
    s->rules[t] = (cs_findings_rule){dup_s(r->pattern), dup_s(r->server_pattern), r->min_len, r->max_len};
  }
  s->impl_cmd = dup_argv(cfg->impl_cmd);
  s->deadline_ms = !cfg->impl_cmd ? 0 : cfg->deadline_ms ? cfg->deadline_ms : CS_DEFAULT_DEADLINE_MS;
}

static bool same_s(const char *a, const char *b) {
  return a == b || (a && b && !strcmp(a, b));
}

/* A pattern as a message shows it: quoted and cut, or null. */
static void show_pattern(const char *p, char *out, size_t n) {
  if (p)
    snprintf(out, n, "'%s'", cs_err_excerpt(p).s);
  else
    snprintf(out, n, "null");
}

/* The names of the bits set in `bits` (target names, or property names when `props`), "all" when
 * every one is set. */
static void show_set(uint64_t bits, bool props, char *out, size_t n) {
  size_t count = CS_TARGET_COUNT, o = 0;
  const cs_property *table = props ? cs_properties(&count) : NULL;
  uint64_t all = count >= 64 ? UINT64_MAX : (1ull << count) - 1;
  if (bits == all) {
    snprintf(out, n, "all");
    return;
  }
  out[0] = 0;
  for (size_t i = 0; i < count && o < n; i++)
    if (bits >> i & 1u)
      o += (size_t)snprintf(out + o, n - o, "%s%s", o ? " " : "", props ? table[i].name : cs_target_label((int)i));
}

/* The first member of the rules in which a and b differ, into *d; false when none does. */
static bool rules_differ(const cs_findings_settings *a, const cs_findings_settings *b, cs_findings_difference *d) {
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    const cs_findings_rule *x = &a->rules[t], *y = &b->rules[t];
    const char *key = NULL;
    if (!same_s(x->pattern, y->pattern)) {
      key = "pattern";
      show_pattern(x->pattern, d->a, sizeof d->a);
      show_pattern(y->pattern, d->b, sizeof d->b);
    } else if (x->min_len != y->min_len || x->max_len != y->max_len) {
      bool min = x->min_len != y->min_len;
      key = min ? "min_len" : "max_len";
      snprintf(d->a, sizeof d->a, "%u", min ? x->min_len : x->max_len);
      snprintf(d->b, sizeof d->b, "%u", min ? y->min_len : y->max_len);
    } else if (!same_s(x->server_pattern, y->server_pattern)) {
      key = "server_pattern";
      show_pattern(x->server_pattern, d->a, sizeof d->a);
      show_pattern(y->server_pattern, d->b, sizeof d->b);
    }
    if (key) {
      snprintf(d->name, sizeof d->name, "rules.%s.%s", cs_target_label(t), key);
      return true;
    }
  }
  return false;
}

/* How a message shows an implementation's kind: its --impl-cmd argv (shell words, cut), or "null
 * (a built-in)". */
static void show_argv(char *const *argv, char *out, size_t n) {
  if (!argv) {
    snprintf(out, n, "null (a built-in)");
    return;
  }
  cs_buf b = {0};
  for (char *const *p = argv; *p; p++) {
    if (p != argv)
      cs_buf_putc(&b, ' ');
    cs_shell_arg(&b, *p);
  }
  snprintf(out, n, "%s", cs_err_excerpt(b.data ? b.data : "").s);
  cs_buf_free(&b);
}

/* The settings of two results that must agree to be merged, in the order a message names the first
 * that differs: whether they differ, and how a message shows one result's value. */
typedef struct {
  const char *name; /* as in summary.json */
  bool (*differ)(const cs_findings *a, const cs_findings *b);
  void (*show)(const cs_findings *f, char *out, size_t n);
} findings_setting;

static bool differ_impl(const cs_findings *a, const cs_findings *b) {
  return strcmp(a->impl, b->impl) != 0;
}
static void show_impl(const cs_findings *f, char *out, size_t n) {
  snprintf(out, n, "'%s'", cs_err_excerpt(f->impl).s);
}
/* A built-in and an external program differ; two argvs do not (paths differ between machines). */
static bool differ_impl_cmd(const cs_findings *a, const cs_findings *b) {
  return !a->settings.impl_cmd != !b->settings.impl_cmd;
}
static void show_impl_cmd(const cs_findings *f, char *out, size_t n) {
  show_argv(f->settings.impl_cmd, out, n);
}
static bool differ_deadline(const cs_findings *a, const cs_findings *b) {
  return a->settings.deadline_ms != b->settings.deadline_ms;
}
static void show_deadline(const cs_findings *f, char *out, size_t n) {
  snprintf(out, n, "%u", f->settings.deadline_ms);
}
static bool differ_seed(const cs_findings *a, const cs_findings *b) {
  return a->seed != b->seed;
}
static void show_seed(const cs_findings *f, char *out, size_t n) {
  snprintf(out, n, "%llu", (unsigned long long)f->seed);
}
static bool differ_max_id_len(const cs_findings *a, const cs_findings *b) {
  return a->settings.max_id_len != b->settings.max_id_len;
}
static void show_max_id_len(const cs_findings *f, char *out, size_t n) {
  snprintf(out, n, "%u", f->settings.max_id_len);
}
static bool differ_targets(const cs_findings *a, const cs_findings *b) {
  return a->settings.targets != b->settings.targets;
}
static void show_targets(const cs_findings *f, char *out, size_t n) {
  show_set(f->settings.targets, false, out, n);
}
static bool differ_properties(const cs_findings *a, const cs_findings *b) {
  return a->settings.properties != b->settings.properties;
}
static void show_properties(const cs_findings *f, char *out, size_t n) {
  show_set(f->settings.properties, true, out, n);
}
static bool differ_strict(const cs_findings *a, const cs_findings *b) {
  return a->settings.strict != b->settings.strict;
}
static void show_strict(const cs_findings *f, char *out, size_t n) {
  snprintf(out, n, "%s", f->settings.strict ? "true" : "false");
}

static const findings_setting findings_settings[] = {
    {"impl", differ_impl, show_impl},
    {"impl_cmd", differ_impl_cmd, show_impl_cmd},
    {"deadline_ms", differ_deadline, show_deadline},
    {"seed", differ_seed, show_seed},
    {"max_id_len", differ_max_id_len, show_max_id_len},
    {"targets", differ_targets, show_targets},
    {"properties", differ_properties, show_properties},
    {"strict", differ_strict, show_strict},
};

bool cs_findings_differ(const cs_findings *a, const cs_findings *b, cs_findings_difference *d) {
  for (size_t i = 0; i < sizeof findings_settings / sizeof findings_settings[0]; i++) {
    const findings_setting *s = &findings_settings[i];
    if (s->differ(a, b)) {
      snprintf(d->name, sizeof d->name, "%s", s->name);
      s->show(a, d->a, sizeof d->a);
      s->show(b, d->b, sizeof d->b);
      return true;
    }
  }
  return rules_differ(&a->settings, &b->settings, d);
}

static size_t settings_overrides(const cs_findings_settings *s, cs_buf *out) {
  size_t n = 0;
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    const cs_findings_rule *fr = &s->rules[t];
    cs_rule r = cs_target_get((cs_target_id)t)->rule; /* what a summary does not keep stays the default */
    r.pattern = fr->pattern;
    r.server_pattern = fr->server_pattern;
    r.min_len = fr->min_len;
    r.max_len = fr->max_len;
    n += cs_rule_overrides((cs_target_id)t, &r, out);
  }
  return n;
}

size_t cs_findings_rule_overrides(const cs_findings *f, cs_buf *out) {
  return settings_overrides(&f->settings, out);
}

/* --- the campaign ------------------------------------------------------------------------------- */

typedef struct {
  const cs_property *prop;
  int target;
  uint64_t windows_lo; /* bit w: a failure was taken in window w (w < 64) */
} taken_cell;

typedef struct {
  const cs_campaign_config *cfg;
  cs_findings *out;
  taken_cell *cells;
  size_t ncells, cap;
  uint64_t failing;
} campaign;

static bool counts(const campaign *c, const cs_property *p) {
  return c->cfg->strict || p->tier == CS_TIER_REQUIRED;
}

static bool want(void *user, const struct cs_outcome *cell, uint64_t case_index, const char *message) {
  campaign *c = user;
  if (!counts(c, cell->prop))
    return false;
  c->failing++;
  if (case_index == UINT64_MAX)
    return true;
  taken_cell *tc = NULL;
  for (size_t i = 0; i < c->ncells && !tc; i++)
    if (c->cells[i].prop == cell->prop && c->cells[i].target == cell->target)
      tc = &c->cells[i];
  if (!tc) {
    if (c->ncells == c->cap) {
      c->cap = c->cap ? c->cap * 2 : 32;
      c->cells = cs_xrealloc_array(c->cells, c->cap, sizeof *c->cells);
    }
    tc = &c->cells[c->ncells++];
    *tc = (taken_cell){cell->prop, cell->target, 0};
  }
  uint32_t w = cs_campaign_window(case_index); /* at most 33 for 64-bit indices */
  if (tc->windows_lo >> w & 1u)
    return false;
  tc->windows_lo |= 1ull << w;
  return true;
}

static void found(void *user, const struct cs_outcome *oc) {
  campaign *c = user;
  cs_finding *x = add_finding(c->out);
  snprintf(x->property, sizeof x->property, "%s", oc->prop->name);
  snprintf(x->target, sizeof x->target, "%s", cs_target_label(oc->target));
  x->case_index = oc->case_index;
  x->window = cs_campaign_window(oc->case_index);
  if (oc->choices) {
    cs_buf tok = {0};
    cs_choices_token(oc->choices, oc->nchoices, &tok);
    x->token = dup_s(tok.data);
    cs_buf_free(&tok);
  }
  x->message = dup_s(oc->message);
  x->history_json = dup_s(oc->history_json ? oc->history_json : "null");
  x->answer_json = dup_s(oc->answer_json);
  x->planted_twin = oc->literal_twin;
  signature_of(x);
  if (c->cfg->on_finding)
    c->cfg->on_finding(c->cfg->user, x);
}

static void progressed(void *user, uint64_t cases, uint64_t failures, const cs_outcome *cells, size_t ncells,
                       double elapsed) {
  campaign *c = user;
  (void)failures;
  (void)cells;
  (void)ncells;
  if (c->cfg->on_progress)
    c->cfg->on_progress(c->cfg->user, cases, c->failing, elapsed);
}

/* As run's "nothing to check": protocol.answer alone is no check unless --property named it. */
static bool checks_nothing(const cs_campaign_config *cfg, const cs_run_result *res) {
  for (size_t i = 0; i < res->ncells; i++)
    if (res->cells[i].applicable && (cfg->answer_named || strcmp(res->cells[i].prop->name, CS_PROPERTY_ANSWER)))
      return false;
  return true;
}

int cs_campaign_run(cs_impl *impl, cs_ruleset *rs, const cs_campaign_config *cfg, cs_findings *out, cs_err *err) {
  campaign c = {cfg, out, NULL, 0, 0, 0};
  cs_run_config rc = cfg->run;
  rc.want_failure = want;
  rc.on_failure = found;
  rc.failure_user = &c;
  rc.progress = progressed;
  rc.progress_user = &c;
  rc.stop_on_first = false;
  cs_run_result res;
  int status = cs_run_impl(impl, rs, &rc, &res, err);
  snprintf(out->impl, sizeof out->impl, "%s", impl->info.name ? impl->info.name : "external");
  out->seed = rc.seed;
  cs_findings_set_settings(out, cfg, rs);
  out->cases += res.cases;
  out->cases_cut += res.cases_cut;
  out->given_up |= res.given_up;
  out->interrupted |= res.interrupted;
  out->seconds = res.seconds;
  out->shrink_seconds = res.shrink_seconds;
  for (size_t i = 0; i < res.ncells && !out->undecided[0]; i++)
    if (res.cells[i].undecided)
      cs_outcome_undecided_message(&res.cells[i], out->undecided, sizeof out->undecided);
  out->checks_nothing = status == 0 && checks_nothing(cfg, &res);
  cs_findings_set_shard(out, rc.shard_i, rc.shard_n);
  cs_run_result_free(&res);
  free(c.cells);
  return status;
}

/* --- selecting and merging ---------------------------------------------------------------------- */

static int by_key(const void *x, const void *y) {
  const cs_finding *a = x, *b = y;
  int d = strcmp(a->property, b->property);
  if (!d)
    d = strcmp(a->target, b->target);
  if (!d)
    d = a->window < b->window ? -1 : a->window > b->window;
  if (!d)
    d = a->case_index < b->case_index ? -1 : a->case_index > b->case_index;
  if (!d)
    d = strcmp(a->signature, b->signature);
  return d;
}

void cs_findings_select(cs_findings *f) {
  if (f->n > 1)
    qsort(f->f, f->n, sizeof *f->f, by_key);
  size_t kept = 0;
  for (size_t i = 0; i < f->n; i++) {
    cs_finding *x = &f->f[i];
    bool dup = false;
    if (kept) {
      const cs_finding *prev = &f->f[kept - 1];
      bool same_key =
          !strcmp(prev->property, x->property) && !strcmp(prev->target, x->target) && prev->window == x->window;
      /* generated: the smallest index of the window; corpus (sorted by signature): one per signature */
      dup = same_key && (x->window != CS_WINDOW_CORPUS || !strcmp(prev->signature, x->signature));
    }
    if (dup) {
      free_finding(x);
      continue;
    }
    f->f[kept++] = *x;
  }
  f->n = kept;
}

void cs_findings_set_shard(cs_findings *f, uint64_t i, uint64_t n) {
  char one[48];
  if (n)
    snprintf(one, sizeof one, "%llu/%llu", (unsigned long long)i, (unsigned long long)n);
  else
    snprintf(one, sizeof one, "all");
  free(f->parts);
  f->parts = cs_xstrdup(one);
}

/* One part of a "parts" list: "all" (as 0/1) or "I/N" with 0 <= I < N, both decimal. */
static bool one_part(const char *p, size_t len, unsigned long long *i, unsigned long long *n) {
  if (len == 3 && !strncmp(p, "all", 3)) {
    *i = 0, *n = 1;
    return true;
  }
  /* Digits only: %llu would also take " 1", "+1" and wrap "-1", none of which a shard is. */
  const char *slash = memchr(p, '/', len);
  size_t li = slash ? (size_t)(slash - p) : 0, ln = slash ? len - li - 1 : 0;
  if (!li || !ln || li > 19 || ln > 19 || strspn(p, "0123456789") != li || strspn(slash + 1, "0123456789") < ln)
    return false;
  *i = strtoull(p, NULL, 10);
  *n = strtoull(slash + 1, NULL, 10);
  return *n > 0 && *i < *n;
}

typedef struct {
  unsigned long long i, n;
  const char *text; /* inside the list it was read from */
  int len;
} part;

/* The parts of a list, in order (heap, *np of them; NULL when none); `valid` (may be NULL) is set
 * false when a part does not read or the separators are not single spaces, and such a part is left out. */
static part *parts_read(const char *s, size_t *np, bool *valid) {
  part *out = NULL;
  size_t n = 0, cap = 0;
  bool ok = s && *s;
  for (const char *p = s ? s : ""; *p;) {
    size_t len = strcspn(p, " "); /* 0 at a leading or a second space: no part */
    part x = {0, 0, p, (int)(len > 100 ? 100 : len)};
    if (!one_part(p, len, &x.i, &x.n)) {
      ok = false;
    } else {
      if (n == cap) {
        cap = cap ? cap * 2 : 8;
        out = cs_xrealloc_array(out, cap, sizeof *out);
      }
      out[n++] = x;
    }
    p += len;
    if (*p == ' ' && !*++p)
      ok = false; /* a trailing space */
  }
  if (valid)
    *valid = ok;
  *np = n;
  return out;
}

/* Shards I/N and J/M share a case index exactly when I = J modulo gcd(N, M); "all" shares with every part. */
static bool share(const part *x, const part *y) {
  unsigned long long g = x->n, h = y->n;
  while (h) {
    unsigned long long t = g % h;
    g = h, h = t;
  }
  return x->i % g == y->i % g;
}

/* True, with the first two parts that share a case named in `why`, when parts lists x and y share
 * one (y NULL: two parts of x do). */
static bool parts_overlap(const char *x, const char *y, char *why, size_t cap) {
  size_t nx, ny;
  part *px = parts_read(x, &nx, NULL), *py = y ? parts_read(y, &ny, NULL) : px;
  bool found = false;
  if (!y)
    ny = nx;
  for (size_t a = 0; a < nx && !found; a++)
    for (size_t b = y ? 0 : a + 1; b < ny && !found; b++)
      if ((found = share(&px[a], &py[b])))
        snprintf(why, cap, "%.*s and %.*s", px[a].len, px[a].text, py[b].len, py[b].text);
  if (y)
    free(py);
  free(px);
  return found;
}

/* The most parts a list holds: every pair is checked for a shared case, and at this many that
 * takes about a second (a hand-made list of 50,000 took 24 s). Sixteen merges of 1024 shards fit. */
#define MAX_PARTS 16384

static size_t count_parts(const char *s) {
  size_t n = s && *s ? 1 : 0;
  for (const char *p = s ? s : ""; *p; p++)
    n += *p == ' ';
  return n;
}

/* True when `s` is what a summary's "parts" holds: one or more parts, separated by single spaces,
 * no two sharing a case, at most MAX_PARTS; `why` says what is wrong otherwise. */
static bool parts_valid(const char *s, char *why, size_t cap) {
  size_t n = count_parts(s);
  bool ok;
  if (n > MAX_PARTS) {
    snprintf(why, cap, "parts lists %zu shards, more than the %d a summary may hold", n, MAX_PARTS);
    return false;
  }
  free(parts_read(s, &n, &ok));
  if (!ok) {
    snprintf(why, cap, "parts is not \"all\" or a list of shards I/N");
    return false;
  }
  char both[240];
  if (parts_overlap(s, NULL, both, sizeof both)) {
    snprintf(why, cap, "parts %s share cases", both);
    return false;
  }
  return true;
}

int cs_findings_merge(cs_findings *into, const cs_findings *from, cs_err *err) {
  char both[240];
  size_t nparts = (into->impl[0] ? count_parts(into->parts) : 0) + count_parts(from->parts);
  if (nparts > MAX_PARTS)
    return cs_err_set(err, "cannot merge: the parts would list %zu shards, more than the %d a summary may hold", nparts,
                      MAX_PARTS);
  if (into->impl[0] && parts_overlap(into->parts, from->parts ? from->parts : "", both, sizeof both))
    return cs_err_set(err, "cannot merge: parts %s share cases (give each shard once)", both);
  cs_findings_difference d;
  if (into->impl[0] && cs_findings_differ(from, into, &d))
    return cs_err_set(err, "cannot merge results of %s %s with results of %s %s", d.name, d.a, d.name, d.b);
  /* A count that wraps would claim fewer cases than were run. */
  if (from->cases > UINT64_MAX - into->cases || from->cases_cut > UINT64_MAX - into->cases_cut)
    return cs_err_set(err, "cannot merge: the parts' cases add up to more than %llu", (unsigned long long)UINT64_MAX);
  if (!into->impl[0]) {
    snprintf(into->impl, sizeof into->impl, "%s", from->impl);
    into->seed = from->seed;
    settings_copy(&into->settings, &from->settings);
  }
  into->cases += from->cases;
  into->cases_cut += from->cases_cut;
  into->given_up |= from->given_up;
  into->interrupted |= from->interrupted;
  into->checks_nothing |= from->checks_nothing;
  if (!into->undecided[0])
    memcpy(into->undecided, from->undecided, sizeof into->undecided);
  if (from->seconds > into->seconds)
    into->seconds = from->seconds;
  if (from->shrink_seconds > into->shrink_seconds)
    into->shrink_seconds = from->shrink_seconds;
  /* Parts grow with every shard merged: a list cut short would lose the shards that let the next
   * merge see a shard given twice, and would not read back. */
  if (from->parts && *from->parts) {
    size_t used = into->parts ? strlen(into->parts) : 0, add = strlen(from->parts);
    into->parts = cs_xrealloc_array(into->parts, used + add + 2, 1);
    if (used)
      into->parts[used++] = ' ';
    memcpy(into->parts + used, from->parts, add + 1);
  }
  for (size_t i = 0; i < from->n; i++) {
    const cs_finding *s = &from->f[i];
    cs_finding *x = add_finding(into);
    *x = *s;
    x->token = dup_s(s->token);
    x->message = dup_s(s->message);
    x->history_json = dup_s(s->history_json);
    x->answer_json = dup_s(s->answer_json);
  }
  cs_findings_select(into);
  return 0;
}

size_t cs_findings_distinct(const cs_findings *f, size_t *idx) {
  size_t n = 0;
  for (size_t i = 0; i < f->n; i++) {
    bool seen = false;
    for (size_t k = 0; k < n && !seen; k++) {
      const cs_finding *a = &f->f[idx[k]], *b = &f->f[i];
      seen = !strcmp(a->signature, b->signature) && !strcmp(a->property, b->property) && !strcmp(a->target, b->target);
    }
    if (!seen)
      idx[n++] = i;
  }
  return n;
}

void cs_findings_free(cs_findings *f) {
  for (size_t i = 0; i < f->n; i++)
    free_finding(&f->f[i]);
  free(f->f);
  free(f->parts);
  settings_free(&f->settings);
  memset(f, 0, sizeof *f);
}

/* --- the results directory ---------------------------------------------------------------------- */

/* summary.json:
 * {"callsign_fuzz": 2, "impl": NAME, "seed": "N" (a decimal string, as in every report),
 *  "parts": "all" | "I/N ...", "cases": N, "cases_cut": N (cut off by --time, not judged; optional
 *  when read), "given_up": [request kinds no longer sent, e.g. "emit anthropic"] (optional when
 *  read), "interrupted": true when SIGINT or SIGTERM stopped it early (optional when read),
 *  "checks_nothing": true when no selected property had an operation to check (optional when
 *  read), "not_judged": why a rule gave no verdict, so a property went unjudged, or null (optional
 *  when read), "seconds": S, "shrink_seconds": S (of them, shrinking; optional when read),
 *  the settings (cs_findings_settings): "max_id_len": N, "targets": [names], "properties": [names],
 *  "strict": B, "rules": {TARGET: {"pattern": P or null, "min_len": N, "max_len": N,
 *  "server_pattern": P or null}, one per target}, "impl_cmd": [argv] or null (a built-in),
 *  "deadline_ms": N or null (a built-in),
 *  "distinct": N,
 *  "findings": [{"property", "target", "window", "case_index" (null: corpus), "signature",
 *                "token" (null: literal case), "message", "history" (object), "answer" (object or
 *                null), "distinct" (false for a finding whose signature an earlier one has)}]}
 * Version 1 lacked the settings: such a summary is refused, as nothing says which parts share a
 * case space. */
#define CS_FUZZ_SUMMARY_VERSION 2
char *cs_findings_summary_path(const char *dir) {
  cs_buf path = {0};
  cs_buf_printf(&path, "%s/summary.json", dir);
  return path.data;
}

/* True when settings are those of a campaign (cs_findings_set_settings made them), as a summary
 * must hold them. */
static bool settings_set(const cs_findings_settings *s) {
  size_t np;
  cs_properties(&np);
  return s->max_id_len >= 1 && s->max_id_len <= CS_GEN_MAX_ID_LEN_LIMIT && s->targets &&
         !(s->targets >> CS_TARGET_COUNT) && s->properties && (np >= 64 || !(s->properties >> np)) &&
         (s->impl_cmd ? s->impl_cmd[0] && s->deadline_ms >= 1 && s->deadline_ms <= CS_MAX_DEADLINE_MS
                      : !s->deadline_ms);
}

static void add_pattern(cJSON *o, const char *key, const char *pattern) {
  if (pattern)
    cJSON_AddStringToObject(o, key, pattern);
  else
    cJSON_AddNullToObject(o, key);
}

/* The settings' members of summary.json: max_id_len, targets, properties, strict, rules, impl_cmd,
 * deadline_ms. */
static void write_settings(cJSON *root, const cs_findings_settings *s) {
  cJSON_AddNumberToObject(root, "max_id_len", s->max_id_len);
  cJSON *targets = cJSON_AddArrayToObject(root, "targets");
  for (int t = 0; t < CS_TARGET_COUNT; t++)
    if (s->targets >> t & 1u)
      cJSON_AddItemToArray(targets, cJSON_CreateString(cs_target_label(t)));
  cJSON *props = cJSON_AddArrayToObject(root, "properties");
  size_t np;
  const cs_property *table = cs_properties(&np);
  for (size_t i = 0; i < np; i++)
    if (s->properties >> i & 1u)
      cJSON_AddItemToArray(props, cJSON_CreateString(table[i].name));
  cJSON_AddBoolToObject(root, "strict", s->strict);
  cJSON *rules = cJSON_AddObjectToObject(root, "rules");
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    const cs_findings_rule *r = &s->rules[t];
    cJSON *o = cJSON_AddObjectToObject(rules, cs_target_label(t));
    add_pattern(o, "pattern", r->pattern);
    cJSON_AddNumberToObject(o, "min_len", r->min_len);
    cJSON_AddNumberToObject(o, "max_len", r->max_len);
    add_pattern(o, "server_pattern", r->server_pattern);
  }
  if (!s->impl_cmd) {
    cJSON_AddNullToObject(root, "impl_cmd");
    cJSON_AddNullToObject(root, "deadline_ms");
    return;
  }
  cJSON *argv = cJSON_AddArrayToObject(root, "impl_cmd");
  for (char **p = s->impl_cmd; *p; p++)
    cJSON_AddItemToArray(argv, cJSON_CreateString(*p));
  cJSON_AddNumberToObject(root, "deadline_ms", s->deadline_ms);
}

int cs_findings_write(const char *dir, const cs_findings *f, bool with_cases, cs_err *err) {
  char why[300];
  /* A summary callsign would refuse to read is not written. */
  if (!parts_valid(f->parts, why, sizeof why))
    return cs_err_set(err, "%s: cannot write a summary whose %s", dir, why);
  if (!settings_set(&f->settings))
    return cs_err_set(err, "%s: cannot write a summary without the settings of its campaign", dir);
  if (cs_mkdir_p(dir, NULL, err))
    return -1;
  size_t *idx = cs_xcalloc(f->n + 1, sizeof *idx);
  bool *first = cs_xcalloc(f->n + 1, sizeof *first);
  size_t nd = cs_findings_distinct(f, idx);
  for (size_t i = 0; i < nd; i++)
    first[idx[i]] = true;
  cJSON *root = cJSON_CreateObject(), *arr = cJSON_CreateArray();
  cJSON_AddNumberToObject(root, "callsign_fuzz", CS_FUZZ_SUMMARY_VERSION);
  cJSON_AddStringToObject(root, "impl", f->impl);
  char seed[32];
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)f->seed);
  cJSON_AddStringToObject(root, "seed", seed); /* a JSON number above 2^53 is not read back exactly */
  cJSON_AddStringToObject(root, "parts", f->parts);
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)f->cases);
  cJSON_AddRawToObject(root, "cases", seed);
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)f->cases_cut);
  cJSON_AddRawToObject(root, "cases_cut", seed);
  char secs[48]; /* three decimals, as the reports write durations */
  snprintf(secs, sizeof secs, "%.3f", f->seconds >= 0 && f->seconds < 1e15 ? f->seconds : 0);
  cJSON_AddRawToObject(root, "seconds", secs);
  snprintf(secs, sizeof secs, "%.3f", f->shrink_seconds >= 0 && f->shrink_seconds < 1e15 ? f->shrink_seconds : 0);
  cJSON_AddRawToObject(root, "shrink_seconds", secs);
  cJSON_AddBoolToObject(root, "interrupted", f->interrupted);
  cJSON_AddBoolToObject(root, "checks_nothing", f->checks_nothing);
  if (f->undecided[0])
    cJSON_AddStringToObject(root, "not_judged", f->undecided);
  else
    cJSON_AddNullToObject(root, "not_judged");
  cJSON *gu = cJSON_AddArrayToObject(root, "given_up");
  for (unsigned k = 0; k < CS_KIND_COUNT; k++)
    if (f->given_up >> k & 1u) {
      char name[64];
      cs_request_kind_name(k, name, sizeof name);
      cJSON_AddItemToArray(gu, cJSON_CreateString(name));
    }
  write_settings(root, &f->settings);
  cJSON_AddNumberToObject(root, "distinct", (double)nd);
  for (size_t i = 0; i < f->n; i++) {
    const cs_finding *x = &f->f[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "property", x->property);
    cJSON_AddStringToObject(o, "target", x->target);
    cJSON_AddNumberToObject(o, "window", x->window == CS_WINDOW_CORPUS ? -1 : (double)x->window);
    if (x->case_index == UINT64_MAX) {
      cJSON_AddNullToObject(o, "case_index");
    } else {
      char ci[32];
      snprintf(ci, sizeof ci, "%llu", (unsigned long long)x->case_index);
      cJSON_AddRawToObject(o, "case_index", ci);
    }
    cJSON_AddStringToObject(o, "signature", x->signature);
    if (x->token)
      cJSON_AddStringToObject(o, "token", x->token);
    else
      cJSON_AddNullToObject(o, "token");
    cJSON_AddStringToObject(o, "message", x->message ? x->message : "");
    if (!x->token) { /* a literal case: its planted twin goes with it (null: none) */
      char tw[CS_TWIN_JSON];
      cs_literal_twin_json(&x->planted_twin, tw);
      cJSON_AddRawToObject(o, "planted_twin", tw);
    }
    cJSON_AddRawToObject(o, "history", x->history_json ? x->history_json : "null");
    cJSON_AddRawToObject(o, "answer", x->answer_json ? x->answer_json : "null");
    cJSON_AddBoolToObject(o, "distinct", first[i]);
    cJSON_AddItemToArray(arr, o);
  }
  cJSON_AddItemToObject(root, "findings", arr);
  char *path = cs_findings_summary_path(dir);
  int rc = cs_write_json(path, root, err);
  free(path);
  cJSON_Delete(root);
  free(idx);
  free(first);
  if (rc == 0 && with_cases) {
    cs_buf cases = {0};
    cs_buf_printf(&cases, "%s/cases", dir);
    size_t unsaved = 0;
    cs_findings_save_corpus(f, cases.data, &unsaved, err);
    rc = unsaved ? -1 : 0;
    cs_buf_free(&cases);
  }
  return rc;
}

static const char *str_or(const cJSON *o, const char *k, const char *dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : dflt;
}

/* A decimal string (exact over 64 bits), or a number that is a whole one up to 2^53: cJSON holds
 * numbers as doubles, so a larger one may already have lost digits. */
static int u64_of(const cJSON *v, uint64_t *out) {
  if (cJSON_IsString(v)) {
    const char *s = v->valuestring;
    char *end = NULL;
    errno = 0;
    unsigned long long x = s[0] >= '0' && s[0] <= '9' ? strtoull(s, &end, 10) : 0;
    if (!end || *end || errno)
      return -1;
    *out = x;
    return 0;
  }
  if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > 9007199254740992.0 ||
      v->valuedouble != (double)(uint64_t)v->valuedouble)
    return -1;
  *out = (uint64_t)v->valuedouble;
  return 0;
}

/* A list of request kind names into bits; -1 when it is not one. */
static int read_kinds(const cJSON *list, uint32_t *bits) {
  if (!cJSON_IsArray(list))
    return -1;
  const cJSON *it;
  cJSON_ArrayForEach(it, list) {
    unsigned k = 0;
    for (char name[64]; k < CS_KIND_COUNT; k++) {
      cs_request_kind_name(k, name, sizeof name);
      if (cJSON_IsString(it) && !strcmp(it->valuestring, name))
        break;
    }
    if (k == CS_KIND_COUNT)
      return -1;
    *bits |= 1u << k;
  }
  return 0;
}

/* A list of target names (props false) or property names into bits: -1 with err when it is not a
 * list of names callsign knows, each once, at least one. */
static int read_set(const cJSON *list, bool props, uint64_t *bits, cs_err *err) {
  const char *what = props ? "properties" : "targets";
  size_t np;
  const cs_property *table = cs_properties(&np);
  *bits = 0;
  if (!cJSON_IsArray(list) || !list->child)
    return cs_err_set(err, "%s is not a list of names", what);
  const cJSON *it;
  cJSON_ArrayForEach(it, list) {
    if (!cJSON_IsString(it))
      return cs_err_set(err, "%s is not a list of names", what);
    const cs_property *p = props ? cs_property_find(it->valuestring) : NULL;
    int i = props ? (p ? (int)(p - table) : -1) : cs_target_parse(it->valuestring);
    if (i < 0)
      return cs_err_set(err, "%s names '%s', which callsign does not know", what, cs_err_excerpt(it->valuestring).s);
    if (*bits >> i & 1u)
      return cs_err_set(err, "%s names '%s' twice", what, cs_err_excerpt(it->valuestring).s);
    *bits |= 1ull << i;
  }
  return 0;
}

/* A rule's pattern: a string or null (none); "" is no pattern a ruleset holds. */
static int read_pattern(const cJSON *o, const char *key, char **out, cs_err *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (cJSON_IsNull(v))
    return 0;
  if (!cJSON_IsString(v) || !v->valuestring[0])
    return cs_err_set(err, "%s is not a pattern or null", key);
  *out = cs_xstrdup(v->valuestring);
  return 0;
}

static int read_length(const cJSON *o, const char *key, uint32_t *out, cs_err *err) {
  uint64_t v;
  if (u64_of(cJSON_GetObjectItemCaseSensitive(o, key), &v) || v > INT32_MAX)
    return cs_err_set(err, "%s is not a length up to %d", key, INT32_MAX);
  *out = (uint32_t)v;
  return 0;
}

/* "rules": one object per target callsign knows, none other, each with its pattern, min_len,
 * max_len and server_pattern; -1 with err naming the rule. */
static int read_rules(const cJSON *rules, cs_findings_settings *s, cs_err *err) {
  if (!cJSON_IsObject(rules))
    return cs_err_set(err, "rules is not an object of one rule per target");
  if (cs_json_names_once(rules, err)) {
    cs_err_prefix(err, "rules");
    return -1;
  }
  for (const cJSON *m = rules->child; m; m = m->next)
    if (cs_target_parse(m->string) < 0)
      return cs_err_set(err, "rules names '%s', which is not a target", cs_err_excerpt(m->string).s);
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(rules, cs_target_label(t));
    cs_findings_rule *r = &s->rules[t];
    if (!cJSON_IsObject(o))
      cs_err_set(err, "no rule, or one that is not an object");
    else if (!cs_json_names_once(o, err) && !read_pattern(o, "pattern", &r->pattern, err) &&
             !read_length(o, "min_len", &r->min_len, err) && !read_length(o, "max_len", &r->max_len, err) &&
             !read_pattern(o, "server_pattern", &r->server_pattern, err))
      continue;
    cs_err_prefix(err, "rules.%s", cs_target_label(t));
    return -1;
  }
  return 0;
}

/* The rules are ones a ruleset can hold: each override that makes them compiles, and the whole
 * passes cs_ruleset_check (min_len up to max_len). */
static int check_rules(const cs_findings_settings *s, cs_err *err) {
  cs_ruleset *rs = cs_ruleset_new(err);
  if (!rs)
    return -1;
  cs_buf text = {0};
  size_t n = settings_overrides(s, &text);
  int rc = 0;
  const char *p = text.data;
  for (size_t i = 0; i < n && rc == 0; i++, p += strlen(p) + 1)
    rc = cs_ruleset_override(rs, p, err);
  if (rc == 0)
    rc = cs_ruleset_check(rs, err);
  if (rc)
    cs_err_prefix(err, "rules");
  cs_buf_free(&text);
  cs_ruleset_free(rs);
  return rc;
}

/* "impl_cmd" and "deadline_ms": null and null for a built-in, or the argv (strings, at least one,
 * the first not empty) and deadline of an external implementation. */
static int read_impl_cmd(const cJSON *root, cs_findings_settings *s, cs_err *err) {
  const cJSON *argv = cJSON_GetObjectItemCaseSensitive(root, "impl_cmd");
  const cJSON *deadline = cJSON_GetObjectItemCaseSensitive(root, "deadline_ms");
  if (cJSON_IsNull(argv))
    return cJSON_IsNull(deadline) ? 0 : cs_err_set(err, "deadline_ms is not null, as a built-in's is");
  int n = cJSON_IsArray(argv) ? cJSON_GetArraySize(argv) : 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, argv) {
    if (!cJSON_IsString(it))
      n = 0;
  }
  if (n < 1 || !argv->child->valuestring[0])
    return cs_err_set(err, "impl_cmd is not null or a program's argv (a list of strings)");
  s->impl_cmd = cs_xcalloc((size_t)n + 1, sizeof *s->impl_cmd);
  n = 0;
  cJSON_ArrayForEach(it, argv) {
    s->impl_cmd[n++] = cs_xstrdup(it->valuestring);
  }
  uint64_t ms;
  if (u64_of(deadline, &ms) || ms < 1 || ms > CS_MAX_DEADLINE_MS)
    return cs_err_set(err, "deadline_ms is not a deadline of 1 to %u", CS_MAX_DEADLINE_MS);
  s->deadline_ms = (unsigned)ms;
  return 0;
}

/* The settings (cs_findings_settings) of a summary into `s`; -1 with err naming the member. */
static int read_settings(const cJSON *root, cs_findings_settings *s, cs_err *err) {
  uint64_t v;
  if (u64_of(cJSON_GetObjectItemCaseSensitive(root, "max_id_len"), &v) || v < 1 || v > CS_GEN_MAX_ID_LEN_LIMIT)
    return cs_err_set(err, "max_id_len is not a length of 1 to %u", CS_GEN_MAX_ID_LEN_LIMIT);
  s->max_id_len = (uint32_t)v;
  if (read_set(cJSON_GetObjectItemCaseSensitive(root, "targets"), false, &v, err) ||
      read_set(cJSON_GetObjectItemCaseSensitive(root, "properties"), true, &s->properties, err))
    return -1;
  s->targets = (unsigned)v;
  const cJSON *strict = cJSON_GetObjectItemCaseSensitive(root, "strict");
  if (!cJSON_IsBool(strict))
    return cs_err_set(err, "strict is not true or false");
  s->strict = cJSON_IsTrue(strict);
  return read_rules(cJSON_GetObjectItemCaseSensitive(root, "rules"), s, err) || check_rules(s, err) ||
                 read_impl_cmd(root, s, err)
             ? -1
             : 0;
}

/* A finding's property and target, which must be one a campaign under settings `s` can find: a
 * property checked per target names a target (its only one, for those that concern one), any other
 * names "-", vectors.canonical_v1, checked outside the cases, is never a finding, and the property
 * and target are among those the settings select. */
static int finding_names(const cJSON *it, const cs_findings_settings *s, cs_finding *x, cs_err *err) {
  const char *prop = str_or(it, "property", NULL), *tgt = str_or(it, "target", NULL);
  if (!prop || !tgt)
    return cs_err_set(err, "property or target is missing or not a string");
  const cs_property *p = cs_property_find(prop);
  int t = cs_target_parse(tgt);
  /* Names callsign does not know would be cut into the fields below, or replayed as nothing. */
  if (!p || (strcmp(tgt, "-") != 0 && t < 0))
    return cs_err_set(err, "names an unknown property or target ('%.60s', '%.40s')", prop, tgt);
  if (!p->check && strcmp(prop, CS_PROPERTY_ANSWER) != 0)
    return cs_err_set(err, "%s is checked outside the cases: no campaign finds a failure of it", prop);
  if (!p->per_target && t >= 0)
    return cs_err_set(err, "%s takes no target: its target is \"-\", not '%s'", prop, tgt);
  if (p->per_target && t < 0)
    return cs_err_set(err, "%s is checked per target: its target names one, not \"-\"", prop);
  if (p->only_target >= 0 && t != p->only_target)
    return cs_err_set(err, "%s is checked on %s only, not on %s", prop, cs_target_label(p->only_target), tgt);
  /* ...and one the campaign judged: protocol.answer always, any other as its settings select. */
  if (strcmp(prop, CS_PROPERTY_ANSWER) != 0 && !(s->properties & property_bit(p)))
    return cs_err_set(err, "%s is not among the properties the summary selects", prop);
  if (t >= 0 && !(s->targets >> t & 1u))
    return cs_err_set(err, "target %s is not among the targets the summary selects", tgt);
  if (p->tier == CS_TIER_RECOMMENDED && !s->strict)
    return cs_err_set(err, "%s is recommended: it makes a finding only with strict true", prop);
  snprintf(x->property, sizeof x->property, "%s", prop);
  snprintf(x->target, sizeof x->target, "%s", tgt);
  return 0;
}

/* A finding's signature, case index and window: 16 lowercase hex digits as signature_of writes
 * them (the signature names its case file), a case number or null (a corpus case), and when given
 * the window of that case. */
static int finding_place(const cJSON *it, cs_finding *x, cs_err *err) {
  const char *sig = str_or(it, "signature", NULL);
  if (!sig || strlen(sig) != 16 || strspn(sig, "0123456789abcdef") != 16)
    return cs_err_set(err, "signature is not 16 lowercase hex digits");
  snprintf(x->signature, sizeof x->signature, "%s", sig);
  const cJSON *ci = cJSON_GetObjectItemCaseSensitive(it, "case_index");
  uint64_t index = UINT64_MAX;
  if (!ci || (!cJSON_IsNull(ci) && (u64_of(ci, &index) || index == UINT64_MAX)))
    return cs_err_set(err, "case_index is missing, or not a case number or null");
  x->case_index = index;
  x->window = cs_campaign_window(index);
  const cJSON *w = cJSON_GetObjectItemCaseSensitive(it, "window");
  double want = x->window == CS_WINDOW_CORPUS ? -1 : (double)x->window;
  if (w && !(cJSON_IsNumber(w) && w->valuedouble == want))
    return cs_err_set(err, "window is not %.0f, the window of its case_index", want);
  return 0;
}

/* A finding's case: a replay token that parses, or null for a literal history (a corpus case,
 * whose planted_twin, null or [from, to], names two of its calls); the history, which replay reads
 * back for a literal case (a token case's planted IDs are the implementation's own, not bounded);
 * the message and the answer. */
static int finding_case(const cJSON *it, cs_finding *x, cs_err *err) {
  const cJSON *tok = cJSON_GetObjectItemCaseSensitive(it, "token");
  if (tok && !cJSON_IsNull(tok) && !cJSON_IsString(tok))
    return cs_err_set(err, "token is not a replay token or null");
  if (cJSON_IsString(tok)) {
    uint64_t *v = NULL;
    size_t n = 0;
    if (cs_choices_parse_token(tok->valuestring, &v, &n, err))
      return -1;
    free(v);
    x->token = cs_xstrdup(tok->valuestring);
  } else if (x->case_index != UINT64_MAX) {
    return cs_err_set(err, "a literal case (token null) comes from the corpus: its case_index is null");
  }
  const cJSON *hist = cJSON_GetObjectItemCaseSensitive(it, "history");
  if (!hist)
    return cs_err_set(err, "history is missing");
  cs_history_limits lim = {.max_id_bytes = x->token ? SIZE_MAX : 0};
  cs_arena a = {0};
  cs_history h;
  int rc = cs_history_from_cjson(hist, "history", &lim, &a, &h, err);
  const cJSON *tw = cJSON_GetObjectItemCaseSensitive(it, "planted_twin");
  uint32_t calls = rc ? 0 : cs_history_ncalls(&h);
  /* The signature is what a merge counts distinct failures by: one that is not its property,
   * target and history's (as the campaign wrote the history) would count a failure twice, or two
   * as one. */
  char sig[sizeof x->signature] = "";
  if (!rc) {
    cs_buf hb = {0};
    cs_history_write(&hb, &h);
    signature_over(x, hb.data ? hb.data : "", sig);
    cs_buf_free(&hb);
  }
  cs_arena_free(&a);
  if (rc)
    return -1;
  if (x->token && tw && !cJSON_IsNull(tw))
    return cs_err_set(err, "a token case has no planted_twin (only a literal case states one)");
  if (!x->token && (!tw || cs_literal_twin_parse(tw, calls, &x->planted_twin)))
    return cs_err_set(err, "planted_twin is not null or [from, to], two call numbers with from < to < %u", calls);
  const cJSON *msg = cJSON_GetObjectItemCaseSensitive(it, "message");
  const cJSON *ans = cJSON_GetObjectItemCaseSensitive(it, "answer");
  if ((msg && !cJSON_IsString(msg)) || (ans && !cJSON_IsNull(ans) && !cJSON_IsObject(ans)))
    return cs_err_set(err, "message is not a string, or answer not an object or null");
  x->message = dup_s(msg ? msg->valuestring : "");
  x->history_json = cJSON_PrintUnformatted(hist);
  x->answer_json = ans && !cJSON_IsNull(ans) ? cJSON_PrintUnformatted(ans) : NULL;
  if (strcmp(sig, x->signature) != 0)
    return cs_err_set(err, "signature %s is not that of its property, target and history (%s)", x->signature, sig);
  return 0;
}

/* A generated finding's case is one of the summary's parts: a shard makes no other. */
static int finding_in_parts(const cs_finding *x, const char *parts, cs_err *err) {
  if (x->case_index == UINT64_MAX) /* from the corpus: every part replays it */
    return 0;
  size_t n;
  part *ps = parts_read(parts, &n, NULL);
  bool held = false;
  for (size_t i = 0; i < n && !held; i++)
    held = x->case_index % ps[i].n == ps[i].i;
  free(ps);
  if (held)
    return 0;
  return cs_err_set(err, "case_index %llu is not a case of parts \"%.200s\"", (unsigned long long)x->case_index, parts);
}

/* findings[k] of the summary `path` into a new finding of `out`: -1 with err "PATH: findings[K]:
 * WHY" when it is not one a campaign can make, so that a merge refuses it before it writes. */
static int finding_read(const cJSON *it, const char *path, size_t k, cs_findings *out, cs_err *err) {
  cs_finding *x = add_finding(out);
  if (!cJSON_IsObject(it))
    cs_err_set(err, "not an object");
  else if (!cs_json_names_once(it, err) && !finding_names(it, &out->settings, x, err) && !finding_place(it, x, err) &&
           !finding_case(it, x, err) && !finding_in_parts(x, out->parts, err))
    return 0;
  cs_err_prefix(err, "%s: findings[%zu]", path, k);
  return -1;
}

int cs_findings_read(const char *dir, cs_findings *out, cs_err *err) {
  memset(out, 0, sizeof *out);
  char *path = cs_findings_summary_path(dir);
  int rc = -1;
  cJSON *root = NULL;
  /* A results directory holds a file: opening a FIFO there would wait for a writer (a merge would
   * hang). A symbolic link to a file is read. */
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    cs_err_set(err, "%s: not a regular file", path);
    goto cleanup;
  }
  /* A summary keeps each answer whole (up to 64 MiB each, many findings): whatever size callsign
   * wrote, it reads back, or a merge, or a --jobs campaign's parent, would lose the findings. */
  root = cs_read_json_object(path, "a callsign fuzz summary", SIZE_MAX, err);
  if (!root)
    goto cleanup;
  const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "callsign_fuzz");
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "findings");
  if (!cJSON_IsNumber(ver) || !cJSON_IsArray(arr)) {
    cs_err_set(err, "%s: not a callsign fuzz summary", path);
    goto cleanup;
  }
  if (ver->valuedouble == 1) {
    cs_err_set(err,
               "%s: callsign_fuzz 1, from an earlier callsign, does not record the settings a merge compares "
               "(max_id_len, targets, properties, strict, rules): run its campaign again",
               path);
    goto cleanup;
  }
  if (ver->valuedouble != CS_FUZZ_SUMMARY_VERSION) {
    cs_buf v = {0}; /* the shortest text that reads back: %g showed 2.0000001 as 2 */
    cs_buf_double(&v, ver->valuedouble);
    cs_err_set(err, "%s: callsign_fuzz %s is not the version this callsign reads (%d)", path, v.data,
               CS_FUZZ_SUMMARY_VERSION);
    cs_buf_free(&v);
    goto cleanup;
  }
  const char *impl = str_or(root, "impl", "");
  if (strlen(impl) >= sizeof out->impl) { /* callsign writes at most that much: cut, it could merge with another */
    cs_err_set(err, "%s: impl is longer than %zu bytes", path, sizeof out->impl - 1);
    goto cleanup;
  }
  snprintf(out->impl, sizeof out->impl, "%s", impl);
  /* Which parts of the case space these results cover: a merge refuses parts that share cases, so
   * a "parts" it cannot read would let the same cases be counted twice. */
  const char *parts = str_or(root, "parts", NULL);
  char why[300];
  if (!parts_valid(parts, why, sizeof why)) {
    cs_err_set(err, "%s: %s", path, why);
    goto cleanup;
  }
  out->parts = cs_xstrdup(parts);
  const cJSON *secs = cJSON_GetObjectItemCaseSensitive(root, "seconds");
  if (secs && (!cJSON_IsNumber(secs) || !(secs->valuedouble >= 0 && secs->valuedouble < 1e15))) {
    cs_err_set(err, "%s: seconds is not a duration (a number of seconds, 0 or more)", path);
    goto cleanup;
  }
  out->seconds = secs ? secs->valuedouble : 0;
  /* Written since it exists (optional when read). */
  const cJSON *shrunk = cJSON_GetObjectItemCaseSensitive(root, "shrink_seconds");
  if (shrunk && (!cJSON_IsNumber(shrunk) || !(shrunk->valuedouble >= 0 && shrunk->valuedouble < 1e15))) {
    cs_err_set(err, "%s: shrink_seconds is not a duration (a number of seconds, 0 or more)", path);
    goto cleanup;
  }
  out->shrink_seconds = shrunk ? shrunk->valuedouble : 0;
  /* Written since they exist; a summary without them records neither (optional when read). */
  const cJSON *nothing = cJSON_GetObjectItemCaseSensitive(root, "checks_nothing");
  const cJSON *judged = cJSON_GetObjectItemCaseSensitive(root, "not_judged");
  if ((nothing && !cJSON_IsBool(nothing)) || (judged && !cJSON_IsNull(judged) && !cJSON_IsString(judged))) {
    cs_err_set(err, "%s: checks_nothing is not true or false, or not_judged not a string or null", path);
    goto cleanup;
  }
  out->checks_nothing = cJSON_IsTrue(nothing);
  if (cJSON_IsString(judged))
    snprintf(out->undecided, sizeof out->undecided, "%s", judged->valuestring);
  if (!out->impl[0] || u64_of(cJSON_GetObjectItemCaseSensitive(root, "seed"), &out->seed) ||
      u64_of(cJSON_GetObjectItemCaseSensitive(root, "cases"), &out->cases)) {
    cs_err_set(err, "%s: impl, seed or cases is missing or not a whole number", path);
    goto cleanup;
  }
  const cJSON *cut = cJSON_GetObjectItemCaseSensitive(root, "cases_cut");
  if (cut && u64_of(cut, &out->cases_cut)) {
    cs_err_set(err, "%s: cases_cut is not a count", path);
    goto cleanup;
  }
  const cJSON *intr = cJSON_GetObjectItemCaseSensitive(root, "interrupted");
  if (intr && !cJSON_IsBool(intr)) {
    cs_err_set(err, "%s: interrupted is not true or false", path);
    goto cleanup;
  }
  out->interrupted = cJSON_IsTrue(intr);
  const cJSON *gu = cJSON_GetObjectItemCaseSensitive(root, "given_up");
  if (gu && read_kinds(gu, &out->given_up)) {
    cs_err_set(err, "%s: given_up is not a list of request kinds", path);
    goto cleanup;
  }
  if (read_settings(root, &out->settings, err)) {
    cs_err_prefix(err, "%s", path);
    goto cleanup;
  }
  size_t k = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, arr) {
    if (finding_read(it, path, k++, out, err))
      goto cleanup;
  }
  rc = 0;
cleanup:
  cJSON_Delete(root);
  free(path);
  if (rc)
    cs_findings_free(out);
  return rc;
}

/* Saves one finding to the corpus. 0, or -1 with err. */
static int save_finding(const cs_findings *f, const cs_finding *x, const cs_property *p, const char *corpus_dir,
                        cs_err *err) {
  if (x->token) {
    cs_outcome oc = {.prop = p, .target = cs_target_parse(x->target), .failed = true};
    if (cs_choices_parse_token(x->token, &oc.choices, &oc.nchoices, err))
      return -1;
    snprintf(oc.message, sizeof oc.message, "%s", x->message ? x->message : "");
    oc.history_json = x->history_json;
    int rc = cs_corpus_save(corpus_dir, f->impl, &oc, x->target, f->settings.max_id_len, err);
    free(oc.choices);
    return rc;
  }
  cs_arena a = {0};
  cs_history h;
  const char *json = x->history_json ? x->history_json : "null";
  int rc = cs_history_parse(cs_str_c(json), NULL, &a, &h, err) ||
           cs_corpus_save_literal(corpus_dir, f->impl, x->property, x->target, x->message ? x->message : "", &h,
                                  &x->planted_twin, NULL, err);
  cs_arena_free(&a);
  return rc ? -1 : 0;
}

size_t cs_findings_save_corpus(const cs_findings *f, const char *corpus_dir, size_t *unsaved, cs_err *err) {
  size_t *idx = cs_xcalloc(f->n + 1, sizeof *idx);
  size_t nd = cs_findings_distinct(f, idx), saved = 0;
  *unsaved = 0;
  for (size_t i = 0; i < nd; i++) { /* one that cannot be saved does not keep the others out */
    const cs_finding *x = &f->f[idx[i]];
    const cs_property *p = cs_property_find(x->property);
    if (!p)
      continue;
    cs_err e;
    if (save_finding(f, x, p, corpus_dir, &e) == 0)
      saved++;
    else if ((*unsaved)++ == 0)
      *err = e;
  }
  free(idx);
  return saved;
}
