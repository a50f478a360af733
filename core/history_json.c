/* core/history_json.c: strict PROTOCOL.md history reader (cJSON) and compact writer. */
#include "core/history_json.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"

void cs_json_line_col(cs_str json, size_t off, size_t *line, size_t *col) {
  size_t l = 1, c = 1;
  for (size_t i = 0; i < off && i < json.len; i++) {
    if (json.ptr[i] == '\n')
      l++, c = 1;
    else if (((unsigned char)json.ptr[i] & 0xC0) != 0x80)
      c++;
  }
  *line = l;
  *col = c;
}

int cs_json_precheck(cs_str json, size_t max_bytes, cs_err *err) {
  size_t line, col, bad;
  if (!max_bytes)
    max_bytes = 64u << 20;
  if (json.len > max_bytes)
    return cs_err_set(err, "input is %zu bytes, the limit is %zu", json.len, max_bytes);
  if (!cs_utf8_valid(json.ptr, json.len, &bad)) {
    cs_json_line_col(json, bad, &line, &col);
    return cs_err_set(err, "%zu:%zu: %s", line, col,
                      json.ptr[bad] == 0 ? "NUL byte in input" : "invalid UTF-8 in input");
  }
  /* \u0000 can only occur inside a string; an odd run of backslashes before 'u' makes it an escape. */
  for (size_t i = 0; i + 5 < json.len; i++) {
    if (json.ptr[i] != '\\')
      continue;
    size_t run = 0;
    while (i + run < json.len && json.ptr[i + run] == '\\')
      run++;
    size_t u = i + run;
    if (run % 2 == 1 && u + 4 < json.len && json.ptr[u] == 'u' && memcmp(json.ptr + u + 1, "0000", 4) == 0) {
      cs_json_line_col(json, u - 1, &line, &col);
      return cs_err_set(err,
                        "%zu:%zu: \\u0000 is not allowed (callsign holds strings as text without U+0000, payloads too)",
                        line, col);
    }
    i = u - 1;
  }
  return 0;
}

/* Locating syntax errors. cJSON reports where it gave up, often the start of the enclosing value,
 * and cannot tell a truncated input from a wrong byte; this scanner, run only after cJSON failed,
 * finds the first offending byte and names the reason. It is iterative, so depth costs no stack. */
#define JSON_MAX_DEPTH 1000 /* cJSON's CJSON_NESTING_LIMIT */

typedef struct {
  size_t off;      /* offset of the first offending byte (json.len: the input ended early) */
  const char *why; /* reason; NULL when the scanner found nothing wrong */
} syntax_error;

static bool hex4(cs_str j, size_t at, unsigned *v) {
  if (at + 4 > j.len)
    return false;
  *v = 0;
  for (size_t k = 0; k < 4; k++) {
    char c = j.ptr[at + k];
    unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                 : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                 : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                        : 16u;
    if (d > 15)
      return false;
    *v = *v << 4 | d;
  }
  return true;
}

/* Scans the string starting at the quote j.ptr[*i]; on success *i is just past the closing quote. */
static bool scan_string(cs_str j, size_t *i, syntax_error *e) {
  size_t p = *i + 1;
  while (p < j.len && j.ptr[p] != '"') {
    if (j.ptr[p] != '\\') {
      p++;
      continue;
    }
    if (p + 1 >= j.len)
      goto truncated;
    char c = j.ptr[p + 1];
    if (c != 'u') {
      if (!strchr("\"\\/bfnrt", c) || c == 0) {
        *e = (syntax_error){p, "invalid escape sequence"};
        return false;
      }
      p += 2;
      continue;
    }
    unsigned v, w;
    if (p + 6 > j.len)
      goto truncated; /* cut inside the escape */
    if (!hex4(j, p + 2, &v)) {
      *e = (syntax_error){p, "invalid \\u escape (expected 4 hex digits)"};
      return false;
    }
    if (v >= 0xD800 && v <= 0xDBFF) { /* a high surrogate must be followed by a low one */
      if (p + 12 > j.len && (p + 6 == j.len || j.ptr[p + 6] == '\\') && (p + 7 >= j.len || j.ptr[p + 7] == 'u'))
        goto truncated; /* cut inside the pair */
      if (p + 12 > j.len || j.ptr[p + 6] != '\\' || j.ptr[p + 7] != 'u' || !hex4(j, p + 8, &w) || w < 0xDC00 ||
          w > 0xDFFF) {
        *e = (syntax_error){p, "unpaired UTF-16 surrogate escape"};
        return false;
      }
      p += 12;
      continue;
    }
    if (v >= 0xDC00 && v <= 0xDFFF) {
      *e = (syntax_error){p, "unpaired UTF-16 surrogate escape"};
      return false;
    }
    p += 6;
  }
  if (p < j.len) {
    *i = p + 1;
    return true;
  }
truncated:
  *e = (syntax_error){j.len, "JSON ends early (truncated input?)"};
  return false;
}

