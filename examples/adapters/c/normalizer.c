/* callsign example adapter in C (C11, libc + cJSON + OpenSSL libcrypto for SHA-256).
 *
 * A small, correct tool-call ID normalizer that speaks callsign's implementation protocol,
 * version 1 (PROTOCOL.md): one JSON request per line on stdin, one JSON answer per line on
 * stdout. Ops: hello, emit, canonicalize, normalize, stop.
 *
 * Scheme (the Python and Node adapters implement the same one and give byte-identical answers to the
 * requests PROTOCOL.md defines; README.md lists where they differ on other lines):
 *  - every call's ID is derived from SHA-256 over length-prefixed fields (scope, turn_key or turn
 *    index, position in turn, raw id, name, counter); the counter starts at 0 and is raised until
 *    the ID is not used yet by an earlier call of the same request;
 *  - targets: anthropic toolu_+24, bedrock tooluse_+24, openai_chat / openai_responses / gemini
 *    call_+24 (base64url characters), mistral 9 base62 characters; canonical IDs are hist_+24;
 *  - Anthropic server calls keep a valid srvtoolu_ ID; canonicalize keeps IDs already in the
 *    canonical format (idempotence), unless an earlier call already uses them;
 *  - results take the ID of the call they answer by the PROTOCOL.md pairing rule; orphans get null.
 *
 * It is also callsign's throughput reference for the protocol pipe, so it avoids the usual costs of
 * a naive adapter: requests are parsed with cJSON into a per-request bump arena (no malloc/free per
 * node), members are looked up in one pass per object, answers are written by hand into a buffer,
 * and the buffer is written out when no further request is waiting (see main).
 *
 * `--bug NAME` switches in one known defect (see README.md) so that a CI gate can be shown failing.
 *
 * Build: cc -std=c11 -Wall -Wextra -Werror -O2 -D_POSIX_C_SOURCE=200809L normalizer.c -lcjson -lcrypto
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <openssl/evp.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* --- per-request memory ---
 * With cJSON's default hooks, parsing a history costs a malloc and a free per node and string.
 * Instead everything a request needs (its cJSON tree, call IDs, scratch) comes from one bump arena:
 * allocating moves a pointer, free() does nothing, and arena_reset() drops the whole request once
 * its answer is written. A request too big for the arena spills to malloc; the spilled blocks are
 * chained and freed by the reset. cJSON's hooks are process-wide, hence a static arena. */
enum { ARENA_BYTES = 1 << 20, ALIGN = _Alignof(max_align_t) };
typedef union spill {
  union spill *next; /* the spilled block allocated before this one */
  max_align_t align;
} spill;
static struct {
  char *base; /* ARENA_BYTES, or NULL: everything spills */
  size_t used;
  spill *spills;
} g_arena;

