/* harness/corpus.c: saving and loading regression cases. */
#include "harness/corpus.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/hash.h"
#include "core/history_json.h"
#include "generators/transforms.h"
#include "harness/cli.h"
#include "harness/property.h"
#include "providers/target.h"

/* The name made safe for a directory, within cap bytes with its NUL: letters, digits, '-', '_' and
 * '.' stay, any other byte becomes '_'; empty or only dots (which would leave the corpus) becomes
 * underscores. Returns whether it had to change (cut to fit counts). */
static bool safe_name(const char *impl, char *out, size_t cap) {
  size_t o = 0, n = strlen(impl);
  bool changed = n == 0;
  for (size_t i = 0; i < n && o + 1 < cap; i++) {
    char ch = impl[i];
    bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                 ch == '_' || ch == '.';
    out[o++] = plain ? ch : '_';
    changed |= !plain;
  }
  changed |= o < n;
  if (o == 0)
    out[o++] = '_';
  out[o] = 0;
  if (strspn(out, ".") == o) {
    memset(out, '_', o);
    changed = true;
  }
  return changed;
}

void cs_corpus_dirname(const char *impl, char *out, size_t len) {
  /* Room for the suffix "-" and 8 hex digits a changed name gets. */
  bool changed = safe_name(impl, out, len > 10 ? len - 10 : 1);
  /* Two names that read the same once changed ("my/echo" and "my_echo") would share their cases:
   * a changed name carries the start of its SHA-256, so each keeps its own directory. */
  if (changed && len > 10) {
    cs_hasher *h = cs_hasher_new();
    uint8_t d[32];
    char hex[9];
    cs_sha256(h, impl, strlen(impl), d);
    cs_hasher_free(h);
    cs_hex(d, 4, hex);
    size_t o = strlen(out);
    snprintf(out + o, len - o, "-%s", hex);
  }
}

static cJSON *load_case(const char *path, cs_err *err) {
  return cs_read_json_object(path, "a callsign case", 0, err);
}

/* A corpus file must be a regular file: opening a FIFO would wait for a writer (a run would hang). */
static cJSON *load_corpus_case(const char *path, cs_err *err) {
  struct stat st;
  if (stat(path, &st) != 0) {
    cs_err_set(err, "%s: %s", path, strerror(errno));
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    cs_err_set(err, "%s: not a regular file", path);
    return NULL;
  }
  return load_case(path, err);
}

/* The case's property and target names ("" and "-" when absent). A name given must be a known one:
 * replay checks the case's own property and target, and a misspelt or mistyped one would otherwise
 * quietly widen the replay to every property or target. */
static int names_of(const cJSON *root, const char *path, char *property, size_t plen, char *target, size_t tlen,
                    cs_err *err) {
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(root, "property");
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(root, "target");
  if (p && !cJSON_IsString(p))
    return cs_err_set(err, "%s: \"property\" is not a string", path);
  if (t && !cJSON_IsString(t))
    return cs_err_set(err, "%s: \"target\" is not a string", path);
  if (p && !cs_property_find(p->valuestring))
    return cs_err_set(err, "%s: unknown property '%.100s' (see callsign list)", path, p->valuestring);
  if (t && strcmp(t->valuestring, "-") != 0 && cs_target_parse(t->valuestring) < 0)
    return cs_err_set(err, "%s: unknown target '%.100s' (see callsign list)", path, t->valuestring);
  snprintf(property, plen, "%s", p ? p->valuestring : "");
  snprintf(target, tlen, "%s", t ? t->valuestring : "-");
  return 0;
}

/* What a case file holds: 0 a token case, 1 a literal history case (no "token", or a null one as a
 * fuzz summary's finding has, and a "history" object), -1 with err saying which member is missing
 * or of the wrong type. A token case's "history" is the shrunk history for readers, not read back. */
