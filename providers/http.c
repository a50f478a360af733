/* providers/http.c: the probes' HTTP client on libcurl, with the budget, rate limit, retries,
 * timeouts, and the dry-run, record and replay modes. A cassette entry is one JSON file per distinct
 * request, named after SHA-256(method, path, body), so a replay finds its answer whatever the host
 * and the order; secrets are removed before anything is written, printed or returned. */
#include "providers/http.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/fs.h"
#include "core/hash.h"
#include "core/history_json.h"
#include "core/utf8.h"

#define MAX_BODY ((size_t)4 << 20) /* answers are small error bodies; a huge one is cut */
#define MAX_ENTRY (MAX_BODY * 8)   /* a cassette entry: the request (IDs up to --max-id-len) and the answer */
static const char redacted[] = "[redacted]";

struct cs_http {
  cs_http_config cfg;
  CURL *curl;
  cs_hasher *hasher;
  char **secrets; /* every form of every key in the environment: no fixed number may drop one */
  size_t nsecrets, secrets_cap;
  unsigned sent, exchanges;
  double last; /* cs_now_s() at the start of the last request on the wire */
  bool have_last;
  /* Cassette entries are named by the request; a request sent again gets an entry of its own,
   * numbered by its occurrence (its first: NAME.json, then NAME.2.json, ...). */
  struct {
    char hex[33];
    unsigned n;
  } * seen;
  size_t nseen, capseen;
  size_t entry;             /* the exchange under way: its request's place in `seen` */
  bool cassette_unwritable; /* an entry could not be written: the recording is incomplete */
};

/* No wait of callsign's is longer than this (a rate's interval is at most 100 s, a backoff at most
 * max_wait_s): the cap keeps the conversion to time_t defined whatever a caller passes. */
#define MAX_SLEEP_S 86400.0

static void sleep_s(double s) {
  if (!(s > 0)) /* NaN too */
    return;
  if (s > MAX_SLEEP_S)
    s = MAX_SLEEP_S;
  struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  while (nanosleep(&t, &t) && errno == EINTR)
    ;
}

cs_http *cs_http_new(const cs_http_config *cfg, cs_err *err) {
  cs_http *h = calloc(1, sizeof *h);
  if (!h) {
    cs_err_set(err, "out of memory");
    return NULL;
  }
  h->cfg = *cfg;
  /* 1 / rate is the pause between requests: a rate near 0 makes it endless or infinite. */
  if (h->cfg.rate && !(h->cfg.rate >= CS_HTTP_MIN_RATE && h->cfg.rate <= CS_HTTP_MAX_RATE)) {
    cs_err_set(err, "rate %g is not %g to %g requests per second", h->cfg.rate, CS_HTTP_MIN_RATE, CS_HTTP_MAX_RATE);
    goto fail;
  }
  if (!h->cfg.timeout_s)
    h->cfg.timeout_s = 60;
  if (!h->cfg.connect_timeout_s)
    h->cfg.connect_timeout_s = 10;
  if (!h->cfg.max_requests)
    h->cfg.max_requests = 50;
  if (!h->cfg.rate)
    h->cfg.rate = 2;
  if (!h->cfg.max_retries)
    h->cfg.max_retries = 4;
  if (!h->cfg.max_wait_s)
    h->cfg.max_wait_s = CS_HTTP_MAX_WAIT_S;
  if (!h->cfg.backoff_s)
    h->cfg.backoff_s = 0.5;
  if (!h->cfg.dry_out)
    h->cfg.dry_out = stdout;
  if (!(h->hasher = cs_hasher_new())) {
    cs_err_set(err, "OpenSSL provides no SHA-256");
    goto fail;
  }
  if (h->cfg.record_dir && cs_mkdir_p(h->cfg.record_dir, h->cfg.made, err))
    goto fail;
  if (h->cfg.record_dir) {
    /* Only making a file shows that one can be made (root passes access() in /sys): checked
     * before the first request, not after the budget is spent. */
    cs_buf probe = {0};
    cs_buf_printf(&probe, "%s/.callsign-XXXXXX", h->cfg.record_dir);
    int fd = mkstemp(probe.data);
    if (fd < 0) {
      char shown[CS_PATH_SHOWN];
      cs_err_set(err, "%s: cannot record there: %s", cs_path_shown(h->cfg.record_dir, shown), strerror(errno));
      cs_buf_free(&probe);
      goto fail;
    }
    close(fd);
    unlink(probe.data);
    cs_buf_free(&probe);
  }
  /* A mistyped cassette directory would otherwise show as a transport failure of every case. */
  struct stat st;
  if (h->cfg.replay_dir && stat(h->cfg.replay_dir, &st)) {
    cs_err_set(err, "%s: cannot replay: %s", h->cfg.replay_dir, strerror(errno));
    goto fail;
  }
  if (h->cfg.replay_dir && !S_ISDIR(st.st_mode)) {
    cs_err_set(err, "%s: cannot replay: not a directory", h->cfg.replay_dir);
    goto fail;
  }
  if (!h->cfg.replay_dir && !h->cfg.dry_run && !(h->curl = curl_easy_init())) {
    cs_err_set(err, "libcurl cannot start");
    goto fail;
  }
  return h;
fail:
  cs_http_free(h);
  return NULL;
}