static bool scan_number(cs_str j, size_t *i, syntax_error *e) {
  size_t p = *i;
#define DIGIT(k) ((k) < j.len && j.ptr[k] >= '0' && j.ptr[k] <= '9')
  if (p < j.len && j.ptr[p] == '-')
    p++;
  if (!DIGIT(p))
    goto bad;
  if (j.ptr[p] == '0')
    p++;
  else
    while (DIGIT(p))
      p++;
  if (p < j.len && j.ptr[p] == '.') {
    p++;
    if (!DIGIT(p))
      goto bad;
    while (DIGIT(p))
      p++;
  }
  if (p < j.len && (j.ptr[p] == 'e' || j.ptr[p] == 'E')) {
    p++;
    if (p < j.len && (j.ptr[p] == '+' || j.ptr[p] == '-'))
      p++;
    if (!DIGIT(p))
      goto bad;
    while (DIGIT(p))
      p++;
  }
#undef DIGIT
  *i = p;
  return true;
bad:
  *e = (syntax_error){p, p >= j.len ? "JSON ends early (truncated input?)" : "malformed number"};
  return false;
}

/* The length of the run at the start of p[0..n) of plain string content: no '"', no '\\', no control
 * character. Eight bytes at a time: strings are most of an answer, and every answer is scanned. */
static size_t plain_run(const char *p, size_t n) {
  const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
  size_t k = 0;
  for (; k + 8 <= n; k += 8) {
    uint64_t w, q, b;
    memcpy(&w, p + k, 8);
    q = w ^ ones * '"';
    b = w ^ ones * '\\';
    /* (x - 0x01..) & ~x & 0x80.. is not 0 when a byte of x is 0; with 0x20.., when one is below 0x20 */
    if ((((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b)) & high)
      break;
  }
  while (k < n && p[k] != '"' && p[k] != '\\' && (unsigned char)p[k] >= 0x20)
    k++;
  return k;
}

int cs_json_strict_tokens(cs_str j, cs_err *err) {
  char why[80];
  size_t i = 0, line, col;
  while (i < j.len) {
    unsigned char c = (unsigned char)j.ptr[i];
    if (c == '"') {
      /* The text parsed, so strings end where the parser found them to end. It checked each escape,
       * whose second byte may be a quote. */
      for (i++;; i += 2) {
        i += plain_run(j.ptr + i, j.len - i);
        if (i + 1 >= j.len || j.ptr[i] != '\\')
          break;
      }
      if (i < j.len && (unsigned char)j.ptr[i] < 0x20) {
        snprintf(why, sizeof why, "raw control character U+%04X in a string (it must be escaped)",
                 (unsigned char)j.ptr[i]);
        goto bad;
      }
      i++;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      /* strtod takes 5. -.5 1.e5 and 05; scan_number refuses the first three and stops after the 0
       * of the last. */
      size_t start = i;
      syntax_error e;
      bool ok = scan_number(j, &i, &e);
      if (!ok || (i < j.len && j.ptr[i] >= '0' && j.ptr[i] <= '9')) {
        snprintf(why, sizeof why, "%s", ok ? "number with a leading zero" : "malformed number");
        i = start;
        goto bad;
      }
    } else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      snprintf(why, sizeof why, "control character U+%04X outside a string", c);
      goto bad;
    } else {
      i++;
    }
  }
  return 0;
bad:
  cs_json_line_col(j, i, &line, &col);
  return cs_err_set(err, "%zu:%zu: %s", line, col, why);
}

