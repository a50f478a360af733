/* callsign example adapter in C (C11, libc + cJSON + OpenSSL libcrypto for SHA-256).
 *
 * A small, correct tool-call ID normalizer that speaks callsign's implementation protocol,
 * version 1 (PROTOCOL.md): one JSON request per line on stdin, one JSON answer per line on
 * stdout. Ops: hello, emit, canonicalize, normalize, stop.
 *
 * Scheme (the Python and Node adapters implement the same one and give byte-identical answers):
 *  - every call's ID is derived from SHA-256 over length-prefixed fields (scope, turn_key or turn
 *    index, position in turn, raw id, name, counter); the counter starts at 0 and is raised until
 *    the ID is not used yet by an earlier call of the same request;
 *  - targets: anthropic toolu_+24, bedrock tooluse_+24, openai_chat / openai_responses / gemini
 *    call_+24 (base64url characters), mistral 9 base62 characters; canonical IDs are hist_+24;
 *  - Anthropic server calls keep a valid srvtoolu_ ID; canonicalize keeps IDs already in the
 *    canonical format (idempotence), unless an earlier call already uses them;
 *  - results take the ID of the call they answer by the PROTOCOL.md pairing rule; orphans get null.
 *
 * `--bug NAME` switches in one known defect (see README.md) so that a CI gate can be shown failing.
 *
 * Build: cc -std=c11 -Wall -Wextra -Werror -O2 -D_POSIX_C_SOURCE=200809L normalizer.c -lcjson -lcrypto
 */
#include <cjson/cJSON.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ANTHROPIC, OPENAI_CHAT, OPENAI_RESPONSES, GEMINI, BEDROCK, MISTRAL, NTARGETS, CANON = NTARGETS };
static const struct {
  const char *name, *prefix;
  size_t max; /* in characters; 0: no limit */
} TARGETS[] = {{"anthropic", "toolu_", 64}, {"openai_chat", "call_", 40}, {"openai_responses", "call_", 64},
               {"gemini", "call_", 0},      {"bedrock", "tooluse_", 64},  {"mistral", "", 9},
               {"canonical", "hist_", 64}};

enum { NO_BUG = -1, SANITIZE, TRUNCATE, RANDOM, NAME_KEYED, PER_TURN, ASYMMETRIC, KEEP_ORPHANS, NBUGS };
static const char *const BUGS[] = {"sanitize-collide", "truncate",   "random-fallback", "name-keyed",
                                   "per-turn-index",   "asymmetric", "keep-orphans"};

static const char B62[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static EVP_MD_CTX *g_md; /* one digest context, reused for every hash */

/* SHA-256 of `n` fields, each length-prefixed ("<bytes>:<utf-8>", NULL as "~") so the encoding is injective. */
static void digest(unsigned char d[32], size_t n, const char *const *fields) {
  EVP_DigestInit_ex(g_md, NULL, NULL);
  for (size_t i = 0; i < n; i++) {
    if (!fields[i]) {
      EVP_DigestUpdate(g_md, "~", 1);
      continue;
    }
    char len[32];
    size_t size = strlen(fields[i]);
    int k = snprintf(len, sizeof len, "%zu:", size);
    EVP_DigestUpdate(g_md, len, (size_t)k);
    EVP_DigestUpdate(g_md, fields[i], size);
  }
  EVP_DigestFinal_ex(g_md, d, NULL);
}

/* Writes the ID for `target` built from digest `d` into `out` (at least 48 bytes). */
static void format_id(int target, const unsigned char d[32], bool server, char *out) {
  if (target == MISTRAL || (server && target == ANTHROPIC)) {
    size_t n = target == MISTRAL ? 9 : 24;
    char *p = out + sprintf(out, "%s", target == MISTRAL ? "" : "srvtoolu_");
    for (size_t i = 0; i < n; i++)
      p[i] = B62[d[i] % 62];
    p[n] = 0;
    return;
  }
  char *p = out + sprintf(out, "%s", TARGETS[target].prefix);
  for (int i = 0; i < 18; i += 3) { /* the first 24 base64url characters encode 18 bytes */
    uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];
    for (int j = 0; j < 4; j++)
      *p++ = B64[(v >> (18 - 6 * j)) & 63];
  }
  *p = 0;
}

/* --- small string helpers (input is valid UTF-8 without U+0000) --- */
static bool allowed(unsigned char c, const char *extra) { /* ASCII letter or digit, or one of `extra` */
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c && strchr(extra, c));
}
static size_t chars(const char *s) { /* code points */
  size_t n = 0;
  for (; *s; s++)
    n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}