static int kind_of(const cJSON *root, const char *path, cs_err *err) {
  const cJSON *tok = cJSON_GetObjectItemCaseSensitive(root, "token");
  const cJSON *hist = cJSON_GetObjectItemCaseSensitive(root, "history");
  if (tok && !cJSON_IsNull(tok))
    return cJSON_IsString(tok) ? 0 : cs_err_set(err, "%s: \"token\" is not a string (a replay token, cs2.…)", path);
  if (cJSON_IsObject(hist))
    return 1;
  if (hist)
    return cs_err_set(err, "%s: \"history\" is not an object (and there is no \"token\")", path);
  return cs_err_set(err, "%s: not a callsign case (no \"token\" and no \"history\")", path);
}

static int token_of(const cJSON *root, const char *path, uint64_t **v, size_t *n, cs_err *err) {
  if (cs_choices_parse_token(cJSON_GetObjectItemCaseSensitive(root, "token")->valuestring, v, n, err)) {
    cs_err_prefix(err, "%s", path);
    return -1;
  }
  return 0;
}

/* A token case's "max_id_len": the ID bound its token regenerates under (0 when absent: the
 * default). Only a case found under another bound (fuzz --max-id-len) carries it. */
static int bound_of(const cJSON *root, const char *path, uint32_t *out, cs_err *err) {
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "max_id_len");
  *out = 0;
  if (!m)
    return 0;
  if (!cJSON_IsNumber(m) || m->valuedouble < 1 || m->valuedouble > CS_GEN_MAX_ID_LEN_LIMIT ||
      m->valuedouble != (double)(uint32_t)m->valuedouble)
    return cs_err_set(err, "%s: \"max_id_len\" is not a whole number from 1 to %u", path, CS_GEN_MAX_ID_LEN_LIMIT);
  *out = (uint32_t)m->valuedouble;
  return 0;
}

static int history_of(const cJSON *root, const char *path, cs_arena *a, cs_history *out, cs_err *err) {
  if (cs_history_from_cjson(cJSON_GetObjectItemCaseSensitive(root, "history"), "history", NULL, a, out, err)) {
    cs_err_prefix(err, "%s", path);
    return -1;
  }
  return 0;
}

/* Marks no generated ID holds, one per twin plan: what the calls an implementation's output was
 * planted in are compared as. */
static const char *const PLANTED_MARKS[2] = {"\x01planted0", "\x01planted1"};

/* The generated history with each twin plan's call, and the results that answer it by ID, marked
 * where the runner plants the implementation's output; `raw_from`: planted with the from-call's own
 * raw ID instead, as an implementation that passes IDs through plants it. */
static cs_history twins_marked(const cs_gen_case *g, bool raw_from, cs_arena *a) {
  cs_history out = g->h;
  for (uint32_t i = 0; i < g->ntwins && i < 2; i++) {
    cs_str mark = cs_str_c(PLANTED_MARKS[i]);
    if (raw_from)
      mark = g->twins[i].from_call < g->ix.ncalls ? g->ix.calls[g->twins[i].from_call]->id : CS_NULL_STR;
    if (mark.ptr) /* the runner plants nothing for a null output */
      out = cs_transform_plant(&out, g->twins[i].to_call, mark, a);
  }
  return out;
}

/* `saved` with its IDs replaced by `marked`'s wherever `marked` differs from `made` (histories of one
 * shape; another shape is returned as it is), by position: planting anew would pair the IDs an
 * implementation planted in `saved` again, and they may pair otherwise than the marks. */