void cs_http_free(cs_http *h) {
  if (!h)
    return;
  if (h->curl)
    curl_easy_cleanup(h->curl);
  cs_hasher_free(h->hasher);
  for (size_t i = 0; i < h->nsecrets; i++)
    free(h->secrets[i]);
  free(h->secrets);
  free(h->seen);
  free(h);
}

/* Adds `text` as a secret unless it is one already. */
static void add_one_secret(cs_http *h, const char *text) {
  if (!*text)
    return;
  for (size_t i = 0; i < h->nsecrets; i++)
    if (!strcmp(h->secrets[i], text))
      return;
  if (h->nsecrets == h->secrets_cap) {
    h->secrets_cap = h->secrets_cap ? 2 * h->secrets_cap : 16;
    h->secrets = cs_xrealloc_array(h->secrets, h->secrets_cap, sizeof *h->secrets);
  }
  h->secrets[h->nsecrets++] = cs_xstrdup(text);
}

void cs_http_add_secret(cs_http *h, const char *secret) {
  /* A key shorter than CS_HTTP_SHORT_SECRET is a placeholder (for a local fake): no provider issues
   * one, and replacing every "1" or "x" would leave reports and cassettes that no longer parse. */
  if (!secret || strlen(secret) < CS_HTTP_SHORT_SECRET)
    return;
  add_one_secret(h, secret);
  /* As a JSON string holds it (a report, a cassette, an echoing provider): '"' and '\\' escaped,
   * and, as some encoders write it, '/' as '\\/'. */
  cJSON *js = cJSON_CreateString(secret);
  char *text = js ? cJSON_PrintUnformatted(js) : NULL;
  if (text && strlen(text) >= 2) {
    text[strlen(text) - 1] = 0;
    add_one_secret(h, text + 1);
    cs_buf slashed = {0};
    for (const char *p = text + 1; *p; p++)
      cs_buf_puts(&slashed, *p == '/' ? "\\/" : (char[2]){*p, 0});
    if (slashed.data)
      add_one_secret(h, slashed.data);
    cs_buf_free(&slashed);
  }
  free(text);
  cJSON_Delete(js);
}

/* The longest run of backslashes read as one escape: JSON escapes the escapes of a text it holds
 * (a report quoting a provider's body), each level doubling the run; 16 is four levels deep, and
 * the cap keeps the scan linear on a body of backslashes. */
#define MAX_ESCAPE_RUN 16

static int hex4(const char *s, const char *end) {
  if (end - s < 4)
    return -1;
  int v = 0;
  for (int i = 0; i < 4; i++) {
    char c = s[i];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0)
      return -1;
    v = v * 16 + d;
  }
  return v;
}

/* `cp` (at most U+10FFFF) as UTF-8 in `out`; returns its length. */
static size_t utf8_put(uint32_t cp, char out[4]) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | cp >> 6);
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | cp >> 12);
    out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | cp >> 18);
  out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
  out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
  out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* A run of backslashes then "uXXXX": the code point and the bytes it takes, else -1. */
static long escaped_unit(const char *s, const char *end, size_t *taken) {
  const char *p = s;
  while (p < end && *p == '\\' && p - s < MAX_ESCAPE_RUN)
    p++;
  if (p == s || p >= end || *p != 'u')
    return -1;
  int v = hex4(p + 1, end);
  *taken = (size_t)(p + 5 - s);
  return v;
}