static bool same(const char *a, const char *b) {
  return a && b ? strcmp(a, b) == 0 : a == b;
}
/* `s` is `prefix` then characters allowed by `extra`, min..max bytes in all. */
static bool matches(const char *s, const char *prefix, const char *extra, size_t min, size_t max) {
  size_t n = strlen(prefix);
  if (strncmp(s, prefix, n) != 0)
    return false;
  for (s += n; *s; s++, n++)
    if (!allowed((unsigned char)*s, extra))
      return false;
  return n >= min && n <= max;
}
static char *sanitize(const char *s) { /* every code point outside [A-Za-z0-9_-] becomes '_' */
  char *out = malloc(strlen(s) + 1), *p = out;
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (allowed(c, "_-"))
      *p++ = (char)c;
    else if ((c & 0xC0) != 0x80)
      *p++ = '_';
  }
  *p = 0;
  return out;
}
static char *truncate_chars(const char *s, size_t max) {
  size_t i = 0, n = 0;
  for (; s[i]; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80 && n++ == max)
      break;
  return strndup(s, i);
}

/* Does `s` satisfy the target's rule? */
static bool valid(int target, const char *s) {
  if (!s || !*s)
    return false;
  if (target == MISTRAL)
    return matches(s, "", "", 9, 9);
  if (TARGETS[target].max && chars(s) > TARGETS[target].max)
    return false;
  return (target != ANTHROPIC && target != BEDROCK) || matches(s, "", "_-", 1, 64);
}

static char *random_id(int target) {
  unsigned char r[16];
  FILE *f = fopen("/dev/urandom", "rb");
  if (!f || fread(r, 1, sizeof r, f) != sizeof r)
    for (size_t i = 0; i < sizeof r; i++)
      r[i] = (unsigned char)rand();
  if (f)
    fclose(f);
  char out[64], *p = out + sprintf(out, "%s", TARGETS[target].prefix);
  for (size_t i = 0; i < sizeof r; i++)
    p += sprintf(p, "%02x", r[i]);
  if (target == MISTRAL)
    out[9] = 0;
  return strdup(out);
}

/* --- the set of IDs used so far in one request (open addressing, never more than half full) --- */
typedef struct {
  const char **slot;
  size_t mask;
} idset;

static size_t find_slot(const idset *s, const char *k) { /* FNV-1a, linear probing */
  uint64_t h = 1469598103934665603u;
  for (const char *p = k; *p; p++)
    h = (h ^ (unsigned char)*p) * 1099511628211u;
  size_t i = (size_t)h & s->mask;
  while (s->slot[i] && strcmp(s->slot[i], k) != 0)
    i = (i + 1) & s->mask;
  return i;
}
static bool set_has(const idset *s, const char *k) {
  return s->slot[find_slot(s, k)] != NULL;
}
static void set_add(idset *s, const char *k) {
  s->slot[find_slot(s, k)] = k;
}

/* --- emit / canonicalize --- */
typedef struct {
  const char *raw, *name;
  char *wire;
  bool server, answered;
} call;