static cs_history marked_like(const cs_history *saved, const cs_history *made, const cs_history *marked, cs_arena *a) {
  if (saved->nturns != made->nturns)
    return *saved;
  for (uint32_t t = 0; t < made->nturns; t++)
    if (saved->turns[t].ncalls != made->turns[t].ncalls || saved->turns[t].nresults != made->turns[t].nresults)
      return *saved;
  cs_history out = cs_history_clone(saved, a);
  for (uint32_t t = 0; t < made->nturns; t++) {
    for (uint32_t k = 0; k < made->turns[t].ncalls; k++)
      if (!cs_str_eq(made->turns[t].calls[k].id, marked->turns[t].calls[k].id))
        out.turns[t].calls[k].id = marked->turns[t].calls[k].id;
    for (uint32_t k = 0; k < made->turns[t].nresults; k++)
      if (!cs_str_eq(made->turns[t].results[k].call_id, marked->turns[t].results[k].call_id))
        out.turns[t].results[k].call_id = marked->turns[t].results[k].call_id;
  }
  return out;
}

/* The two histories written as JSON are the same text. */
static bool same_json(const cs_history *x, const cs_history *y) {
  cs_buf bx = {0}, by = {0};
  cs_history_write(&bx, x);
  cs_history_write(&by, y);
  bool same = bx.len == by.len && !memcmp(bx.data, by.data, bx.len);
  cs_buf_free(&bx);
  cs_buf_free(&by);
  return same;
}

/* Does the token still make the history saved with it? The saved history is the case as it ran,
 * with the outputs of implementation-aware twins planted: those IDs are compared as marks. A
 * property judged on the history as Kimi produced it (emit.kimi_roundtrip) saved that one. A
 * generator changed since the case was saved (a draw added or given more options) can make another
 * history from the same token, and the case would no longer test what it saved. */
static bool token_makes(const uint64_t *v, size_t n, uint32_t max_id_len, const char *property,
                        const cs_history *saved) {
  const cs_property *prop = cs_property_find(property);
  cs_choices c = {0};
  cs_arena a = {0};
  cs_gen_case g;
  cs_gen_config cfg = {.max_id_len = max_id_len};
  cs_choices_replay(&c, v, n);
  cs_gen_history(&c, &cfg, &a, &g);
  cs_history marked = twins_marked(&g, false, &a), kept = marked_like(saved, &g.h, &marked, &a);
  bool same = same_json(&marked, &kept);
  /* Saved as Kimi produced it, as callsign saves it now (an earlier one saved the generated one):
   * which calls are answered there depends on the planted IDs, so both usual plantings are tried. */
  for (int raw_from = 0; !same && raw_from < 2 && prop && (prop->needs & CS_NEED_KIMI); raw_from++) {
    cs_history m = twins_marked(&g, raw_from, &a);
    cs_history_index ix;
    cs_history_index_build(&m, &a, &ix);
    cs_history kimi = cs_transform_kimi_native(&m, &ix, &a);
    same = same_json(&kimi, saved);
  }
  cs_arena_free(&a);
  cs_choices_free(&c);
  return same;
}

/* Is this token case stale: its file saves a history (read into *saved) that its token, under
 * bound `max_id_len` (0: the default), no longer makes? A file without a readable history is not. */
static bool token_is_stale(const cJSON *root, const char *label, const uint64_t *v, size_t n, uint32_t max_id_len,
                           const char *property, cs_arena *a, cs_history *saved) {
  cs_err unread = {{0}};
  return cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "history")) &&
         history_of(root, label, a, saved, &unread) == 0 && !token_makes(v, n, max_id_len, property, saved);
}

static uint32_t count_calls(const cs_history *h) {
  uint32_t n = 0;
  for (uint32_t t = 0; t < h->nturns; t++)
    n += h->turns[t].ncalls;
  return n;
}

void cs_literal_twin_json(const cs_literal_twin *t, char out[CS_TWIN_JSON]) {
  if (t && t->set)
    snprintf(out, CS_TWIN_JSON, "[%u, %u]", t->from, t->to);
  else
    snprintf(out, CS_TWIN_JSON, "null");
}