/* The character a JSON escape at `s` stands for, as UTF-8 in `out` (its length in *outlen), at any
 * depth of escaping: a run of backslashes then "uXXXX" (a surrogate pair as two such), '/' or '"'.
 * Returns the bytes of `s` it takes, 0 when `s` starts no such escape. */
static size_t unescape_one(const char *s, const char *end, char out[4], size_t *outlen) {
  const char *p = s;
  while (p < end && *p == '\\' && p - s < MAX_ESCAPE_RUN)
    p++;
  if (p == s || p >= end)
    return 0;
  if (*p == '/' || *p == '"') {
    out[0] = *p;
    *outlen = 1;
    return (size_t)(p + 1 - s);
  }
  size_t n, n2;
  long cp = escaped_unit(s, end, &n);
  if (cp < 0)
    return 0;
  if (cp >= 0xD800 && cp <= 0xDBFF) { /* a high surrogate: its low half follows */
    long lo = escaped_unit(s + n, end, &n2);
    if (lo < 0xDC00 || lo > 0xDFFF)
      return 0;
    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    n += n2;
  } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
    return 0;
  }
  *outlen = utf8_put((uint32_t)cp, out);
  return n;
}

/* The bytes of the text at `p` that read as `sec` (sl bytes), each of its characters written raw
 * or JSON-escaped; 0 when it does not start there. An escape that stands for another character
 * is taken as raw text (a backslash of the secret's own). */
static size_t match_secret(const char *p, const char *end, const char *sec, size_t sl) {
  const char *start = p;
  for (size_t k = 0; k < sl;) {
    char u[4];
    size_t ul = 0, n = p < end && *p == '\\' ? unescape_one(p, end, u, &ul) : 0;
    if (n && ul <= sl - k && !memcmp(u, sec + k, ul)) {
      p += n;
      k += ul;
    } else if (p < end && *p == sec[k]) {
      p++;
      k++;
    } else {
      return 0;
    }
  }
  return (size_t)(p - start);
}

void cs_http_redact(const cs_http *h, cs_buf *b) {
  for (size_t s = 0; s < h->nsecrets && b->data; s++) {
    const char *sec = h->secrets[s];
    size_t sl = strlen(sec);
    cs_buf out = {0};
    bool hit = false;
    const char *p = b->data, *end = b->data + b->len, *kept = p;
    while (p < end) {
      size_t n = *p == sec[0] || *p == '\\' ? match_secret(p, end, sec, sl) : 0;
      if (!n) {
        p++;
        continue;
      }
      cs_buf_put(&out, kept, (size_t)(p - kept));
      cs_buf_puts(&out, redacted);
      p += n;
      kept = p;
      hit = true;
    }
    if (!hit) {
      cs_buf_free(&out);
      continue;
    }
    cs_buf_put(&out, kept, (size_t)(end - kept));
    cs_buf_free(b);
    *b = out;
  }
}

/* `s` with every secret replaced, in memory cJSON may free (NULL when no secret is in it). */
static char *redacted_copy(const cs_http *h, const char *s) {
  cs_buf b = {0};
  cs_buf_puts(&b, s);
  cs_http_redact(h, &b);
  bool changed = b.data && strcmp(b.data, s) != 0;
  char *copy = changed ? cJSON_malloc(b.len + 1) : NULL;
  if (copy)
    memcpy(copy, b.data, b.len + 1);
  cs_buf_free(&b);
  return copy;
}

/* Redacts the decoded strings (and member names) of a JSON tree; true when one held a secret. */
static bool redact_json_tree(const cs_http *h, cJSON *item) {
  bool hit = false;
  for (; item; item = item->next) {
    char *copy;
    if (item->string && !(item->type & cJSON_StringIsConst) && (copy = redacted_copy(h, item->string))) {
      cJSON_free(item->string);
      item->string = copy;
      hit = true;
    }
    if (cJSON_IsString(item) && item->valuestring && (copy = redacted_copy(h, item->valuestring))) {
      cJSON_free(item->valuestring);
      item->valuestring = copy;
      hit = true;
    }
    hit |= redact_json_tree(h, item->child);
  }
  return hit;
}

/* A JSON body may carry a secret in a form no text search finds ("\u0073k-..."): when a decoded
 * string holds one, the body is written again from the redacted tree. Then the text forms. */