static void *must(void *p) { /* p, or a one-line error and exit when memory ran out */
  if (!p) {
    fputs("callsign-example-c: out of memory\n", stderr);
    exit(1);
  }
  return p;
}
static void *arena_alloc(size_t n) {
  if (g_arena.base && n <= ARENA_BYTES) {
    n = (n + ALIGN - 1) / ALIGN * ALIGN;
    if (ARENA_BYTES - g_arena.used >= n)
      return g_arena.base + (g_arena.used += n) - n;
  }
  spill *s = must(n < SIZE_MAX / 2 ? malloc(sizeof *s + n) : NULL);
  s->next = g_arena.spills;
  g_arena.spills = s;
  return s + 1;
}
static void arena_free(void *p) {
  (void)p;
}
static void arena_reset(void) {
  for (spill *s = g_arena.spills, *next; s; s = next) {
    next = s->next;
    free(s);
  }
  g_arena.spills = NULL;
  g_arena.used = 0;
}
static char *arena_copy(const char *s, size_t n) {
  char *p = arena_alloc(n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

static char *decimal(char *p, size_t v) { /* writes v in decimal at p; returns the end */
  char tmp[24], *t = tmp + sizeof tmp;
  for (*--t = (char)('0' + v % 10); v /= 10;)
    *--t = (char)('0' + v % 10);
  size_t n = (size_t)(tmp + sizeof tmp - t);
  return (char *)memcpy(p, t, n) + n;
}

/* SHA-256 of `n` fields, each length-prefixed ("<bytes>:<utf-8>", NULL as "~") so the encoding is injective.
 * The message is built in one buffer: one digest update instead of two per field. */
static void digest(unsigned char d[32], size_t n, const char *const *fields) {
  size_t len[8], cap = 0;
  for (size_t i = 0; i < n; i++)
    cap += (len[i] = fields[i] ? strlen(fields[i]) : 0) + 24;
  char *msg = arena_alloc(cap), *p = msg;
  for (size_t i = 0; i < n; i++) {
    if (!fields[i]) {
      *p++ = '~';
      continue;
    }
    p = decimal(p, len[i]);
    *p++ = ':';
    memcpy(p, fields[i], len[i]);
    p += len[i];
  }
  EVP_DigestInit_ex(g_md, NULL, NULL);
  EVP_DigestUpdate(g_md, msg, (size_t)(p - msg));
  EVP_DigestFinal_ex(g_md, d, NULL);
}

/* Writes the ID for `target` built from digest `d` into `out` (at least 48 bytes). */
static void format_id(int target, const unsigned char d[32], bool server, char *out) {
  if (target == MISTRAL || (server && target == ANTHROPIC)) {
    size_t n = target == MISTRAL ? 9 : 24;
    char *p = target == MISTRAL ? out : (char *)memcpy(out, "srvtoolu_", 9) + 9;
    for (size_t i = 0; i < n; i++)
      p[i] = B62[d[i] % 62];
    p[n] = 0;
    return;
  }
  size_t plen = strlen(TARGETS[target].prefix);
  char *p = (char *)memcpy(out, TARGETS[target].prefix, plen) + plen;
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
  char *out = arena_alloc(strlen(s) + 1), *p = out;
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
  return arena_copy(s, i);
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
  return arena_copy(out, strlen(out));
}

/* --- the set of IDs used so far in one request (open addressing, never more than half full) --- */
typedef struct {
  const char **slot;
  size_t mask;
} idset;

static size_t hash(const char *k) { /* FNV-1a */
  uint64_t h = 1469598103934665603u;
  for (const char *p = k; *p; p++)
    h = (h ^ (unsigned char)*p) * 1099511628211u;
  return (size_t)h;
}
static size_t find_slot(const idset *s, const char *k) { /* linear probing */
  size_t i = hash(k) & s->mask;
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

static const char *text(const cJSON *v) {
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* out[i] = the member of `obj` named names[i] (the first one, as cJSON_GetObjectItemCaseSensitive gives)
 * or NULL, in one pass over the members instead of one pass, and a strcmp per member, per name. */
static void get_fields(const cJSON *obj, size_t n, const char *const *names, const cJSON **out) {
  for (size_t i = 0; i < n; i++)
    out[i] = NULL;
  for (const cJSON *m = obj ? obj->child : NULL; m && m->string; m = m->next)
    for (size_t i = 0; i < n; i++)
      if (!out[i] && m->string[0] == names[i][0] && strcmp(m->string, names[i]) == 0)
        out[i] = m;
}

/* --- stdin and stdout of the protocol --- */
enum { READ_BYTES = 64 << 10, FLUSH_BYTES = 4 << 10 };
typedef struct {
  char *in;                        /* unread input is in[in_start, in_end) */
  size_t in_start, in_end, in_cap; /* in_cap > in_end: room for a NUL */
  char *out;                       /* answers not written yet */
  size_t out_len, out_cap;
  bool eof, failed; /* failed: the harness went away */
} io;

static void *grow(void *p, size_t *cap, size_t need) {
  size_t c = *cap ? *cap : READ_BYTES;
  while (c < need)
    c *= 2;
  return c == *cap ? p : must(realloc(p, *cap = c));
}
static char *room(io *s, size_t n) { /* space for n more output bytes */
  if (s->out_cap - s->out_len < n)
    s->out = grow(s->out, &s->out_cap, s->out_len + n);
  return s->out + s->out_len;
}
static void put(io *s, const char *p, size_t n) {
  memcpy(room(s, n), p, n);
  s->out_len += n;
}
#define PUT(s, literal) put(s, literal, sizeof literal - 1)

/* A JSON string escaped as cJSON_Print does it (so answers stay the same), or null. */
static void put_str(io *s, const char *v) {
  static const char ESC_IN[] = "\"\\\b\t\n\f\r", ESC_OUT[] = "\"\\btnfr";
  if (!v) {
    PUT(s, "null");
    return;
  }
  char *p = room(s, 6 * strlen(v) + 2), *start = p;
  *p++ = '"';
  for (; *v; v++) {
    unsigned char c = (unsigned char)*v;
    const char *e = c < 0x20 || c == '"' || c == '\\' ? strchr(ESC_IN, c) : NULL;
    if (e)
      p += sprintf(p, "\\%c", ESC_OUT[e - ESC_IN]);
    else if (c < 0x20)
      p += sprintf(p, "\\u%04x", c);
    else
      *p++ = (char)c;
  }
  *p++ = '"';
  s->out_len += (size_t)(p - start);
}
static void put_item(io *s, size_t i, const char *v) { /* element i of an array of strings */
  if (i)
    PUT(s, ",");
  put_str(s, v);
}

/* Echoes `seq` as cJSON prints it: a positive integer (the usual case) by hand, anything else by cJSON. */
static void put_seq(io *s, const cJSON *seq) {
  char buf[24];
  const char *printed = seq ? buf : "null";
  if (cJSON_IsNumber(seq) && seq->valueint > 0 && seq->valuedouble == seq->valueint)
    *decimal(buf, (size_t)seq->valueint) = 0;
  else if (seq && !(printed = cJSON_PrintUnformatted(seq))) /* arena memory */
    printed = "null";
  put(s, printed, strlen(printed));
}

static bool io_flush(io *s) {
  if (s->out_len && (fwrite(s->out, 1, s->out_len, stdout) != s->out_len || fflush(stdout) == EOF))
    s->failed = true;
  s->out_len = 0;
  return !s->failed;
}

/* The next input line, its newline replaced by a NUL, or NULL at the end of input (or when stdout is
 * gone). Any length: the buffer grows to hold the line. Before a read that may block, the pending
 * answers are written out (see main). */
static char *io_read_line(io *s, size_t *len) {
  for (size_t scanned = s->in_start;;) {
    char *line = s->in + s->in_start, *nl = memchr(s->in + scanned, '\n', s->in_end - scanned);
    if (nl || (s->eof && s->in_start < s->in_end)) { /* the last line may lack its newline */
      *len = nl ? (size_t)(nl - line) : s->in_end - s->in_start;
      line[*len] = 0;
      s->in_start += *len + (nl != NULL);
      return line;
    }
    if (s->eof)
      return NULL;
    memmove(s->in, line, s->in_end - s->in_start); /* the partial line moves to the front */
    scanned = s->in_end -= s->in_start;
    s->in_start = 0;
    if (s->in_cap - s->in_end <= READ_BYTES)
      s->in = grow(s->in, &s->in_cap, s->in_end + READ_BYTES + 1);
    struct pollfd more = {.fd = STDIN_FILENO, .events = POLLIN};
    if (s->out_len && poll(&more, 1, 0) <= 0 && !io_flush(s))
      return NULL;
    ssize_t n = read(STDIN_FILENO, s->in + s->in_end, s->in_cap - s->in_end - 1);
    if (n > 0)
      s->in_end += (size_t)n;
    else if (n == 0 || errno != EINTR)
      s->eof = true;
  }
}

/* --- emit / canonicalize --- */
enum { BY_ID, BY_NAME }; /* the pairing rule: 1, by raw ID over all calls; 2, by name in the last turn */
typedef struct {
  const char *raw, *name, *wire;
  bool server, answered;
  size_t next[2]; /* the next call in this call's queue of each rule (below) */
} call;

/* --- the unanswered calls by key, for the pairing rule ---
 * A key (a raw ID for rule 1, a name for rule 2) leads to the queue of its calls in document order,
 * chained through call.next[rule]. A call that the other rule answered stays queued until it reaches
 * the head, where it is skipped. Every call joins a queue once and leaves it once, so pairing is
 * linear in the history, where a scan of the earlier calls per result would be quadratic. */
#define NONE SIZE_MAX
#define SCAN_MAX 64 /* histories of at most this many calls are paired by a scan */
typedef struct {
  size_t head, tail; /* head: NONE when empty; otherwise tail is the last call pushed */
} queue;
typedef struct {
  const char *key; /* NULL: a free slot */
  queue q;
} qslot;
typedef struct {
  qslot *slot; /* open addressing, never more than half full */
  size_t mask;
  queue no_key; /* the calls whose key is NULL (rule 2: no name) */
} qtable;

static qtable qtable_new(size_t n) { /* an empty table for at most n keys, from the arena (one per turn) */
  qtable t = {NULL, 1, {NONE, NONE}};
  while (t.mask < 2 * n)
    t.mask = t.mask * 2 + 1;
  t.slot = arena_alloc((t.mask + 1) * sizeof *t.slot);
  for (size_t i = 0; i <= t.mask; i++)
    t.slot[i] = (qslot){NULL, {NONE, NONE}};
  return t;
}
static qslot *qtable_slot(const qtable *t, const char *k) { /* k's slot, or the free one where it would go */
  size_t i = hash(k) & t->mask;
  while (t->slot[i].key && strcmp(t->slot[i].key, k) != 0)
    i = (i + 1) & t->mask;
  return &t->slot[i];
}
static void qtable_push(qtable *t, const char *k, call *calls, size_t i, int rule) { /* calls[i] joins k's queue */
  queue *q = &t->no_key;
  if (k) {
    qslot *sl = qtable_slot(t, k);
    sl->key = k;
    q = &sl->q;
  }
  calls[i].next[rule] = NONE;
  if (q->head == NONE)
    q->head = i;
  else
    calls[q->tail].next[rule] = i;
  q->tail = i;
}
static call *qtable_first(qtable *t, const char *k, call *calls, int rule) { /* k's earliest unanswered call */
  queue *q = &t->no_key;
  if (k) {
    qslot *sl = qtable_slot(t, k);
    if (!sl->key)
      return NULL;
    q = &sl->q;
  }
  while (q->head != NONE && calls[q->head].answered)
    q->head = calls[q->head].next[rule];
  return q->head == NONE ? NULL : &calls[q->head];
}

/* The wire (or stored) ID of one call; `used` holds the IDs of the earlier calls. */
static const char *call_id(int target, int bug, const char *tid, size_t pos, const call *c, const idset *used) {
  const char *raw = c->raw;
  if (c->server && raw && !set_has(used, raw) && matches(raw, "srvtoolu_", "_", 10, SIZE_MAX) &&
      (target == ANTHROPIC || (target == CANON && strlen(raw) <= 64)))
    return raw;
  if (target == CANON && raw && !set_has(used, raw) && matches(raw, "hist_", "_-", 29, 29))
    return raw;
  char buf[48];
  if (bug == PER_TURN || (bug == SANITIZE && !(raw && *raw)))
    return arena_copy(buf, (size_t)snprintf(buf, sizeof buf, "call_%zu", pos));
  if (bug == SANITIZE)
    return sanitize(raw);
  if (bug == TRUNCATE && raw && *raw)
    return TARGETS[target].max ? truncate_chars(raw, TARGETS[target].max) : raw;
  if (bug == RANDOM && !valid(target, raw))
    return random_id(target);
  char pos_text[24], k_text[24];
  *decimal(pos_text, pos) = 0;
  for (size_t k = 0;; k++) {
    unsigned char d[32];
    *decimal(k_text, k) = 0;
    const char *fields[] = {TARGETS[target].name, tid, pos_text, raw, c->name, k_text};
    digest(d, 6, fields);
    format_id(target, d, c->server, buf);
    if (!set_has(used, buf))
      return arena_copy(buf, strlen(buf));
  }
}

/* The ID of one result; `paired` is the call it answers (NULL: orphan). */
static const char *result_id(int target, int bug, const char *cid, const char *name, const call *paired,
                             const call *calls, size_t ncalls) {
  if (bug == NAME_KEYED) {
    for (size_t i = ncalls; i-- > 0;)
      if (!calls[i].server && same(calls[i].name, name))
        return calls[i].wire;
    return NULL;
  }
  if (bug == ASYMMETRIC || (bug == KEEP_ORPHANS && !paired))
    return cid && *cid ? sanitize(cid) : NULL;
  if (bug == RANDOM && paired && !valid(target, cid))
    return random_id(target);
  return paired ? paired->wire : NULL;
}

enum { ROLE, TURN_KEY, CALLS, RESULTS, NTURN_FIELDS };
static const char *const TURN_FIELDS[] = {"role", "turn_key", "calls", "results"};
static const char *const CALL_FIELDS[] = {"id", "name", "server"};
static const char *const RESULT_FIELDS[] = {"call_id", "name"};

/* Writes `,"calls":[...],"results":[...]` for `history`. */
static void assign(const cJSON *history, int target, int bug, io *s) {
  const cJSON *turns = cJSON_GetObjectItemCaseSensitive(history, "turns"), *turn, *el, *f[NTURN_FIELDS];
  size_t total = 0, nresults = 0, n = 0, r = 0, t = 0, last_first = 0, last_end = 0;
  cJSON_ArrayForEach(turn, turns) { /* first pass: how many calls and results */
    get_fields(turn, NTURN_FIELDS, TURN_FIELDS, f);
    if (same(text(f[ROLE]), "assistant"))
      total += (size_t)cJSON_GetArraySize(f[CALLS]);
    nresults += (size_t)cJSON_GetArraySize(f[RESULTS]);
  }
  call *calls = arena_alloc((total + 1) * sizeof *calls);
  const char **results = arena_alloc((nresults + 1) * sizeof *results);
  idset used = {NULL, 15};
  while (used.mask < 2 * total)
    used.mask = used.mask * 2 + 1;
  used.slot = memset(arena_alloc((used.mask + 1) * sizeof *used.slot), 0, (used.mask + 1) * sizeof *used.slot);
  /* A small history is paired by scanning its calls, as the rule reads (and faster than tables at
   * that size); a larger one through the tables, which keep pairing linear. */
  bool scan = total <= SCAN_MAX;
  qtable by_id = qtable_new(scan ? 0 : total), by_name = qtable_new(0); /* by_name: the last assistant turn's */

  cJSON_ArrayForEach(turn, turns) {
    get_fields(turn, NTURN_FIELDS, TURN_FIELDS, f);
    if (same(text(f[ROLE]), "assistant")) {
      const char *key = text(f[TURN_KEY]);
      char *tid = arena_alloc((key ? strlen(key) : 20) + 2);
      tid[0] = key ? 'k' : 'i';
      if (key)
        strcpy(tid + 1, key);
      else
        *decimal(tid + 1, t) = 0;
      if (!scan)
        by_name = qtable_new((size_t)cJSON_GetArraySize(f[CALLS]));
      last_first = n;
      size_t pos = 0;
      cJSON_ArrayForEach(el, f[CALLS]) {
        const cJSON *cf[3];
        get_fields(el, 3, CALL_FIELDS, cf);
        call *c = &calls[n];
        *c = (call){.raw = text(cf[0]), .name = text(cf[1]), .server = cJSON_IsTrue(cf[2])};
        c->wire = call_id(target, bug, tid, pos++, c, &used);
        set_add(&used, c->wire);
        if (!c->server && !scan) {
          if (c->raw && *c->raw) /* rule 1 never pairs by an empty ID */
            qtable_push(&by_id, c->raw, calls, n, BY_ID);
          qtable_push(&by_name, c->name, calls, n, BY_NAME);
        }
        n++;
      }
      last_end = n;
    }
    cJSON_ArrayForEach(el, f[RESULTS]) {
      const cJSON *rf[2];
      get_fields(el, 2, RESULT_FIELDS, rf);
      const char *cid = text(rf[0]), *name = text(rf[1]);
      bool by_id_rule = cid && *cid; /* rule 1: by raw id over all calls; rule 2: by name, last turn */
      call *match = NULL;
      if (!scan)
        match = by_id_rule ? qtable_first(&by_id, cid, calls, BY_ID) : qtable_first(&by_name, name, calls, BY_NAME);
      for (size_t i = by_id_rule ? 0 : last_first; scan && i < (by_id_rule ? n : last_end) && !match; i++)
        if (!calls[i].server && !calls[i].answered &&
            (by_id_rule ? same(calls[i].raw, cid) : same(calls[i].name, name)))
          match = &calls[i];
      if (match)
        match->answered = true;
      results[r++] = result_id(target, bug, cid, name, match, calls, n);
    }
    t++;
  }
  PUT(s, ",\"calls\":[");
  for (size_t i = 0; i < n; i++)
    put_item(s, i, calls[i].wire);
  PUT(s, "],\"results\":[");
  for (size_t i = 0; i < r; i++)
    put_item(s, i, results[i]);
  PUT(s, "]");
}

static int target_of(const char *name) {
  for (int i = 0; i < NTARGETS; i++)
    if (same(name, TARGETS[i].name))
      return i;
  return -1;
}

enum { OP, SEQ, TARGET, HISTORY, IDS, NREQ_FIELDS };
static const char *const REQ_FIELDS[] = {"op", "seq", "target", "history", "ids"};

/* Writes the answer to one request object (without its newline). */
static void handle(const cJSON *req, int bug, io *s) {
  const cJSON *f[NREQ_FIELDS], *el;
  get_fields(req, NREQ_FIELDS, REQ_FIELDS, f);
  const char *op = text(f[OP]), *target_name = text(f[TARGET]);
  int target = target_of(target_name);
  char err[256] = "";
  PUT(s, "{\"seq\":");
  put_seq(s, f[SEQ]);
  if (same(op, "hello")) {
    PUT(s, ",\"protocol\":1,\"name\":\"callsign-example-c");
    if (bug != NO_BUG) {
      PUT(s, "+");
      put(s, BUGS[bug], strlen(BUGS[bug]));
    }
    PUT(s, "\",\"version\":\"1.0.0\",\"ops\":[\"emit\",\"canonicalize\",\"normalize\"],\"targets\":[");
    for (size_t i = 0; i < NTARGETS; i++)
      put_item(s, i, TARGETS[i].name);
    PUT(s, "]");
  } else if ((same(op, "emit") || same(op, "normalize")) && target < 0) {
    snprintf(err, sizeof err, "unsupported target: %.200s", target_name ? target_name : "(none)");
  } else if (same(op, "emit") || same(op, "canonicalize")) {
    bool emit = same(op, "emit");
    assign(f[HISTORY], emit ? target : CANON, emit ? bug : NO_BUG, s);
  } else if (same(op, "normalize") && f[IDS] && !cJSON_IsArray(f[IDS]) && !cJSON_IsNull(f[IDS])) {
    snprintf(err, sizeof err, "ids is not an array");
  } else if (same(op, "normalize")) {
    PUT(s, ",\"ids\":[");
    size_t i = 0;
    cJSON_ArrayForEach(el, f[IDS]) {
      unsigned char d[32];
      char buf[48];
      const char *fields[] = {"normalize", TARGETS[target].name, text(el)};
      digest(d, 3, fields);
      format_id(target, d, false, buf);
      put_item(s, i++, buf);
    }
    PUT(s, "]");
  } else {
    snprintf(err, sizeof err, "unknown op: %.200s", op ? op : "(none)");
  }
  if (*err) {
    PUT(s, ",\"error\":");
    put_str(s, err);
  }
  PUT(s, "}");
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
  g_arena.base = malloc(ARENA_BYTES);
  cJSON_InitHooks(&(cJSON_Hooks){.malloc_fn = arena_alloc, .free_fn = arena_free});

  /* Answers collect in `s.out`, which is written out (and flushed) when no further request is
   * immediately available (io_read_line asks poll() with a 0 timeout before each read), once it holds
   * FLUSH_BYTES, and at the end. The harness pipelines many requests, so one write carries several
   * answers, and the first answers reach it while this process works on the rest. This cannot
   * deadlock: every answer is on the pipe before this process can block waiting for input. */
  io s = {0};
  s.in = grow(NULL, &s.in_cap, 2 * READ_BYTES);
  s.out = grow(NULL, &s.out_cap, 2 * FLUSH_BYTES);
  char *line;
  size_t len;
  while ((line = io_read_line(&s, &len))) {
    if (strspn(line, " \t\r\n") == len) /* blank line (line[len] is a NUL) */
      continue;
    cJSON *req = cJSON_ParseWithLength(line, len);
    if (!cJSON_IsObject(req)) {
      PUT(&s, "{\"seq\":null,\"error\":\"bad request line: not a JSON object\"}");
    } else if (same(text(cJSON_GetObjectItemCaseSensitive(req, "op")), "stop")) {
      break;
    } else {
      handle(req, bug, &s);
    }
    PUT(&s, "\n");
    arena_reset(); /* drops the request's tree and scratch: free() of arena memory was a no-op */
    if (s.out_len >= FLUSH_BYTES && !io_flush(&s))
      break;
  }
  io_flush(&s);
  arena_reset();
  free(g_arena.base);
  free(s.in);
  free(s.out);
  EVP_MD_CTX_free(g_md);
  return s.failed ? 1 : 0;
}