static syntax_error find_syntax_error(cs_str j) {
  enum { VALUE, ARRAY_FIRST, OBJECT_FIRST, OBJECT_KEY, COLON, AFTER } state = VALUE;
  unsigned char in_object[JSON_MAX_DEPTH]; /* per open container: 1 object, 0 array */
  size_t depth = 0, i = 0;
  syntax_error e = {0, NULL};
  if (j.len >= 3 && memcmp(j.ptr, "\xef\xbb\xbf", 3) == 0)
    i = 3; /* cJSON skips a UTF-8 byte-order mark */
  for (;;) {
    while (i < j.len && (j.ptr[i] == ' ' || j.ptr[i] == '\t' || j.ptr[i] == '\n' || j.ptr[i] == '\r'))
      i++;
    if (i >= j.len) {
      if (state == AFTER && depth == 0)
        return e; /* a complete value: nothing found */
      return (syntax_error){j.len, "JSON ends early (truncated input?)"};
    }
    char c = j.ptr[i];
    switch (state) {
    case ARRAY_FIRST:
      if (c == ']') {
        depth--, i++, state = AFTER;
        continue;
      }
      /* fall through */
    case VALUE:
      if (c == '{' || c == '[') {
        if (depth == JSON_MAX_DEPTH)
          return (syntax_error){i, "JSON nested deeper than 1000 levels"};
        in_object[depth++] = c == '{';
        i++, state = c == '{' ? OBJECT_FIRST : ARRAY_FIRST;
      } else if (c == '"') {
        if (!scan_string(j, &i, &e))
          return e;
        state = AFTER;
      } else if (c == '-' || (c >= '0' && c <= '9')) {
        if (!scan_number(j, &i, &e))
          return e;
        state = AFTER;
      } else if (c == 't' || c == 'f' || c == 'n') {
        const char *word = c == 't' ? "true" : c == 'f' ? "false" : "null";
        size_t k = 0, n = strlen(word);
        while (k < n && i + k < j.len && j.ptr[i + k] == word[k])
          k++;
        if (k < n)
          return (syntax_error){i + k, i + k >= j.len ? "JSON ends early (truncated input?)" : "invalid literal"};
        i += n, state = AFTER;
      } else {
        return (syntax_error){i, "expected a JSON value"};
      }
      break;
    case OBJECT_FIRST:
      if (c == '}') {
        depth--, i++, state = AFTER;
        continue;
      }
      /* fall through */
    case OBJECT_KEY:
      if (c != '"')
        return (syntax_error){i, "expected a string key"};
      if (!scan_string(j, &i, &e))
        return e;
      state = COLON;
      break;
    case COLON:
      if (c != ':')
        return (syntax_error){i, "expected ':'"};
      i++, state = VALUE;
      break;
    case AFTER:
      if (depth == 0)
        return (syntax_error){i, "unexpected data after the history object"};
      if (c == ',') {
        i++, state = in_object[depth - 1] ? OBJECT_KEY : VALUE;
      } else if (c == (in_object[depth - 1] ? '}' : ']')) {
        depth--, i++;
      } else {
        return (syntax_error){i, in_object[depth - 1] ? "expected ',' or '}'" : "expected ',' or ']'"};
      }
      break;
    }
  }
}

typedef struct {
  const cs_history_limits *lim;
  cs_arena *a;
  cs_err *err;
  char path[160];
} reader;

static size_t lim_id(const reader *r) {
  return r->lim && r->lim->max_id_bytes ? r->lim->max_id_bytes : CS_DEFAULT_MAX_ID_BYTES;
}

static const char *type_name(const cJSON *v) {
  if (cJSON_IsNull(v))
    return "null";
  if (cJSON_IsBool(v))
    return "a boolean";
  if (cJSON_IsNumber(v))
    return "a number";
  if (cJSON_IsString(v))
    return "a string";
  if (cJSON_IsArray(v))
    return "an array";
  if (cJSON_IsObject(v))
    return "an object";
  return "an invalid value";
}

/* Reads member `key` of `obj` as a string. `nullable`: null is allowed (-> null cs_str).
 * `required`: absence is an error; otherwise absence gives `*out` = null. */