static void redact_body(const cs_http *h, cs_buf *body) {
  cJSON *root = body->data ? cJSON_ParseWithLength(body->data, body->len) : NULL;
  if (root && redact_json_tree(h, root)) {
    char *text = cJSON_PrintUnformatted(root);
    if (text) {
      cs_buf_clear(body);
      cs_buf_puts(body, text);
      cJSON_free(text);
    }
  }
  cJSON_Delete(root);
  cs_http_redact(h, body);
}

int cs_http_check_base_url(const char *url, cs_err *err) {
  if (strncmp(url, "https://", 8) && strncmp(url, "http://", 7))
    return cs_err_set(err, "--base-url '%.200s' is not an http:// or https:// URL", url);
  /* Credentials first, so that no message below echoes them (they would be printed and recorded
   * with the URL: a key goes in its variable). */
  const char *auth = strstr(url, "://") + 3;
  size_t alen = strcspn(auth, "/?#");
  if (memchr(auth, '@', alen))
    return cs_err_set(err, "--base-url holds credentials (user@ or user:password@): give the key in its variable");
  const char *mark = strpbrk(url, "?#"); /* even empty: the API path would land after it */
  if (mark)
    return cs_err_set(err, "--base-url '%.200s' has a %s: the API path is appended to the URL, so it takes none", url,
                      *mark == '?' ? "query" : "fragment");
  CURLU *u = curl_url();
  if (!u)
    return cs_err_set(err, "libcurl cannot start");
  int rc = 0;
  char *host = NULL;
  CURLUcode uc = curl_url_set(u, CURLUPART_URL, url, 0);
  if (uc != CURLUE_OK)
    rc = cs_err_set(err, "--base-url '%.200s' is not a valid URL: %s", url, curl_url_strerror(uc));
  else if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || !host || !*host)
    rc = cs_err_set(err, "--base-url '%.200s' has no host", url);
  curl_free(host);
  curl_url_cleanup(u);
  return rc;
}

bool cs_http_cassette_incomplete(const cs_http *h) {
  return h->cassette_unwritable;
}

unsigned cs_http_sent(const cs_http *h) {
  return h->sent;
}
unsigned cs_http_exchanges(const cs_http *h) {
  return h->exchanges;
}

void cs_http_response_free(cs_http_response *r) {
  cs_buf_free(&r->body);
  memset(r, 0, sizeof *r);
}

/* ---- cassette ---- */

static const char *url_path(const char *url) {
  const char *p = strstr(url, "://");
  p = p ? strchr(p + 3, '/') : NULL;
  return p ? p : "/";
}

static void request_hex(cs_http *h, const cs_http_request *req, char hex[65]) {
  const char *path = url_path(req->url);
  uint8_t d[32];
  cs_hasher_begin(h->hasher);
  cs_hasher_add(h->hasher, "POST\n", 5);
  cs_hasher_add(h->hasher, path, strlen(path));
  cs_hasher_add(h->hasher, "\n", 1);
  cs_hasher_add(h->hasher, req->body.ptr ? req->body.ptr : "", req->body.len);
  cs_hasher_finish(h->hasher, d);
  cs_hex(d, 16, hex);
}

/* Counts this exchange's request among those sent before it in this session (h->entry). */
static void count_occurrence(cs_http *h, const cs_http_request *req) {
  char hex[65];
  request_hex(h, req, hex);
  size_t i = 0;
  while (i < h->nseen && strcmp(h->seen[i].hex, hex))
    i++;
  if (i == h->nseen) {
    if (h->nseen == h->capseen) {
      h->capseen = h->capseen ? 2 * h->capseen : 64;
      h->seen = cs_xrealloc_array(h->seen, h->capseen, sizeof *h->seen);
    }
    memcpy(h->seen[h->nseen].hex, hex, 33);
    h->seen[h->nseen++].n = 0;
  }
  h->seen[i].n++;
  h->entry = i;
}

/* The cassette entry of the exchange under way (count_occurrence): NAME.json for the first
 * sending of its request, NAME.K.json for the K-th. */
static void cassette_name(const cs_http *h, const char *dir, cs_buf *out) {
  cs_buf_clear(out);
  if (h->seen[h->entry].n > 1)
    cs_buf_printf(out, "%s/%s.%u.json", dir, h->seen[h->entry].hex, h->seen[h->entry].n);
  else
    cs_buf_printf(out, "%s/%s.json", dir, h->seen[h->entry].hex);
}

