/* harness/vectors.c: loading the canonical vectors and checking an implementation against them. */
#include "harness/vectors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/history_json.h"
#include "core/utf8.h"
#include "generators/labels.h"
#include "harness/cli.h"
#include "providers/target.h"

const char *cs_vectors_locate(char *buf, size_t cap) {
  if (access(CS_VECTORS_DEFAULT, R_OK) == 0)
    return CS_VECTORS_DEFAULT;
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return CS_VECTORS_DEFAULT;
  exe[n] = 0;
  for (int up = 0; up < 3; up++) { /* the binary's directory, then its parents */
    char *slash = strrchr(exe, '/');
    if (!slash)
      break;
    *slash = 0;
    if ((size_t)snprintf(buf, cap, "%s/%s", exe, CS_VECTORS_DEFAULT) < cap && access(buf, R_OK) == 0)
      return buf;
  }
  return CS_VECTORS_DEFAULT;
}

/* One expected answer ({"calls":[...],"results":[...]}, each ID a string or null) sized for the
 * history: a shorter list would read as the implementation's answer being wrong, not the file. */
static int check_answer(const cJSON *ans, const char *what, const cs_history *h, const char *path, int tc,
                        cs_err *err) {
  if (!cJSON_IsObject(ans))
    return cs_err_set(err, "%s: tcId %d: %s is not an object of \"calls\" and \"results\"", path, tc, what);
  const char *dup;
  if (cs_json_repeated_name(ans, &dup))
    return cs_err_set(err, "%s: out of memory", path);
  if (dup)
    return cs_err_set(err, "%s: tcId %d: %s names \"%.60s\" twice", path, tc, what, dup);
  static const char *const keys[] = {"calls", "results"};
  for (int k = 0; k < 2; k++) {
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(ans, keys[k]);
    uint32_t want = k ? cs_history_nresults(h) : cs_history_ncalls(h);
    if (!cJSON_IsArray(arr))
      return cs_err_set(err, "%s: tcId %d: %s.%s is not an array", path, tc, what, keys[k]);
    int i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, i++)
      if (!cJSON_IsString(e) && !cJSON_IsNull(e))
        return cs_err_set(err, "%s: tcId %d: %s.%s[%d] is not a string or null", path, tc, what, keys[k], i);
    if ((uint32_t)i != want)
      return cs_err_set(err, "%s: tcId %d: %s.%s holds %d IDs, the history has %u %s", path, tc, what, keys[k], i, want,
                        keys[k]);
  }
  for (const cJSON *m = ans->child; m; m = m->next)
    if (strcmp(m->string, "calls") && strcmp(m->string, "results"))
      return cs_err_set(err, "%s: tcId %d: %s has an unknown member \"%.60s\"", path, tc, what, m->string);
  return 0;
}

/* The expectations of one test: its canonical answer and one wire answer for every target, by name. */
static int check_expectations(const cJSON *t, const cs_history *h, const char *path, int tc, cs_err *err) {
  if (check_answer(cJSON_GetObjectItemCaseSensitive(t, "canonical"), "canonical", h, path, tc, err))
    return -1;
  const cJSON *wire = cJSON_GetObjectItemCaseSensitive(t, "wire");
  if (!cJSON_IsObject(wire))
    return cs_err_set(err, "%s: tcId %d: wire is not an object keyed by target", path, tc);
  const char *dup;
  if (cs_json_repeated_name(wire, &dup))
    return cs_err_set(err, "%s: out of memory", path);
  if (dup)
    return cs_err_set(err, "%s: tcId %d: wire names \"%.60s\" twice", path, tc, dup);
  for (const cJSON *m = wire->child; m; m = m->next)
    if (cs_target_parse(m->string) < 0)
      return cs_err_set(err, "%s: tcId %d: wire names \"%.60s\", not a target", path, tc, m->string);
  for (int k = 0; k < CS_TARGET_COUNT; k++) {
    const char *name = cs_target_get((cs_target_id)k)->name;
    char what[64];
    snprintf(what, sizeof what, "wire.%s", name);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(wire, name);
    if (!w)
      return cs_err_set(err, "%s: tcId %d: wire has no %s", path, tc, name);
    if (check_answer(w, what, h, path, tc, err))
      return -1;
  }
  return 0;
}

/* A test's comment (a string) and flags (an array of label names, the keys of "notes"): --generate
 * keeps both and counts the flags, and finds its named tests by their comment. Absent ones are an
 * error only in a complete file; --generate gives a test it adds both. */