static int get_str(reader *r, const cJSON *obj, const char *key, int nullable, int required, size_t max, cs_str *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  *out = CS_NULL_STR;
  if (!v) {
    if (required)
      return cs_err_set(r->err, "%s: missing \"%s\"", r->path, key);
    return 0;
  }
  if (cJSON_IsNull(v)) {
    if (!nullable)
      return cs_err_set(r->err, "%s.%s: expected a string, got null", r->path, key);
    return 0;
  }
  if (!cJSON_IsString(v) || !v->valuestring)
    return cs_err_set(r->err, "%s.%s: expected a string, got %s", r->path, key, type_name(v));
  size_t n = strlen(v->valuestring);
  if (max && n > max)
    return cs_err_set(r->err, "%s.%s: string is %zu bytes, the limit is %zu", r->path, key, n, max);
  if (!cs_utf8_valid(v->valuestring, n, NULL))
    return cs_err_set(r->err, "%s.%s: not valid UTF-8 (unpaired surrogate escape?)", r->path, key);
  *out = cs_arena_str(r->a, cs_str_n(v->valuestring, n));
  return 0;
}

/* Every object of the history but a payload (args, content, text: the tool's own JSON) has each
 * member name once: a history that names an ID twice says two things. */
static int unique_names(reader *r, const cJSON *obj) {
  const char *dup;
  if (cs_json_repeated_name(obj, &dup))
    return cs_err_set(r->err, "%s: out of memory checking member names", r->path);
  if (dup)
    return cs_err_set(r->err, "%s: the member \"%.60s\" occurs twice (a name may occur once)", r->path, dup);
  return 0;
}

static int get_payload(reader *r, const cJSON *obj, const char *key, cs_str *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  *out = CS_NULL_STR;
  if (!v || cJSON_IsNull(v))
    return 0; /* null payload stays null (the writer would otherwise turn it into the text "null") */
  char *txt = cJSON_PrintUnformatted(v);
  if (!txt)
    return cs_err_set(r->err, "%s.%s: cannot be printed", r->path, key);
  /* A number past a double (1e400) prints as null: it is read as the null it becomes, so a
   * history written and read again is the same (fuzz summaries are signed by that text). */
  if (strcmp(txt, "null") != 0)
    *out = cs_arena_strc(r->a, txt);
  cJSON_free(txt);
  return 0;
}

static int get_array(reader *r, const cJSON *obj, const char *key, const cJSON **out, int *n) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  *out = NULL;
  *n = 0;
  if (!v || cJSON_IsNull(v))
    return 0;
  if (!cJSON_IsArray(v))
    return cs_err_set(r->err, "%s.%s: expected an array, got %s", r->path, key, type_name(v));
  *out = v;
  *n = cJSON_GetArraySize(v);
  return 0;
}

static int read_call(reader *r, const cJSON *v, cs_call *c) {
  if (!cJSON_IsObject(v))
    return cs_err_set(r->err, "%s: expected an object, got %s", r->path, type_name(v));
  if (unique_names(r, v))
    return -1;
  if (get_str(r, v, "id", 1, 0, lim_id(r), &c->id) || get_str(r, v, "name", 0, 1, lim_id(r), &c->name) ||
      get_payload(r, v, "args", &c->args))
    return -1;
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(v, "server");
  if (s && !cJSON_IsBool(s) && !cJSON_IsNull(s))
    return cs_err_set(r->err, "%s.server: expected a boolean, got %s", r->path, type_name(s));
  c->server = s && cJSON_IsTrue(s);
  return 0;
}

static int read_result(reader *r, const cJSON *v, cs_result *res) {
  if (!cJSON_IsObject(v))
    return cs_err_set(r->err, "%s: expected an object, got %s", r->path, type_name(v));
  if (unique_names(r, v))
    return -1;
  if (get_str(r, v, "call_id", 1, 0, lim_id(r), &res->call_id) || get_str(r, v, "name", 0, 1, lim_id(r), &res->name))
    return -1;
  const cJSON *content = cJSON_GetObjectItemCaseSensitive(v, "content");
  if (content && cJSON_IsString(content))
    return get_str(r, v, "content", 1, 0, 0, &res->content);
  res->content_json = content != NULL; /* any other value is the tool's JSON: kept as such, as args are */
  return get_payload(r, v, "content", &res->content);
}