static int cassette_write(cs_http *h, const cs_http_request *req, const cs_http_response *resp, cs_err *err) {
  cs_buf name = {0}, text = {0}, body = {0};
  int rc = -1;
  cJSON *root = cJSON_CreateObject(), *rq = cJSON_AddObjectToObject(root, "request");
  cJSON_AddStringToObject(rq, "method", "POST");
  cJSON_AddStringToObject(rq, "url", req->url);
  cJSON *hd = cJSON_AddObjectToObject(rq, "headers");
  for (size_t i = 0; i < req->nheaders; i++)
    cJSON_AddStringToObject(hd, req->headers[i].name, req->headers[i].secret ? redacted : req->headers[i].value);
  if (req->aws_sigv4)
    cJSON_AddStringToObject(hd, "authorization", redacted);
  cs_buf_put(&body, req->body.ptr ? req->body.ptr : "", req->body.len);
  cs_http_redact(h, &body);
  cJSON_AddStringToObject(rq, "body", body.data);
  cJSON *rs = cJSON_AddObjectToObject(root, "response");
  if (resp->outcome == CS_HTTP_FAILED || resp->outcome == CS_HTTP_TOO_LARGE) {
    /* no body read: the status received (0 for none) and what failed, so a replay says it too */
    cJSON_AddNumberToObject(rs, "status", (double)resp->status);
    cJSON_AddStringToObject(rs, "error", resp->body.data ? resp->body.data : "");
  } else {
    cJSON_AddNumberToObject(rs, "status", (double)resp->status);
    cJSON_AddStringToObject(rs, "body", resp->body.data ? resp->body.data : "");
  }
  /* Retries spend the budget: a replay spends as much, so the same cases go unsent. */
  cJSON_AddNumberToObject(root, "attempts", resp->attempts ? resp->attempts : 1);
  if (resp->wait_refused_s > 0) /* a replay stops where the recording did */
    cJSON_AddNumberToObject(root, "wait_refused_s", resp->wait_refused_s);
  char *s = cJSON_Print(root);
  cs_buf_puts(&text, s ? s : "");
  cJSON_free(s);
  cs_buf_putc(&text, '\n');
  cs_http_redact(h, &text); /* second line of defence: nothing secret reaches the disk */
  cassette_name(h, h->cfg.record_dir, &name);
  if (text.len > MAX_ENTRY) { /* a replay would refuse it */
    cs_err_set(err, "%s: the entry would be %zu bytes, more than the %zu a replay reads: not recorded", name.data,
               text.len, (size_t)MAX_ENTRY);
    goto cleanup;
  }
  if (cs_write_file(name.data, text.data, text.len, err))
    goto cleanup;
  rc = 0;
cleanup:
  cJSON_Delete(root);
  cs_buf_free(&name);
  cs_buf_free(&text);
  cs_buf_free(&body);
  return rc;
}