static const char *text(const cJSON *v) {
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The wire (or stored) ID of one call; `used` holds the IDs of the earlier calls. */
static char *call_id(int target, int bug, const char *tid, size_t pos, const call *c, const idset *used) {
  const char *raw = c->raw;
  if (c->server && raw && !set_has(used, raw) && matches(raw, "srvtoolu_", "_", 10, SIZE_MAX) &&
      (target == ANTHROPIC || (target == CANON && strlen(raw) <= 64)))
    return strdup(raw);
  if (target == CANON && raw && !set_has(used, raw) && matches(raw, "hist_", "_-", 29, 29))
    return strdup(raw);
  char buf[48];
  if (bug == PER_TURN || (bug == SANITIZE && !(raw && *raw))) {
    snprintf(buf, sizeof buf, "call_%zu", pos);
    return strdup(buf);
  }
  if (bug == SANITIZE)
    return sanitize(raw);
  if (bug == TRUNCATE && raw && *raw)
    return TARGETS[target].max ? truncate_chars(raw, TARGETS[target].max) : strdup(raw);
  if (bug == RANDOM && !valid(target, raw))
    return random_id(target);
  char pos_text[24], k_text[24];
  snprintf(pos_text, sizeof pos_text, "%zu", pos);
  for (size_t k = 0;; k++) {
    unsigned char d[32];
    snprintf(k_text, sizeof k_text, "%zu", k);
    const char *fields[] = {TARGETS[target].name, tid, pos_text, raw, c->name, k_text};
    digest(d, 6, fields);
    format_id(target, d, c->server, buf);
    if (!set_has(used, buf))
      return strdup(buf);
  }
}

/* The ID of one result; `paired` is the call it answers (NULL: orphan). */
static char *result_id(int target, int bug, const char *cid, const char *name, const call *paired, const call *calls,
                       size_t ncalls) {
  if (bug == NAME_KEYED) {
    for (size_t i = ncalls; i-- > 0;)
      if (!calls[i].server && same(calls[i].name, name))
        return strdup(calls[i].wire);
    return NULL;
  }
  if (bug == ASYMMETRIC || (bug == KEEP_ORPHANS && !paired))
    return cid && *cid ? sanitize(cid) : NULL;
  if (bug == RANDOM && paired && !valid(target, cid))
    return random_id(target);
  return paired ? strdup(paired->wire) : NULL;
}

static cJSON *take_string(char *s) {
  cJSON *v = s ? cJSON_CreateString(s) : cJSON_CreateNull();
  free(s);
  return v;
}

static void assign(const cJSON *history, int target, int bug, cJSON *resp) {
  const cJSON *turns = cJSON_GetObjectItemCaseSensitive(history, "turns"), *turn, *el;
  size_t total = 0, n = 0, t = 0, last_first = 0, last_end = 0;
  cJSON_ArrayForEach(turn, turns) total += (size_t)cJSON_GetArraySize(cJSON_GetObjectItem(turn, "calls"));
  call *calls = calloc(total + 1, sizeof *calls);
  idset used = {NULL, 15};
  while (used.mask < 2 * total)
    used.mask = used.mask * 2 + 1;
  used.slot = calloc(used.mask + 1, sizeof *used.slot);
  cJSON *out_calls = cJSON_AddArrayToObject(resp, "calls"), *out_results = cJSON_AddArrayToObject(resp, "results");

  cJSON_ArrayForEach(turn, turns) {
    if (same(text(cJSON_GetObjectItemCaseSensitive(turn, "role")), "assistant")) {
      const char *key = text(cJSON_GetObjectItemCaseSensitive(turn, "turn_key"));
      char *tid = malloc((key ? strlen(key) : 20) + 2);
      if (key)
        sprintf(tid, "k%s", key);
      else
        sprintf(tid, "i%zu", t);
      last_first = n;
      size_t pos = 0;
      cJSON_ArrayForEach(el, cJSON_GetObjectItemCaseSensitive(turn, "calls")) {
        call *c = &calls[n];
        c->raw = text(cJSON_GetObjectItemCaseSensitive(el, "id"));
        c->name = text(cJSON_GetObjectItemCaseSensitive(el, "name"));
        c->server = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(el, "server"));
        c->wire = call_id(target, bug, tid, pos++, c, &used);
        set_add(&used, c->wire);
        cJSON_AddItemToArray(out_calls, cJSON_CreateString(c->wire));
        n++;
      }
      last_end = n;
      free(tid);
    }
    cJSON_ArrayForEach(el, cJSON_GetObjectItemCaseSensitive(turn, "results")) {
      const char *cid = text(cJSON_GetObjectItemCaseSensitive(el, "call_id"));
      const char *name = text(cJSON_GetObjectItemCaseSensitive(el, "name"));
      call *match = NULL;
      bool by_id = cid && *cid; /* rule 1: by raw id over all calls; rule 2: by name, last turn */
      for (size_t i = by_id ? 0 : last_first; i < (by_id ? n : last_end) && !match; i++)
        if (!calls[i].server && !calls[i].answered && (by_id ? same(calls[i].raw, cid) : same(calls[i].name, name)))
          match = &calls[i];
      if (match)
        match->answered = true;
      cJSON_AddItemToArray(out_results, take_string(result_id(target, bug, cid, name, match, calls, n)));
    }
    t++;
  }
  for (size_t i = 0; i < n; i++)
    free(calls[i].wire);
  free(calls);
  free(used.slot);
}

static int target_of(const cJSON *req) {
  const char *name = text(cJSON_GetObjectItemCaseSensitive(req, "target"));
  for (int i = 0; i < NTARGETS; i++)
    if (same(name, TARGETS[i].name))
      return i;
  return -1;
}