static int check_comment_flags(const cJSON *t, bool counted, const char *path, int tc, cs_err *err) {
  const cJSON *cm = cJSON_GetObjectItemCaseSensitive(t, "comment");
  if (!cm && counted)
    return cs_err_set(err, "%s: tcId %d has no comment", path, tc);
  if (cm && !cJSON_IsString(cm))
    return cs_err_set(err, "%s: tcId %d: comment is not a string", path, tc);
  const cJSON *fl = cJSON_GetObjectItemCaseSensitive(t, "flags");
  if (!fl && counted)
    return cs_err_set(err, "%s: tcId %d has no flags", path, tc);
  if (fl && !cJSON_IsArray(fl))
    return cs_err_set(err, "%s: tcId %d: flags is not an array of label names", path, tc);
  int i = 0;
  for (const cJSON *f = fl ? fl->child : NULL; f; f = f->next, i++) {
    if (!cJSON_IsString(f))
      return cs_err_set(err, "%s: tcId %d: flags[%d] is not a label name", path, tc, i);
    if (cs_label_find(f->valuestring) < 0) {
      char shown[64]; /* printable ASCII only: the message stays one line */
      size_t n = 0;
      for (const char *c = f->valuestring; *c && n < 60; c++)
        shown[n++] = *c >= 0x20 && *c < 0x7f ? *c : '?';
      shown[n] = 0;
      return cs_err_set(err, "%s: tcId %d: flags[%d] \"%s\" is not a label name", path, tc, i, shown);
    }
  }
  return 0;
}

/* A member named twice reads as its first here and its last elsewhere: the file says two things. */
static int names_once(const cJSON *obj, const char *path, const char *what, int tc, cs_err *err) {
  const char *dup;
  if (cs_json_repeated_name(obj, &dup))
    return cs_err_set(err, "%s: out of memory", path);
  if (!dup)
    return 0;
  if (tc)
    return cs_err_set(err, "%s: tcId %d names \"%.60s\" twice", path, tc, dup);
  return cs_err_set(err, "%s: %s names \"%.60s\" twice", path, what, dup);
}

cJSON *cs_vectors_load(const char *path, bool counted, cs_err *err) {
  const char *what = "a callsign-canonical-v1 vector file";
  int n = 0, *ids = NULL; /* the tcIds seen */
  cs_arena a = {0};       /* each history, parsed to check it and dropped */
  cJSON *root = cs_read_json_object(path, what, 0, err);
  if (!root)
    return NULL;
  if (names_once(root, path, "the file", 0, err))
    goto bad;
  const cJSON *alg = cJSON_GetObjectItemCaseSensitive(root, "algorithm");
  const cJSON *groups = cJSON_GetObjectItemCaseSensitive(root, "testGroups");
  if (!cJSON_IsString(alg) || strcmp(alg->valuestring, "callsign-canonical-v1") || !cJSON_IsArray(groups)) {
    cs_err_set(err, "%s: not %s", path, what);
    goto bad;
  }
  /* The data is the specification: a file that does not say what it holds is refused whole. */
  for (const cJSON *g = groups->child; g; g = g->next) {
    if (cJSON_IsObject(g) && names_once(g, path, "a test group", 0, err))
      goto bad;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(g, "type");
    if (!cJSON_IsString(type) || strcmp(type->valuestring, CS_VECTORS_GROUP_TYPE) != 0) {
      cs_err_set(err,
                 "%s: a test group's type is %s%.60s%s, not \"" CS_VECTORS_GROUP_TYPE "\" (the one the format defines)",
                 path, cJSON_IsString(type) ? "\"" : "", cJSON_IsString(type) ? type->valuestring : "missing",
                 cJSON_IsString(type) ? "\"" : "");
      goto bad;
    }
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(g, "tests");
    if (!cJSON_IsArray(tests)) {
      cs_err_set(err, "%s: a test group without a \"tests\" array", path);
      goto bad;
    }
    for (const cJSON *t = tests->child; t; t = t->next, n++) {
      const cJSON *id = cJSON_GetObjectItemCaseSensitive(t, "tcId");
      if (!cJSON_IsNumber(id) || id->valuedouble < 1 || id->valuedouble > CS_VECTORS_MAX_TCID ||
          id->valuedouble != (double)id->valueint) {
        cs_err_set(err, "%s: test %d has no whole tcId from 1 to %d", path, n + 1, CS_VECTORS_MAX_TCID);
        goto bad;
      }
      if (names_once(t, path, "a test", id->valueint, err))
        goto bad;
      const cJSON *hist = cJSON_GetObjectItemCaseSensitive(t, "history");
      if (!cJSON_IsObject(hist)) {
        cs_err_set(err, "%s: tcId %d has no history object", path, id->valueint);
        goto bad;
      }
      /* A history that does not parse is a broken file, not a test the implementation fails. */
      cs_history h;
      cs_err perr = {{0}};
      cs_arena_reset(&a);
      if (cs_history_from_cjson(hist, "history", NULL, &a, &h, &perr)) {
        cs_err_set(err, "%s: tcId %d: %s", path, id->valueint, perr.msg);
        goto bad;
      }
      /* Expectations are read only from a complete file; --generate recomputes them. */
      if (counted && check_expectations(t, &h, path, id->valueint, err))
        goto bad;
      if (check_comment_flags(t, counted, path, id->valueint, err))
        goto bad;
      for (int k = 0; k < n; k++) /* a few hundred tests: a scan is enough */
        if (ids[k] == id->valueint) {
          cs_err_set(err, "%s: tcId %d appears twice", path, id->valueint);
          goto bad;
        }
      int *grown = realloc(ids, (size_t)(n + 1) * sizeof *ids);
      if (!grown) {
        cs_err_set(err, "%s: out of memory", path);
        goto bad;
      }
      ids = grown;
      ids[n] = id->valueint;
    }
  }
  const cJSON *count = cJSON_GetObjectItemCaseSensitive(root, "numberOfTests");
  if (!n) {
    cs_err_set(err, "%s: holds no test", path);
    goto bad;
  }
  if (counted && (!cJSON_IsNumber(count) || count->valuedouble != (double)n)) {
    cs_err_set(err, "%s: numberOfTests is not the %d tests the file holds", path, n);
    goto bad;
  }
  free(ids);
  cs_arena_free(&a);
  return root;
bad:
  free(ids);
  cs_arena_free(&a);
  cJSON_Delete(root);
  return NULL;
}