static cs_http_outcome cassette_read(cs_http *h, const cs_http_request *req, cs_http_response *resp) {
  cs_buf name = {0}, text = {0};
  cJSON *root = NULL;
  cs_err err = {{0}};
  cassette_name(h, h->cfg.replay_dir, &name);
  resp->outcome = CS_HTTP_BAD_CASSETTE;
  resp->attempts = 1;
  struct stat st_file;
  if (stat(name.data, &st_file) == 0 && !S_ISREG(st_file.st_mode)) { /* a FIFO would block the read */
    cs_buf_printf(&resp->body, "%s: not a regular file: not a cassette entry", name.data);
    goto cleanup;
  }
  FILE *f = fopen(name.data, "rb");
  if (!f) {
    /* Only a missing entry is "not recorded"; one that is there and cannot be read is broken. */
    if (errno == ENOENT) {
      resp->outcome = CS_HTTP_NOT_RECORDED;
      cs_buf_printf(&resp->body,
                    "no recorded answer for this request in %s (the recording sent other requests: another "
                    "--impl, --cases, --seed or --model, or an implementation whose IDs change from run to run)",
                    h->cfg.replay_dir);
    } else {
      cs_buf_printf(&resp->body, "%s: cannot read: %s", name.data, strerror(errno));
    }
    goto cleanup;
  }
  char chunk[8192];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && text.len <= MAX_ENTRY)
    cs_buf_put(&text, chunk, n);
  bool failed = ferror(f) != 0;
  int read_errno = errno;
  fclose(f);
  if (failed) {
    cs_buf_printf(&resp->body, "%s: cannot read: %s", name.data, strerror(read_errno));
    goto cleanup;
  }
  if (text.len > MAX_ENTRY) {
    cs_buf_printf(&resp->body, "%s: larger than %zu bytes: not a cassette entry", name.data, (size_t)MAX_ENTRY);
    goto cleanup;
  }
  if (!(root = cs_json_parse_strict(cs_buf_view(&text), MAX_ENTRY, "the cassette entry", &err))) {
    cs_buf_printf(&resp->body, "%s: %s", name.data, err.msg);
    goto cleanup;
  }
  const cJSON *rs = cJSON_GetObjectItemCaseSensitive(root, "response");
  const cJSON *st = cJSON_GetObjectItemCaseSensitive(rs, "status");
  const cJSON *bd = cJSON_GetObjectItemCaseSensitive(rs, "body");
  const cJSON *fe = cJSON_GetObjectItemCaseSensitive(rs, "error");
  const cJSON *at = cJSON_GetObjectItemCaseSensitive(root, "attempts");
  const cJSON *wr = cJSON_GetObjectItemCaseSensitive(root, "wait_refused_s");
  /* An answer: an HTTP status (100 to 999) and a body. A failed exchange: status 0 and what
   * failed. An answer too large to read: its status and what failed. Attempts: 1 to 100 (entries
   * written before it was recorded: 1). */
  bool whole = cJSON_IsNumber(st) && st->valuedouble == (double)(long)st->valuedouble;
  bool http = whole && st->valuedouble >= 100 && st->valuedouble <= 999;
  bool answer = http && cJSON_IsString(bd) && !fe;
  bool unread = http && cJSON_IsString(fe) && !bd;
  bool failure = whole && st->valuedouble == 0 && cJSON_IsString(fe) && !bd;
  bool tries = !at || (cJSON_IsNumber(at) && at->valuedouble >= 1 && at->valuedouble <= 100 &&
                       at->valuedouble == (double)(unsigned)at->valuedouble);
  bool waited = !wr || (cJSON_IsNumber(wr) && wr->valuedouble > 0 && wr->valuedouble <= 1e9);
  if (!(answer || unread || failure) || !tries || !waited) {
    cs_buf_printf(&resp->body,
                  "%s: not a cassette entry (response.status 100 to 999 with response.body or response.error, "
                  "or 0 with response.error; attempts 1 to 100; wait_refused_s above 0)",
                  name.data);
    goto cleanup;
  }
  resp->attempts = at ? (unsigned)at->valuedouble : 1;
  resp->wait_refused_s = wr ? wr->valuedouble : 0;
  resp->outcome = answer ? CS_HTTP_ANSWERED : unread ? CS_HTTP_TOO_LARGE : CS_HTTP_FAILED;
  resp->status = (long)st->valuedouble;
  cs_buf_puts(&resp->body, answer ? bd->valuestring : fe->valuestring);
cleanup:
  cJSON_Delete(root);
  cs_buf_free(&name);
  cs_buf_free(&text);
  return resp->outcome;
}

/* ---- the wire ---- */

typedef struct {
  cs_buf *body;
  double retry_after; /* seconds; <0 when absent */
  bool too_big;       /* the body passed MAX_BODY and the transfer was ended */
} sink;

static size_t on_body(char *p, size_t size, size_t n, void *user) {
  sink *s = user;
  size_t len = size * n;
  if (s->body->len + len > MAX_BODY) {
    s->too_big = true;
    return 0; /* aborts the transfer: CURLE_WRITE_ERROR */
  }
  cs_buf_put(s->body, p, len);
  return len;
}

static size_t on_header(char *p, size_t size, size_t n, void *user) {
  sink *s = user;
  size_t len = size * n;
  static const char name[] = "retry-after:";
  if (len > sizeof name - 1 && strncasecmp(p, name, sizeof name - 1) == 0) {
    char v[128];
    const char *from = p + sizeof name - 1, *to = p + len; /* the value without its spaces and line end */
    while (from < to && (*from == ' ' || *from == '\t'))
      from++;
    while (to > from && (to[-1] == ' ' || to[-1] == '\t' || to[-1] == '\r' || to[-1] == '\n'))
      to--;
    size_t vl = (size_t)(to - from) < sizeof v - 1 ? (size_t)(to - from) : sizeof v - 1;
    memcpy(v, from, vl);
    v[vl] = 0;
    char *end;
    double secs = strtod(v, &end);
    if (end != v && !*end && secs >= 0) {
      s->retry_after = secs;
    } else {
      time_t when = curl_getdate(v, NULL); /* an HTTP date */
      if (when > 0)
        s->retry_after = difftime(when, time(NULL)) > 0 ? difftime(when, time(NULL)) : 0;
    }
  }
  return len;
}