static int read_turn(reader *r, const cJSON *v, cs_turn *t) {
  size_t base = strlen(r->path);
  if (!cJSON_IsObject(v))
    return cs_err_set(r->err, "%s: expected an object, got %s", r->path, type_name(v));
  if (unique_names(r, v))
    return -1;
  cs_str role;
  if (get_str(r, v, "role", 0, 1, 64, &role))
    return -1;
  static const char *const roles[] = {"system", "user", "assistant", "tool"};
  int ri = -1;
  for (int i = 0; i < 4; i++)
    if (cs_str_eq_c(role, roles[i]))
      ri = i;
  if (ri < 0)
    return cs_err_set(r->err, "%s.role: unknown role \"%.40s\" (expected system, user, assistant or tool)", r->path,
                      role.ptr);
  t->role = (cs_role)ri;
  t->provider = CS_PROV_UNKNOWN;
  if (get_str(r, v, "turn_key", 1, 0, lim_id(r), &t->turn_key) || get_payload(r, v, "text", &t->text))
    return -1;
  const cJSON *tx = cJSON_GetObjectItemCaseSensitive(v, "text");
  t->text_json = tx && !cJSON_IsString(tx); /* as a result's content */
  if (tx && cJSON_IsString(tx) && get_str(r, v, "text", 1, 0, 0, &t->text))
    return -1;

  const cJSON *arr;
  int n;
  if (t->role == CS_ROLE_ASSISTANT) {
    cs_str prov;
    if (get_str(r, v, "provider", 1, 0, 64, &prov))
      return -1;
    if (prov.ptr) {
      int p = cs_provider_parse(prov);
      if (p < 0)
        return cs_err_set(r->err, "%s.provider: unknown provider \"%.40s\"", r->path, prov.ptr);
      t->provider = (cs_provider)p;
    }
    if (get_array(r, v, "calls", &arr, &n))
      return -1;
    t->ncalls = (uint32_t)n;
    t->calls = CS_ARENA_NEW(r->a, cs_call, (size_t)n + 1);
    int i = 0;
    for (const cJSON *c = arr ? arr->child : NULL; c; c = c->next, i++) {
      snprintf(r->path + base, sizeof r->path - base, ".calls[%d]", i);
      if (read_call(r, c, &t->calls[i]))
        return -1;
    }
    r->path[base] = 0; /* back to the turn's path, for what is read next */
  } else if (cJSON_GetObjectItemCaseSensitive(v, "calls")) {
    return cs_err_set(r->err, "%s.calls: only assistant turns carry calls", r->path);
  }
  if (t->role == CS_ROLE_TOOL) {
    if (get_array(r, v, "results", &arr, &n))
      return -1;
    t->nresults = (uint32_t)n;
    t->results = CS_ARENA_NEW(r->a, cs_result, (size_t)n + 1);
    int i = 0;
    for (const cJSON *c = arr ? arr->child : NULL; c; c = c->next, i++) {
      snprintf(r->path + base, sizeof r->path - base, ".results[%d]", i);
      if (read_result(r, c, &t->results[i]))
        return -1;
    }
    r->path[base] = 0;
  } else if (cJSON_GetObjectItemCaseSensitive(v, "results")) {
    return cs_err_set(r->err, "%s.results: only tool turns carry results", r->path);
  }
  r->path[base] = 0;
  return 0;
}