/* An ID for a message: a JSON string (null for NULL), cut after 80 bytes of the ID. */
static void show_id(cs_buf *b, cs_str id) {
  if (id.ptr && id.len > 80)
    id.len = cs_utf8_clamp(id.ptr, id.len, 80);
  cs_buf_json_str(b, id);
}

static int expect_ids(const cJSON *arr, const cs_str *got, uint32_t n, const char *what, int tc, char *why,
                      size_t why_len) {
  if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != (int)n) {
    snprintf(why, why_len, "tcId %d: expected %d %s, got %u", tc, cJSON_GetArraySize(arr), what, n);
    return 0;
  }
  uint32_t i = 0;
  for (const cJSON *e = arr->child; e; e = e->next, i++) {
    cs_str want = cJSON_IsString(e) ? cs_str_c(e->valuestring) : CS_NULL_STR;
    if (!cs_str_eq(want, got[i])) {
      cs_buf w = {0}, g = {0};
      show_id(&w, want);
      show_id(&g, got[i]);
      snprintf(why, why_len, "tcId %d: %s %u expected %s, got %s", tc, what, i, w.data, g.data);
      cs_buf_free(&w);
      cs_buf_free(&g);
      return 0;
    }
  }
  return 1;
}

int cs_vectors_check_impl(cs_impl *impl, const cJSON *root, cs_vector_mismatch *m, uint64_t *checked, cs_err *err) {
  const cJSON *groups = cJSON_GetObjectItemCaseSensitive(root, "testGroups");
  cs_arena a = {0};
  int result = 1;
  *checked = 0;
  memset(m, 0, sizeof *m);
  for (const cJSON *g = groups->child; g && result == 1; g = g->next) {
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(g, "tests");
    for (const cJSON *t = tests ? tests->child : NULL; t && result == 1; t = t->next) {
      cs_arena_reset(&a);
      const cJSON *id = cJSON_GetObjectItemCaseSensitive(t, "tcId");
      int tc = cJSON_IsNumber(id) ? id->valueint : -1;
      cs_history h;
      cs_err perr;
      if (cs_history_from_cjson(cJSON_GetObjectItemCaseSensitive(t, "history"), "history", NULL, &a, &h, &perr)) {
        cs_err_set(err, "vectors tcId %d: %s", tc, perr.msg);
        result = -1;
        break;
      }
      const cJSON *canon = cJSON_GetObjectItemCaseSensitive(t, "canonical");
      cs_request req = {.op = CS_OP_CANONICALIZE, .history = &h};
      cs_reply rep;
      memset(&rep, 0, sizeof rep);
      if (cs_impl_exec(impl, &req, &rep, 1, &a, err)) {
        result = -1;
        break;
      }
      (*checked)++;
      if (rep.status != CS_REPLY_OK) {
        snprintf(m->why, sizeof m->why, "tcId %d: %s: %.*s", tc, cs_reply_status_name(rep.status),
                 (int)(rep.message.len > 300 ? 300 : rep.message.len), rep.message.ptr ? rep.message.ptr : "");
        result = 0;
      } else if (!expect_ids(cJSON_GetObjectItemCaseSensitive(canon, "calls"), rep.answer.calls, rep.answer.ncalls,
                             "call", tc, m->why, sizeof m->why) ||
                 !expect_ids(cJSON_GetObjectItemCaseSensitive(canon, "results"), rep.answer.results,
                             rep.answer.nresults, "result", tc, m->why, sizeof m->why)) {
        result = 0;
        cs_buf ab = {0};
        cs_answer_write(&ab, &rep.answer);
        m->answer_json = ab.data;
      }
      if (result == 0) {
        cs_buf b = {0};
        cs_history_write(&b, &h);
        m->history_json = b.data;
        m->turns = h.nturns;
        m->calls = cs_history_ncalls(&h);
      }
    }
  }
  cs_arena_free(&a);
  return result;
}