static void print_request(cs_http *h, const cs_http_request *req) {
  cs_buf b = {0};
  cs_buf_printf(&b, "POST %s\n", req->url);
  for (size_t i = 0; i < req->nheaders; i++)
    cs_buf_printf(&b, "%s: %s\n", req->headers[i].name, req->headers[i].secret ? redacted : req->headers[i].value);
  if (req->aws_sigv4)
    cs_buf_printf(&b, "authorization: %s (AWS SigV4, signed when sent)\n", redacted);
  cs_buf_putc(&b, '\n');
  cs_buf_put(&b, req->body.ptr ? req->body.ptr : "", req->body.len);
  cs_buf_puts(&b, "\n\n");
  cs_http_redact(h, &b);
  fwrite(b.data, 1, b.len, h->cfg.dry_out);
  fflush(h->cfg.dry_out);
  cs_buf_free(&b);
}

static bool retryable(long status) {
  /* 501 and 505: the server does not do this request at all; asking again changes nothing */
  return status == 429 || status == 408 || (status >= 500 && status != 501 && status != 505);
}

static void pace(cs_http *h) {
  if (h->have_last)
    sleep_s(1.0 / h->cfg.rate - (cs_now_s() - h->last));
  h->last = cs_now_s();
  h->have_last = true;
}

static cs_http_outcome send_live(cs_http *h, const cs_http_request *req, cs_http_response *resp) {
  CURL *c = h->curl;
  struct curl_slist *hl = NULL;
  cs_buf line = {0};
  char errbuf[CURL_ERROR_SIZE];
  for (size_t i = 0; i < req->nheaders; i++) {
    cs_buf_clear(&line);
    cs_buf_printf(&line, "%s: %s", req->headers[i].name, req->headers[i].value);
    hl = curl_slist_append(hl, line.data);
  }
  hl = curl_slist_append(hl, "Expect:"); /* no 100-continue round trip */
  cs_buf_free(&line);
  for (unsigned attempt = 0;; attempt++) {
    if (h->sent >= h->cfg.max_requests) {
      if (attempt == 0) {
        resp->outcome = CS_HTTP_BUDGET;
        cs_buf_clear(&resp->body);
        cs_buf_printf(&resp->body, "not sent: the request budget (--max-requests %u) is spent", h->cfg.max_requests);
      }
      break; /* a retry cut short keeps the last answer */
    }
    pace(h);
    curl_easy_reset(c);
    sink s = {&resp->body, -1, false};
    cs_buf_clear(&resp->body);
    errbuf[0] = 0;
    curl_easy_setopt(c, CURLOPT_URL, req->url);
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->body.ptr ? req->body.ptr : "");
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body.len);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &s);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(h->cfg.timeout_s * 1000));
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(h->cfg.connect_timeout_s * 1000));
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    /* TLS verification is never turned off; redirects are not followed (they could carry the key away). */
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    /* A fresh connection per request: on a reused one that the server closed, libcurl sends the
     * request again unasked, and the provider would see more requests than --max-requests. */
    curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    curl_easy_setopt(c, CURLOPT_NOPROXY, "127.0.0.1,localhost,::1"); /* loopback never goes through a proxy */
    if (req->aws_sigv4) {
#if LIBCURL_VERSION_NUM >= 0x074b00
      curl_easy_setopt(c, CURLOPT_AWS_SIGV4, req->aws_sigv4);
      curl_easy_setopt(c, CURLOPT_USERPWD, req->aws_userpwd);
#else
      resp->outcome = CS_HTTP_FAILED;
      cs_buf_puts(&resp->body, "this libcurl has no AWS SigV4 (7.75 or later needed); use AWS_BEARER_TOKEN_BEDROCK");
      break;
#endif
    }
    h->sent++;
    resp->attempts++;
    CURLcode rc = curl_easy_perform(c);
    if (rc != CURLE_OK && s.too_big) { /* curl would say "Failure writing output to destination" */
      curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status); /* the status line came before the body */
      cs_buf_clear(&resp->body);
      cs_buf_printf(&resp->body, "HTTP %ld with an answer larger than %zu MiB: not read", resp->status, MAX_BODY >> 20);
      resp->outcome = CS_HTTP_TOO_LARGE;
      break;
    }
    if (rc != CURLE_OK) {
      cs_buf_clear(&resp->body);
      cs_buf_printf(&resp->body, "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
      while (resp->body.len && resp->body.data[resp->body.len - 1] == '\n')
        resp->body.data[--resp->body.len] = 0;
      resp->outcome = CS_HTTP_FAILED;
      resp->status = 0;
      break;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);
    resp->outcome = CS_HTTP_ANSWERED;
    if (!retryable(resp->status) || attempt >= h->cfg.max_retries)
      break;
    double wait = s.retry_after >= 0 ? s.retry_after : h->cfg.backoff_s * (double)(1u << (attempt < 10 ? attempt : 10));
    if (wait > h->cfg.max_wait_s) { /* more patience than allowed: report it as it is */
      if (s.retry_after >= 0)
        resp->wait_refused_s = wait;
      break;
    }
    sleep_s(wait);
  }
  curl_easy_reset(c); /* drop references to the header list and the error buffer */
  curl_slist_free_all(hl);
  if (!resp->body.data)
    cs_buf_puts(&resp->body, "");
  return resp->outcome;
}