int cs_literal_twin_parse(const cJSON *m, uint32_t calls, cs_literal_twin *out) {
  *out = (cs_literal_twin){0};
  if (cJSON_IsNull(m))
    return 0;
  const cJSON *f = cJSON_IsArray(m) && cJSON_GetArraySize(m) == 2 ? cJSON_GetArrayItem(m, 0) : NULL;
  const cJSON *t = f ? f->next : NULL;
  bool whole = f && cJSON_IsNumber(f) && cJSON_IsNumber(t) && f->valuedouble >= 0 &&
               f->valuedouble == (double)f->valueint && t->valuedouble == (double)t->valueint;
  if (!whole || f->valueint >= t->valueint || (uint32_t)t->valueint >= calls)
    return -1;
  *out = (cs_literal_twin){true, (uint32_t)f->valueint, (uint32_t)t->valueint};
  return 0;
}

/* A case file's planted twin; without the member, a literal history of exactly two calls is a pair
 * collide planted before the member existed. A token case's is its first implementation-aware
 * twin, read only when its token no longer makes its history. */
static int twin_of(const cJSON *root, const cs_history *h, const char *path, cs_literal_twin *out, cs_err *err) {
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "planted_twin");
  uint32_t calls = count_calls(h);
  bool token = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(root, "token"));
  if (!m) { /* a token case without one had none planted, or was saved before the member */
    *out = calls == 2 && !token ? (cs_literal_twin){true, 0, 1} : (cs_literal_twin){0};
    return 0;
  }
  if (cs_literal_twin_parse(m, calls, out))
    return cs_err_set(err, "%s: \"planted_twin\" is not null or [from, to], two call numbers with from < to < %u", path,
                      calls);
  return 0;
}

int cs_corpus_read_file(const char *path, cs_arena *a, cs_history *lit, cs_literal_twin *twin, uint64_t **v, size_t *n,
                        uint32_t *max_id_len, char *property, size_t plen, char *target, size_t tlen, cs_err *err) {
  const char *label = strcmp(path, "-") ? path : "stdin";
  *v = NULL;
  *n = 0;
  *max_id_len = 0;
  cJSON *root = load_case(path, err); /* read once: a pipe or FIFO gives its bytes one time */
  if (!root)
    return -1;
  int kind = kind_of(root, label, err);
  if (kind >= 0 && names_of(root, label, property, plen, target, tlen, err))
    kind = -1;
  if (kind == 0 && (bound_of(root, label, max_id_len, err) || token_of(root, label, v, n, err)))
    kind = -1;
  cs_literal_twin ignored;
  if (kind == 1 && (history_of(root, label, a, lit, err) || twin_of(root, lit, label, twin ? twin : &ignored, err)))
    kind = -1;
  if (kind == 0 && token_is_stale(root, label, *v, *n, *max_id_len, property, a, lit)) {
    free(*v);
    *v = NULL;
    *n = 0;
    kind = twin_of(root, lit, label, twin ? twin : &ignored, err) ? -1 : 2;
  }
  cJSON_Delete(root);
  return kind;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* DIR/<impl>, heap; paths are built to their length, never cut into another directory's name. */
static char *impl_dir(const char *dir, const char *impl) {
  char sub[256];
  cs_corpus_dirname(impl, sub, sizeof sub);
  cs_buf path = {0};
  cs_buf_printf(&path, "%s/%s", dir, sub);
  return path.data;
}

/* Appends DIR's *.json files, as DIR/NAME in name order, to names (heap). 0, or -1 (errno) when DIR
 * is there but cannot be read; a missing DIR adds nothing. */
static int list_cases(const char *dir, char ***names, size_t *nn, size_t *cap) {
  DIR *d = opendir(dir);
  if (!d)
    return errno == ENOENT ? 0 : -1;
  size_t from = *nn;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name);
    if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0)
      continue;
    if (*nn == *cap) {
      *cap = *cap ? *cap * 2 : 16;
      *names = cs_xrealloc_array(*names, *cap, sizeof **names);
    }
    cs_buf file = {0};
    cs_buf_printf(&file, "%s/%s", dir, e->d_name);
    (*names)[(*nn)++] = file.data;
  }
  closedir(d);
  if (*nn > from)
    qsort(*names + from, *nn - from, sizeof **names, by_name); /* a stable order: replays are reproducible */
  return 0;
}