int cs_history_from_cjson(const cJSON *v, const char *path, const cs_history_limits *lim, cs_arena *a, cs_history *out,
                          cs_err *err) {
  reader r = {lim, a, err, {0}};
  snprintf(r.path, sizeof r.path, "%s", path && *path ? path : "history");
  memset(out, 0, sizeof *out);
  if (!cJSON_IsObject(v))
    return cs_err_set(err, "%s: expected an object, got %s", r.path, type_name(v));
  if (unique_names(&r, v))
    return -1;
  const cJSON *turns = cJSON_GetObjectItemCaseSensitive(v, "turns");
  if (!turns)
    return cs_err_set(err, "%s: missing \"turns\"", r.path);
  if (!cJSON_IsArray(turns))
    return cs_err_set(err, "%s.turns: expected an array, got %s", r.path, type_name(turns));
  size_t max_turns = lim && lim->max_turns ? lim->max_turns : 100000;
  int n = cJSON_GetArraySize(turns);
  if ((size_t)n > max_turns)
    return cs_err_set(err, "%s.turns: %d turns, the limit is %zu", r.path, n, max_turns);
  out->nturns = (uint32_t)n;
  out->turns = CS_ARENA_NEW(a, cs_turn, (size_t)n + 1);
  size_t base = strlen(r.path);
  int i = 0;
  for (const cJSON *t = turns->child; t; t = t->next, i++) {
    snprintf(r.path + base, sizeof r.path - base, ".turns[%d]", i);
    if (read_turn(&r, t, &out->turns[i]))
      return -1;
  }
  return 0;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int cs_json_repeated_name(const cJSON *obj, const char **dup) {
  size_t n = 0;
  *dup = NULL;
  for (const cJSON *m = obj->child; m; m = m->next)
    n++;
  if (n <= 16) { /* every object callsign reads but a hostile one: pairs cost less than a sort */
    for (const cJSON *m = obj->child; m; m = m->next)
      for (const cJSON *o = m->next; o; o = o->next)
        if (strcmp(m->string, o->string) == 0) {
          *dup = m->string;
          return 0;
        }
    return 0;
  }
  const char **names = malloc(n * sizeof *names);
  if (!names)
    return -1;
  size_t k = 0;
  for (const cJSON *m = obj->child; m; m = m->next)
    names[k++] = m->string;
  qsort(names, n, sizeof *names, cmp_names);
  for (k = 1; k < n && !*dup; k++)
    if (strcmp(names[k - 1], names[k]) == 0)
      *dup = names[k];
  free(names);
  return 0;
}

int cs_json_names_once(const cJSON *obj, cs_err *err) {
  const char *dup;
  if (cs_json_repeated_name(obj, &dup))
    return cs_err_set(err, "out of memory checking member names");
  if (dup)
    return cs_err_set(err, "the member \"%.60s\" occurs twice (a name may occur once)", dup);
  return 0;
}

size_t cs_json_space_after(cs_str json, const char *end) {
  size_t used = end ? (size_t)(end - json.ptr) : json.len;
  while (used < json.len &&
         (json.ptr[used] == ' ' || json.ptr[used] == '\t' || json.ptr[used] == '\r' || json.ptr[used] == '\n'))
    used++;
  return used;
}

cJSON *cs_json_parse_strict(cs_str json, size_t max_bytes, const char *what, cs_err *err) {
  if (cs_json_precheck(json, max_bytes, err))
    return NULL;
  if (!json.ptr)
    json = cs_str_n("", 0);
  const char *end = NULL;
  /* cJSON_GetErrorPtr is process-wide state (not thread-safe): only `end` is used. */
  cJSON *root = cJSON_ParseWithLengthOpts(json.ptr, json.len, &end, 0);
  if (!root) {
    size_t line, col;
    syntax_error se = find_syntax_error(json);
    if (!se.why) { /* the scanner accepted what cJSON refused: fall back to cJSON's place */
      se.off = end && end >= json.ptr && end <= json.ptr + json.len ? (size_t)(end - json.ptr) : 0;
      se.why = "JSON syntax error";
    }
    cs_json_line_col(json, se.off, &line, &col);
    if (se.off >= json.len) {
      cs_err_set(err, "%zu:%zu: %s", line, col, se.why);
      return NULL;
    }
    char near[16];
    size_t n = 0;
    for (size_t k = se.off; k < json.len && n < 12; k++) /* printable ASCII only: the message stays one line */
      near[n++] = json.ptr[k] >= 0x20 && json.ptr[k] < 0x7f ? json.ptr[k] : '?';
    near[n] = 0;
    cs_err_set(err, "%zu:%zu: %s near '%s'", line, col, se.why, near);
    return NULL;
  }
  /* Anything but white space after the value is an error. */
  size_t used = cs_json_space_after(json, end);
  if (used < json.len) {
    size_t line, col;
    cs_json_line_col(json, used, &line, &col);
    cs_err_set(err, "%zu:%zu: unexpected data after %s", line, col, what);
    cJSON_Delete(root);
    return NULL;
  }
  if (cs_json_strict_tokens(json, err)) {
    cJSON_Delete(root);
    return NULL;
  }
  return root;
}

int cs_history_parse(cs_str json, const cs_history_limits *lim, cs_arena *a, cs_history *out, cs_err *err) {
  cJSON *root = cs_json_parse_strict(json, lim ? lim->max_input_bytes : 0, "the history object", err);
  if (!root)
    return -1;
  int rc = cs_history_from_cjson(root, "history", lim, a, out, err);
  cJSON_Delete(root);
  return rc;
}

static void write_call(cs_buf *b, const cs_call *c) {
  cs_buf_puts(b, "{\"id\":");
  cs_buf_json_str(b, c->id);
  cs_buf_puts(b, ",\"name\":");
  cs_buf_json_str(b, c->name);
  if (c->args.ptr) {
    cs_buf_puts(b, ",\"args\":");
    cs_buf_put(b, c->args.ptr, c->args.len);
  }
  if (c->server)
    cs_buf_puts(b, ",\"server\":true");
  cs_buf_putc(b, '}');
}

static void write_result(cs_buf *b, const cs_result *r) {
  cs_buf_puts(b, "{\"call_id\":");
  cs_buf_json_str(b, r->call_id);
  cs_buf_puts(b, ",\"name\":");
  cs_buf_json_str(b, r->name);
  if (r->content.ptr) {
    cs_buf_puts(b, ",\"content\":");
    if (r->content_json)
      cs_buf_put(b, r->content.ptr, r->content.len);
    else
      cs_buf_json_str(b, r->content);
  }
  cs_buf_putc(b, '}');
}

void cs_history_write(cs_buf *b, const cs_history *h) {
  cs_buf_puts(b, "{\"turns\":[");
  for (uint32_t t = 0; t < h->nturns; t++) {
    const cs_turn *turn = &h->turns[t];
    if (t)
      cs_buf_putc(b, ',');
    cs_buf_puts(b, "{\"role\":\"");
    cs_buf_puts(b, cs_role_name(turn->role));
    cs_buf_putc(b, '"');
    if (turn->role == CS_ROLE_ASSISTANT) {
      cs_buf_puts(b, ",\"provider\":\"");
      cs_buf_puts(b, cs_provider_name(turn->provider));
      cs_buf_putc(b, '"');
    }
    if (turn->turn_key.ptr) {
      cs_buf_puts(b, ",\"turn_key\":");
      cs_buf_json_str(b, turn->turn_key);
    }
    if (turn->text.ptr) {
      cs_buf_puts(b, ",\"text\":");
      if (turn->text_json)
        cs_buf_put(b, turn->text.ptr, turn->text.len);
      else
        cs_buf_json_str(b, turn->text);
    }
    if (turn->role == CS_ROLE_ASSISTANT) {
      cs_buf_puts(b, ",\"calls\":[");
      for (uint32_t k = 0; k < turn->ncalls; k++) {
        if (k)
          cs_buf_putc(b, ',');
        write_call(b, &turn->calls[k]);
      }
      cs_buf_putc(b, ']');
    }
    if (turn->role == CS_ROLE_TOOL) {
      cs_buf_puts(b, ",\"results\":[");
      for (uint32_t k = 0; k < turn->nresults; k++) {
        if (k)
          cs_buf_putc(b, ',');
        write_result(b, &turn->results[k]);
      }
      cs_buf_putc(b, ']');
    }
    cs_buf_putc(b, '}');
  }
  cs_buf_puts(b, "]}");
}

void cs_answer_write(cs_buf *b, const cs_answer *ans) {
  cs_buf_puts(b, "{\"calls\":");
  cs_buf_json_strs(b, ans->calls, ans->ncalls);
  cs_buf_puts(b, ",\"results\":");
  cs_buf_json_strs(b, ans->results, ans->nresults);
  cs_buf_putc(b, '}');
}