cs_http_outcome cs_http_send(cs_http *h, const cs_http_request *req, cs_http_response *resp) {
  memset(resp, 0, sizeof *resp);
  for (size_t i = 0; i < req->nheaders; i++)
    if (req->headers[i].secret) {
      const char *v = req->headers[i].value;
      cs_http_add_secret(h, v);
      if (!strncmp(v, "Bearer ", 7))
        cs_http_add_secret(h, v + 7); /* the bare key may be echoed elsewhere */
    }
  if (req->aws_userpwd) {
    /* both halves are secret: the key id identifies the account, the secret signs */
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", req->aws_userpwd);
    char *colon = strchr(tmp, ':');
    if (colon) {
      *colon = 0;
      cs_http_add_secret(h, colon + 1);
    }
    cs_http_add_secret(h, tmp);
  }
  /* A replay spends the budget as its recording did (each entry's attempts); a dry run, one per
   * request. */
  unsigned spent = h->cfg.replay_dir ? h->sent : h->exchanges;
  if ((h->cfg.replay_dir || h->cfg.dry_run) && spent >= h->cfg.max_requests) {
    resp->outcome = CS_HTTP_BUDGET;
    cs_buf_printf(&resp->body, "not sent: the request budget (--max-requests %u) is spent", h->cfg.max_requests);
    return resp->outcome;
  }
  h->exchanges++;
  if (h->cfg.replay_dir || h->cfg.record_dir)
    count_occurrence(h, req);
  if (h->cfg.replay_dir) {
    cassette_read(h, req, resp);
    h->sent += resp->attempts ? resp->attempts : 1;
  } else if (h->cfg.dry_run) {
    print_request(h, req);
    resp->outcome = CS_HTTP_DRY_RUN;
    cs_buf_puts(&resp->body, "not sent: dry run");
  } else {
    send_live(h, req, resp);
    if (resp->outcome == CS_HTTP_BUDGET) {
      h->exchanges--;
      if (h->cfg.record_dir)
        h->seen[h->entry].n--; /* not sent: its next sending takes this entry */
    }
  }
  /* Bytes that are not UTF-8 (or are NUL) become '?': live, recorded and replayed answers read the
   * same, and a report or cassette holding them stays valid JSON. */
  if (resp->body.data)
    cs_utf8_scrub(resp->body.data, resp->body.len);
  redact_body(h, &resp->body);
  if (h->cfg.record_dir &&
      (resp->outcome == CS_HTTP_ANSWERED || resp->outcome == CS_HTTP_FAILED || resp->outcome == CS_HTTP_TOO_LARGE)) {
    cs_err err = {{0}};
    if (cassette_write(h, req, resp, &err)) {
      fprintf(stderr, "callsign: %s\n", err.msg);
      h->cassette_unwritable = true;
    }
  }
  return resp->outcome;
}