/* DIR/<impl> as an earlier callsign named it, when that differs from impl_dir's (heap), or NULL:
 * the name made safe without the hash that now keeps names that read alike apart. */
static char *legacy_impl_dir(const char *dir, const char *impl) {
  char sub[256], now[256];
  safe_name(impl, sub, sizeof sub);
  cs_corpus_dirname(impl, now, sizeof now);
  if (!strcmp(sub, now))
    return NULL;
  cs_buf path = {0};
  cs_buf_printf(&path, "%s/%s", dir, sub);
  return path.data;
}

int cs_corpus_load(const char *dir, const char *impl, cs_corpus *out, cs_err *err) {
  memset(out, 0, sizeof *out);
  char *path = impl_dir(dir, impl), *legacy = legacy_impl_dir(dir, impl);
  char **names = NULL;
  size_t nn = 0, cap = 0;
  /* A missing directory is an empty corpus; one that cannot be read is not. */
  if (list_cases(path, &names, &nn, &cap)) {
    int e = errno;
    cs_err_set(err, "cannot read the corpus directory %s: %s (its cases are not replayed)", path, strerror(e));
    free(path);
    free(legacy);
    free(names);
    return -1;
  }
  /* The directory an earlier callsign gave this name (shared by names that read alike): its cases
   * replay too, after this one's, and a warning says where they belong now. */
  size_t own = nn;
  if (legacy)
    list_cases(legacy, &names, &nn, &cap);
  out->v = cs_xcalloc(nn + 1, sizeof *out->v);
  out->len = cs_xcalloc(nn + 1, sizeof *out->len);
  out->lit = cs_xcalloc(nn + 1, sizeof *out->lit);
  out->lit_twin = cs_xcalloc(nn + 1, sizeof *out->lit_twin);
  out->lit_path = cs_xcalloc(nn + 1, sizeof *out->lit_path);
  /* A bad file is skipped and the rest still load: one hand-edited or truncated case must not
   * silently take every case sorted after it out of the replay. The first bad file is named. */
  size_t nbad = 0, nlegacy = 0;
  cs_err first = {{0}};
  cs_buf file = {0};
  for (size_t i = 0; i < nn; i++) {
    cs_buf_clear(&file);
    cs_buf_puts(&file, names[i]);
    free(names[i]);
    cs_err bad = {{0}};
    cJSON *root = load_corpus_case(file.data, &bad);
    /* From the old directory, only this implementation's own cases: another name that read alike
     * shared it, and a case's "impl" says whose it is. */
    const cJSON *whose = root && i >= own ? cJSON_GetObjectItemCaseSensitive(root, "impl") : NULL;
    if (i >= own && !(cJSON_IsString(whose) && !strcmp(whose->valuestring, impl))) {
      cJSON_Delete(root);
      continue;
    }
    nlegacy += i >= own;
    bool ok = false;
    int kind = root ? kind_of(root, file.data, &bad) : -1;
    char pname[128], tname[64];
    /* A case naming a property or target callsign does not know is bad here as in replay. */
    if (kind >= 0 && names_of(root, file.data, pname, sizeof pname, tname, sizeof tname, &bad))
      kind = -1;
    if (kind == 1) {
      cs_history *h = cs_arena_alloc(&out->arena, sizeof *h);
      ok = history_of(root, file.data, &out->arena, h, &bad) == 0 &&
           twin_of(root, h, file.data, &out->lit_twin[out->nlit], &bad) == 0;
      if (ok) {
        out->lit_path[out->nlit] = cs_arena_strc(&out->arena, file.data).ptr;
        out->lit[out->nlit++] = h;
      }
    } else if (kind == 0) {
      /* The corpus runs under the default bound: a case found under another is another case there. */
      uint32_t bound = 0;
      ok = bound_of(root, file.data, &bound, &bad) == 0;
      if (ok && bound && bound != CS_GEN_DEFAULT_MAX_ID_LEN) {
        cs_err_set(&bad, "%s: found under --max-id-len %u, not the corpus's bound: replay it on its own", file.data,
                   bound);
        ok = false;
      }
      if (ok && (ok = token_of(root, file.data, &out->v[out->n], &out->len[out->n], &bad) == 0)) {
        /* A token that now makes another history: the saved history is the case, replayed as it is. */
        cs_history *h = cs_arena_alloc(&out->arena, sizeof *h);
        if (token_is_stale(root, file.data, out->v[out->n], out->len[out->n], 0, pname, &out->arena, h)) {
          free(out->v[out->n]);
          out->v[out->n] = NULL;
          ok = twin_of(root, h, file.data, &out->lit_twin[out->nlit], &bad) == 0;
          if (ok) {
            out->lit_path[out->nlit] = cs_arena_strc(&out->arena, file.data).ptr;
            out->lit[out->nlit++] = h;
            if (out->nstale++ == 0)
              out->first_stale = out->lit_path[out->nlit - 1];
          }
        } else {
          out->n++;
        }
      }
    }
    cJSON_Delete(root);
    if (!ok && nbad++ == 0)
      first = bad;
  }
  cs_buf_free(&file);
  free(names);
  if (nbad == 0 && nlegacy) /* one warning line: the bad files, else the old directory */
    cs_err_set(err,
               "%s, named so by an earlier callsign, holds %zu of this implementation's cases: they replay too; "
               "move them to %s",
               legacy, nlegacy, path);
  free(path);
  free(legacy);
  if (nbad == 0)
    return nlegacy ? -1 : 0;
  char more[96] = "";
  if (nbad > 1)
    snprintf(more, sizeof more, ", and %zu more bad case file%s", nbad - 1, nbad > 2 ? "s" : "");
  /* The first message is cut, not the count: the line must still say how much was skipped. */
  int room = (int)(sizeof err->msg - sizeof " (corpus case skipped)" - strlen(more));
  return cs_err_set(err, "%.*s (corpus case skipped%s)", room, first.msg, more);
}