static cJSON *handle(const cJSON *req, int bug) {
  const char *op = text(cJSON_GetObjectItemCaseSensitive(req, "op"));
  const cJSON *seq = cJSON_GetObjectItemCaseSensitive(req, "seq");
  cJSON *resp = cJSON_CreateObject();
  cJSON_AddItemToObject(resp, "seq", seq ? cJSON_Duplicate(seq, true) : cJSON_CreateNull());
  int target = target_of(req);
  char err[256];
  if (same(op, "hello")) {
    char name[64];
    snprintf(name, sizeof name, "callsign-example-c%s%s", bug == NO_BUG ? "" : "+", bug == NO_BUG ? "" : BUGS[bug]);
    cJSON_AddNumberToObject(resp, "protocol", 1);
    cJSON_AddStringToObject(resp, "name", name);
    cJSON_AddStringToObject(resp, "version", "1.0.0");
    const char *ops[] = {"emit", "canonicalize", "normalize"}, *targets[NTARGETS];
    for (int i = 0; i < NTARGETS; i++)
      targets[i] = TARGETS[i].name;
    cJSON_AddItemToObject(resp, "ops", cJSON_CreateStringArray(ops, 3));
    cJSON_AddItemToObject(resp, "targets", cJSON_CreateStringArray(targets, NTARGETS));
  } else if ((same(op, "emit") || same(op, "normalize")) && target < 0) {
    const char *target_name = text(cJSON_GetObjectItemCaseSensitive(req, "target"));
    snprintf(err, sizeof err, "unsupported target: %.200s", target_name ? target_name : "(none)");
    cJSON_AddStringToObject(resp, "error", err);
  } else if (same(op, "emit") || same(op, "canonicalize")) {
    bool emit = same(op, "emit");
    assign(cJSON_GetObjectItemCaseSensitive(req, "history"), emit ? target : CANON, emit ? bug : NO_BUG, resp);
  } else if (same(op, "normalize")) {
    cJSON *ids = cJSON_AddArrayToObject(resp, "ids"), *el;
    cJSON_ArrayForEach(el, cJSON_GetObjectItemCaseSensitive(req, "ids")) {
      unsigned char d[32];
      char buf[48];
      const char *fields[] = {"normalize", TARGETS[target].name, text(el)};
      digest(d, 3, fields);
      format_id(target, d, false, buf);
      cJSON_AddItemToArray(ids, cJSON_CreateString(buf));
    }
  } else {
    snprintf(err, sizeof err, "unknown op: %.200s", op ? op : "(none)");
    cJSON_AddStringToObject(resp, "error", err);
  }
  return resp;
}

int main(int argc, char **argv) {
  int bug = NO_BUG;
  for (int i = 1; i < argc; i++) {
    const char *name = NULL;
    if (strcmp(argv[i], "--bug") == 0 && i + 1 < argc)
      name = argv[++i];
    else if (strncmp(argv[i], "--bug=", 6) == 0)
      name = argv[i] + 6;
    if (!name) {
      fprintf(stderr, "usage: %s [--bug NAME]\n", argv[0]);
      return 2;
    }
    for (bug = 0; bug < NBUGS && strcmp(name, BUGS[bug]) != 0; bug++)
      ;
    if (bug == NBUGS) {
      fprintf(stderr,
              "unknown --bug '%s' (known: sanitize-collide, truncate, random-fallback, name-keyed, "
              "per-turn-index, asymmetric, keep-orphans)\n",
              name);
      return 2;
    }
  }
  g_md = EVP_MD_CTX_new(); /* set up for SHA-256 once; each hash then re-inits it with type NULL */
  if (!g_md || !EVP_DigestInit_ex(g_md, EVP_sha256(), NULL)) {
    fprintf(stderr, "cannot create a SHA-256 context\n");
    return 1;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int rc = 0;
  while ((len = getline(&line, &cap, stdin)) > 0) {
    if (strspn(line, " \t\r\n") == (size_t)len)
      continue;
    cJSON *req = cJSON_ParseWithLength(line, (size_t)len), *resp;
    if (!cJSON_IsObject(req)) {
      resp = cJSON_CreateObject();
      cJSON_AddNullToObject(resp, "seq");
      cJSON_AddStringToObject(resp, "error", "bad request line: not a JSON object");
    } else if (same(text(cJSON_GetObjectItemCaseSensitive(req, "op")), "stop")) {
      cJSON_Delete(req);
      break;
    } else {
      resp = handle(req, bug);
    }
    cJSON_Delete(req);
    char *out = cJSON_PrintUnformatted(resp);
    cJSON_Delete(resp);
    if (!out || fputs(out, stdout) == EOF || putchar('\n') == EOF || fflush(stdout) == EOF) {
      free(out);
      rc = 1; /* the harness went away */
      break;
    }
    free(out);
  }
  free(line);
  EVP_MD_CTX_free(g_md);
  return rc;
}
