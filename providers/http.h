/* providers/http.h: the HTTP client of the live probes (libcurl). One context per probe run holds
 * the safety limits: a request budget, a rate limit, timeouts, retries with backoff on 429 and 5xx
 * (honouring Retry-After), TLS verification always on, no redirects. It also runs the offline
 * modes: dry run (print each request, send nothing), record (store every exchange in a cassette
 * directory) and replay (answer from the cassette, send nothing). Secrets (authorization headers,
 * keys) are removed from everything it prints, records or returns.
 * libcurl's global state: the caller runs curl_global_init once before the first context, while the
 * process has a single thread, and curl_global_cleanup at the end (harness/cmd_probe.c does). */
#ifndef CS_PROVIDERS_HTTP_H
#define CS_PROVIDERS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/str.h"

/* The longest backoff or Retry-After honoured by default (cs_http_config.max_wait_s). */
#define CS_HTTP_MAX_WAIT_S 60.0

/* The rates a context accepts (--rate). At 0.01 per second a request already waits 100 s for the
 * one before (a probe of 50, over an hour); closer to 0 the pause is endless, then too large for a
 * time_t. Above 1000 per second the limit would limit nothing. */
#define CS_HTTP_MIN_RATE 0.01
#define CS_HTTP_MAX_RATE 1000.0

typedef struct {
  double timeout_s;         /* whole exchange; 0: 60 */
  double connect_timeout_s; /* 0: 10 */
  unsigned max_requests;    /* requests put on the wire, retries included; 0: 50 */
  double rate;              /* requests per second at most; 0: 2; else CS_HTTP_MIN_RATE to CS_HTTP_MAX_RATE */
  unsigned max_retries;     /* on 429 and 5xx; 0: 4 */
  double max_wait_s;        /* longest backoff or Retry-After honoured; 0: CS_HTTP_MAX_WAIT_S (longer: give up) */
  double backoff_s;         /* first backoff when no Retry-After; 0: 0.5, doubling */
  const char *record_dir;   /* store exchanges here (created when missing) */
  cs_made *made;            /* NULL, or where the directories made for record_dir are listed */
  const char *replay_dir;   /* answer from here; nothing is sent */
  bool dry_run;             /* print requests to `dry_out`; nothing is sent */
  FILE *dry_out;            /* NULL: stdout */
} cs_http_config;

typedef struct {
  const char *name, *value;
  bool secret; /* never printed or recorded; its value is also redacted wherever it appears */
} cs_http_header;

typedef struct {
  const char *url; /* the method is always POST */
  const cs_http_header *headers;
  size_t nheaders;
  cs_str body;
  /* AWS SigV4 through libcurl: "aws:amz:REGION:SERVICE" and "ACCESS_KEY_ID:SECRET_ACCESS_KEY". */
  const char *aws_sigv4;
  const char *aws_userpwd;
} cs_http_request;

typedef enum {
  CS_HTTP_ANSWERED,     /* an HTTP status and body (possibly 429/5xx after the retries) */
  CS_HTTP_FAILED,       /* no answer: network error, timeout, TLS failure; body holds the reason */
  CS_HTTP_TOO_LARGE,    /* an HTTP status came, but its body passed the size cap and was not read: no
                           verdict, though an answer (status set; body holds the reason, with the cap) */
  CS_HTTP_BUDGET,       /* not sent: --max-requests reached */
  CS_HTTP_DRY_RUN,      /* not sent: printed */
  CS_HTTP_NOT_RECORDED, /* replay: the cassette holds no answer for this request */
  CS_HTTP_BAD_CASSETTE, /* replay: the entry for this request is there but unreadable or malformed: an
                           input error (body: "FILE: reason"), not the provider's verdict */
} cs_http_outcome;

typedef struct {
  cs_http_outcome outcome;
  long status;       /* HTTP status when answered (or too large to read), else 0 */
  cs_buf body;       /* answer body with secrets removed, or the reason when not answered */
  unsigned attempts; /* requests this exchange put on the wire */
  /* The wait (seconds) the last answer's Retry-After asked for when it was longer than max_wait_s,
   * so no retry was sent; 0: none. Asking again sooner would be refused the same way. */
  double wait_refused_s;
} cs_http_response;

typedef struct cs_http cs_http;

/* A key shorter than this many bytes is a placeholder for a local fake (cs_http_add_secret). */
#define CS_HTTP_SHORT_SECRET 8

/* NULL with `err` when libcurl or the record directory cannot be set up. */
cs_http *cs_http_new(const cs_http_config *cfg, cs_err *err);
void cs_http_free(cs_http *h);
/* Adds a value that must never appear in output (keys, tokens), with the forms JSON text gives
 * it; NULL, or one shorter than 8 bytes (a placeholder for a local fake: no provider issues such
 * keys, and replacing it everywhere would break reports), is ignored. */
void cs_http_add_secret(cs_http *h, const char *secret);
/* Checks a base URL before any request: an http:// or https:// URL libcurl can parse, with a host,
 * without credentials (they would be printed and recorded with it), and without a query or
 * fragment (the API path is appended to it). 0, or -1 with err saying why (not echoing the URL
 * when it holds credentials). */
int cs_http_check_base_url(const char *url, cs_err *err);
/* Replaces every known secret in `b` by "[redacted]": written raw, or with any of its characters
 * JSON-escaped (\uXXXX, a surrogate pair, \/, \"), at any depth of escaping, in any text: a
 * provider may echo the key so in a body that is no JSON (cut short, or plain text). */
void cs_http_redact(const cs_http *h, cs_buf *b);
/* Sends one request (or prints, records, replays it). `resp` is reset first; free it with
 * cs_http_response_free. Returns the outcome (also in resp->outcome). */
cs_http_outcome cs_http_send(cs_http *h, const cs_http_request *req, cs_http_response *resp);
void cs_http_response_free(cs_http_response *r);
/* Requests put on the wire so far (replayed and printed ones are not counted). */
unsigned cs_http_sent(const cs_http *h);
/* True when a cassette entry could not be written (--record): the recording is incomplete. */
bool cs_http_cassette_incomplete(const cs_http *h);
/* Exchanges handled so far, whatever the mode (sent, replayed, printed). */
unsigned cs_http_exchanges(const cs_http *h);

#endif