int cs_corpus_stale(const cs_corpus *c, cs_err *err) {
  if (!c->nstale)
    return 0;
  return cs_err_set(err,
                    "%zu corpus case%s no longer make%s the saved history from the token (saved by a callsign whose "
                    "generator differs; the first: %s): the saved histories are replayed as they are",
                    c->nstale, c->nstale > 1 ? "s" : "", c->nstale > 1 ? "" : "s", c->first_stale);
}

void cs_corpus_replay_first(const cs_corpus *c, cs_run_config *rc) {
  rc->replay = (const uint64_t *const *)c->v;
  rc->replay_len = c->len;
  rc->nreplay = c->n;
  rc->literal = c->lit;
  rc->literal_twins = c->lit_twin;
  rc->literal_paths = c->lit_path;
  rc->nliteral = c->nlit;
}

void cs_corpus_free(cs_corpus *c) {
  for (size_t i = 0; i < c->n; i++)
    free(c->v[i]);
  free(c->v);
  free(c->len);
  free(c->lit);
  free(c->lit_twin);
  free(c->lit_path);
  cs_arena_free(&c->arena);
  memset(c, 0, sizeof *c);
}

/* What a case file found under a candidate name holds. */
typedef enum {
  FILE_ABSENT, /* nothing there: the case is written there */
  FILE_SAME,   /* this case: left as it is */
  FILE_OTHER,  /* another case, kept: the next name is tried */
  FILE_BROKEN, /* not a case callsign can read: replaced */
} case_file;

/* What `file` holds, compared with this case: a token case's choices (`v1_key`, the token's cs1
 * form: a file saved with a cs1 token holds the case as well as one with its cs2 token) under the
 * same ID bound and still making its saved history, or a literal case's history. The message may
 * differ (an implementation with random IDs words each failure anew), and a committed corpus must
 * not change each time a run finds a case it already has. A stale file with the same token is
 * another case: it keeps replaying its saved history, and the failure its token makes now is new. */
static case_file file_holds(const char *file, const cs_str *v1_key, uint32_t max_id_len, const char *property,
                            const char *history_json) {
  struct stat st;
  if (stat(file, &st))
    return errno == ENOENT ? FILE_ABSENT : FILE_BROKEN;
  cs_err ignored = {{0}};
  cJSON *old = load_corpus_case(file, &ignored), *hist = NULL;
  int kind = old ? kind_of(old, file, &ignored) : -1;
  case_file held = kind < 0 ? FILE_BROKEN : FILE_OTHER;
  if (kind == 0 && v1_key) {
    uint64_t *v = NULL;
    size_t n = 0;
    uint32_t bound = 0;
    cs_arena a = {0};
    cs_history saved;
    if (token_of(old, file, &v, &n, &ignored) || bound_of(old, file, &bound, &ignored)) {
      held = FILE_BROKEN;
    } else {
      cs_buf k = {0};
      cs_choices_token_v1(v, n, &k);
      if (k.len == v1_key->len && !memcmp(k.data, v1_key->ptr, k.len) &&
          (bound ? bound : CS_GEN_DEFAULT_MAX_ID_LEN) == (max_id_len ? max_id_len : CS_GEN_DEFAULT_MAX_ID_LEN) &&
          !token_is_stale(old, file, v, n, bound, property, &a, &saved))
        held = FILE_SAME;
      cs_buf_free(&k);
    }
    free(v);
    cs_arena_free(&a);
  } else if (kind == 1 && history_json && (hist = cJSON_Parse(history_json))) {
    if (cJSON_Compare(cJSON_GetObjectItemCaseSensitive(old, "history"), hist, true))
      held = FILE_SAME;
  }
  cJSON_Delete(hist);
  cJSON_Delete(old);
  return held;
}

/* Names a case file may take before the case is refused: the first comes from its key alone (so a
 * committed corpus keeps its names), the others only when a file there holds another case. */
enum { CASE_NAMES = 16 };

/* One case file: dir/<impl>/<property>@<target>-<hex>.json, hex the first 4 bytes of SHA-256 of
 * name_key (of name_key, '#' and k for the k-th other name), holding the names, the token (literal
 * cases have none), the message and the history (JSON text, or null). Left as it is when a file
 * already holds the case; a file holding another case (a stale one of the same token, one of
 * another ID bound, one whose hash begins alike) is kept and the next name tried. Its path (heap)
 * goes to *path_out when path_out is not NULL. */
static int write_case(const char *dir, const char *impl, const char *property, const char *target_name, cs_str name_key,
                      const cs_str *token, uint32_t max_id_len, const char *message, const char *history_json,
                      const char *twin_json, char **path_out, cs_err *err) {
  char *path = impl_dir(dir, impl), hex[65];
  cs_buf file = {0}, body = {0}, key = {0};
  uint8_t d[32];
  cs_hasher *hs = NULL;
  int rc = -1;
  case_file held = FILE_OTHER;
  if (cs_mkdir_p(path, NULL, err))
    goto cleanup;
  hs = cs_hasher_new();
  if (!hs) {
    cs_err_set(err, "OpenSSL provides no SHA-256");
    goto cleanup;
  }
  for (int k = 0; k < CASE_NAMES && held == FILE_OTHER; k++) {
    cs_buf_clear(&key);
    cs_buf_put(&key, name_key.ptr, name_key.len);
    if (k)
      cs_buf_printf(&key, "#%d", k);
    cs_sha256(hs, key.data, key.len, d);
    cs_hex(d, 4, hex);
    cs_buf_clear(&file);
    cs_buf_printf(&file, "%s/%s@%s-%s.json", path, property, target_name, hex);
    held = file_holds(file.data, token ? &name_key : NULL, max_id_len, property, history_json);
  }
  if (held == FILE_SAME) {
    rc = 0;
    goto cleanup;
  }
  if (held == FILE_OTHER) {
    cs_err_set(err, "%s: this name and %d others hold other cases: the case is not saved", file.data, CASE_NAMES - 1);
    goto cleanup;
  }
  cs_buf_puts(&body, "{\n  \"impl\": ");
  cs_buf_json_str(&body, cs_str_c(impl));
  cs_buf_puts(&body, ",\n  \"property\": ");
  cs_buf_json_str(&body, cs_str_c(property));
  cs_buf_puts(&body, ",\n  \"target\": ");
  cs_buf_json_str(&body, cs_str_c(target_name));
  if (token) {
    cs_buf_puts(&body, ",\n  \"token\": ");
    cs_buf_json_str(&body, *token);
  }
  if (token && max_id_len && max_id_len != CS_GEN_DEFAULT_MAX_ID_LEN)
    cs_buf_printf(&body, ",\n  \"max_id_len\": %u", max_id_len);
  cs_buf_puts(&body, ",\n  \"message\": ");
  cs_buf_json_str(&body, cs_str_c(message));
  if (twin_json) {
    cs_buf_puts(&body, ",\n  \"planted_twin\": ");
    cs_buf_puts(&body, twin_json);
  }
  cs_buf_puts(&body, ",\n  \"history\": ");
  cs_buf_puts(&body, history_json ? history_json : "null");
  cs_buf_puts(&body, "\n}\n");
  /* A report may go to a FIFO; a corpus case may not: writing would wait for a reader. */
  struct stat st;
  if (stat(file.data, &st) == 0 && !S_ISREG(st.st_mode))
    cs_err_set(err, "%s: not a regular file: the case is not saved", file.data);
  else
    rc = cs_write_file(file.data, body.data, body.len, err);
cleanup:
  if (rc == 0 && path_out) {
    *path_out = file.data; /* handed over, not freed */
    file = (cs_buf){0};
  }
  cs_hasher_free(hs);
  cs_buf_free(&file);
  cs_buf_free(&body);
  cs_buf_free(&key);
  free(path);
  return rc;
}

int cs_corpus_save(const char *dir, const char *impl, const cs_outcome *cell, const char *target_name,
                   uint32_t max_id_len, cs_err *err) {
  cs_buf tok = {0}, key = {0};
  cs_choices_token(cell->choices, cell->nchoices, &tok);
  /* The file name comes from the token's "cs1." form: a case saved before tokens had their check
   * keeps its file when it is found again. */
  cs_choices_token_v1(cell->choices, cell->nchoices, &key);
  cs_str t = cs_buf_view(&tok);
  char tj[CS_TWIN_JSON];
  cs_literal_twin_json(&cell->planted, tj);
  int rc = write_case(dir, impl, cell->prop->name, target_name, cs_buf_view(&key), &t, max_id_len, cell->message,
                      cell->history_json, cell->planted.set ? tj : NULL, NULL, err);
  cs_buf_free(&tok);
  cs_buf_free(&key);
  return rc;
}

int cs_corpus_writable(const char *dir, const char *impl, cs_err *err) {
  char *path = impl_dir(dir, impl);
  int rc = cs_dir_writable(path, err);
  free(path);
  return rc;
}

int cs_corpus_save_literal(const char *dir, const char *impl, const char *property, const char *target_name,
                           const char *message, const cs_history *h, const cs_literal_twin *twin, char **path_out,
                           cs_err *err) {
  cs_buf hist = {0};
  cs_history_write(&hist, h);
  char tj[CS_TWIN_JSON];
  cs_literal_twin_json(twin, tj);
  int rc = write_case(dir, impl, property, target_name, cs_buf_view(&hist), NULL, 0, message, hist.data,
                      twin ? tj : NULL, path_out, err);
  cs_buf_free(&hist);
  return rc;
}
