/* providers/probe.h: what a live probe needs from a provider: where to send, how to authenticate,
 * how to write the cheapest request that carries prior tool calls and their results with given IDs,
 * and how to read the provider's answer into a verdict. Each providers/<target>.c owns its spec
 * (builder and classifier); this header and providers/probe.c hold what they share: the verdicts,
 * the writer of the history from each provider's shape of calls and results, unwrapping of gateway
 * error envelopes, case-insensitive matching of stable error fragments, the offline verdict of
 * callsign's own rule on the same request, and the IDs the probes send. */
#ifndef CS_PROVIDERS_PROBE_H
#define CS_PROVIDERS_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/buf.h"
#include "core/str.h"
#include "providers/rule.h"
#include "providers/target.h"

typedef enum {
  CS_PROBE_ACCEPTED,         /* 2xx: the request passed validation */
  CS_PROBE_REJECTED_RULE,    /* the ID rule: pattern, length, empty, uniqueness */
  CS_PROBE_REJECTED_PAIRING, /* a result without its call, a call without its result, counts differ */
  CS_PROBE_REJECTED_OTHER,   /* anything else: auth, model, unknown field, tool config */
  CS_PROBE_TRANSPORT,        /* no usable answer: network, timeout, 429/5xx after retries */
  CS_PROBE_UNDECIDED,        /* offline only: callsign's rule could not decide on an ID (cs_rule_check) */
  CS_PROBE_VERDICT_COUNT
} cs_probe_verdict;

/* "accepted", "rejected-rule", "rejected-pairing", "rejected-other", "transport", "undecided". */
const char *cs_probe_verdict_name(cs_probe_verdict v);

/* One prior tool call and the result that answers it, as sent. `message` is the assistant message
 * (0-based) the call belongs to; its result goes into the message right after it. A null ID omits
 * the field. Pairs must be sorted by `message`. */
typedef struct {
  cs_str call_id;
  cs_str result_id;
  uint32_t message;
  bool orphan;     /* only the result is sent (a result answering no call) */
  bool unanswered; /* only the call is sent (a call without its result) */
  /* Calls of the emitted history left out just before this one (server calls): a global index
   * (Kimi) was given with them counted, so the offline rule counts them too. 0 for built cases. */
  uint32_t skipped;
} cs_probe_pair;

typedef struct {
  const char *model;
  unsigned endpoint; /* index into the spec's endpoints; 0 is the cheapest */
  const cs_probe_pair *pairs;
  uint32_t npairs;
} cs_probe_request;

/* How the provider links a result to its call (for the offline verdict). */
typedef enum {
  CS_PROBE_PAIR_BY_ID,    /* every result names a call of the previous message, every call is answered */
  CS_PROBE_PAIR_BY_COUNT, /* only the numbers of calls and results per message must be equal */
} cs_probe_pairing;

typedef enum {
  CS_PROBE_AUTH_BEARER, /* Authorization: Bearer KEY */
  CS_PROBE_AUTH_HEADER, /* auth_header: KEY */
  CS_PROBE_AUTH_AWS,    /* Bedrock: bearer AWS_BEARER_TOKEN_BEDROCK, or SigV4 from AWS_ACCESS_KEY_ID/SECRET */
} cs_probe_auth;

typedef struct {
  const char *name; /* "count_tokens", "messages", ... */
  const char *path; /* appended to the base URL; "{model}" is replaced by the URL-encoded model */
} cs_probe_endpoint;

typedef struct {
  cs_probe_verdict verdict;
  /* A rejected-rule text that a pairing error gives too (OpenAI's duplicate tool_call_id: repeated
   * call IDs, or two results naming one call): the request decides which it was. */
  bool or_pairing;
  /* The request never reached the provider's validation (HTTP 401, 402, 403, 404, 405, 406, 407, 411, 415,
   * 426, 501, 505, a redirect, or a success whose body is not JSON): the key, the model or the base
   * URL is wrong, and every other request would be answered the same. The verdict is then
   * CS_PROBE_TRANSPORT. */
  bool setup;
  char message[600]; /* the provider's innermost error message (one line), or the transport error */
} cs_probe_outcome;

struct cs_probe_spec {
  const char *key_env[3]; /* variables that may hold the key, first set wins (NULL-terminated) */
  cs_probe_auth auth;
  const char *auth_header; /* CS_PROBE_AUTH_HEADER: the header name */
  const char *headers[3];  /* fixed extra headers "name: value" (NULL-terminated) */
  const char *base_url;    /* default; "{region}" is replaced (Bedrock) */
  const char *model;       /* default model */
  cs_probe_endpoint endpoints[2];
  unsigned nendpoints;
  cs_probe_pairing pairing;
  const char *id_prefix; /* what a native ID starts with */
  bool id_index_suffix;  /* native IDs end with ":<global index>" (Kimi) */
  /* Writes the JSON request body: one user message, then per assistant message its calls and a
   * message with their results; a single dummy tool "get_x"; the smallest output budget. */
  void (*build)(const cs_probe_request *req, cs_buf *body);
  /* Reads an answer (HTTP status 0: no answer, `body` then holds the transport error). */
  void (*classify)(long status, cs_str body, cs_probe_outcome *out);
};

/* The i-th environment variable that may hold a provider credential (every target's key_env, then
 * AWS SigV4's), or NULL past the last. probe redacts them all from what it writes; external
 * implementations are started without them (an ID normalizer needs none). */
const char *cs_probe_key_env_at(size_t i);
/* `name` (len bytes, no '=') is one of those variables. */
bool cs_probe_is_key_env(const char *name, size_t len);

/* Shared by the builders: number of assistant messages (largest `message` + 1). */
uint32_t cs_probe_nmessages(const cs_probe_request *r);
/* The dummy tool every probe declares and calls. */
#define CS_PROBE_TOOL "get_x"

/* How one side of an exchange is written in a provider's body: the calls of an assistant message,
 * or the results that answer them. Every field is a JSON fragment written as is; NULL writes
 * nothing. The providers differ only in these fragments, so each declares two rows (calls, results)
 * and cs_probe_write_turns writes the messages for all of them. */
typedef struct {
  const char *open;     /* starts the group holding the blocks (the message, or its list of calls), with
                         * the leading ','; NULL: the blocks are top-level items, each written after a ',' */
  const char *close;    /* ends a group opened by `open` */
  const char *empty;    /* written instead of the whole side when it has no block: a placeholder message
                         * with the leading ','; NULL: nothing */
  const char *head;     /* starts each block */
  const char *id_key;   /* before the ID, with its separators ("id": right after the head, ,"id": after
                         * other fields); left out with the ID when the ID is null */
  const char *id_after; /* after the ID (the ',' before the next field), left out likewise */
  const char *tail;     /* ends each block */
} cs_probe_shape;

/* Writes the history of `req` after the opening user message (each message or item it writes
 * begins with its ','): for every assistant message m from 0 to cs_probe_nmessages - 1, the calls
 * side, then the results side. The calls side's blocks are the pairs of message m that are not
 * orphans, with call_id; the results side's, those that are not unanswered, with result_id; both in
 * request order. A side with blocks is `open`, the blocks separated by ',', then `close` (without
 * `open`: ',' before each block); a side without blocks is `empty`. A block is head, then id_key,
 * the ID as a JSON string and id_after unless the ID is null, then tail. The caller writes the
 * header before and the end of the message list (and any footer) after. */
void cs_probe_write_turns(const cs_probe_request *req, const cs_probe_shape *calls, const cs_probe_shape *results,
                          cs_buf *body);

/* The OpenAI-compatible chat body (OpenAI Chat Completions, Mistral, Kimi): `budget_field` is the
 * output-budget parameter (max_tokens or max_completion_tokens), set to `budget` tokens. */
void cs_probe_build_chat(const cs_probe_request *req, const char *budget_field, unsigned budget, cs_buf *body);

/* The innermost error message of an error body, through gateway envelopes: {"error":{"message"}},
 * {"message"}, {"error":"..."}, OpenRouter's error.metadata.raw, Vertex's JSON-string message and
 * Bedrock's "The model returned the following errors: " prefix. `code` gets the innermost code,
 * type or status fields (space-separated). Non-JSON bodies are their own message. */
void cs_probe_error_text(cs_str body, cs_buf *message, cs_buf *code);

/* Case-insensitive search of `pattern` anywhere in `text`: '*' matches any run of characters, '#'
 * a run of digits (message indexes), every other character itself. */
bool cs_probe_match(cs_str text, const char *pattern);

typedef struct {
  const char *pattern; /* matched against the message, then against the code */
  cs_probe_verdict verdict;
} cs_probe_pattern;

/* The common classifier: 2xx accepted (unless its body is an error envelope, read as a rejection
 * with any other status); status 0, 408, 429 and 5xx transport; otherwise the first row matching
 * the unwrapped message or code, else rejected-other. */
void cs_probe_classify_with(const cs_probe_pattern *rows, size_t nrows, long status, cs_str body,
                            cs_probe_outcome *out);

/* callsign's offline verdict on the same request: every sent ID against the target's rule (calls
 * with their global index), distinct call IDs over the request, then pairing by `mode`. `why`
 * (may be NULL) gets a short reason; for CS_PROBE_UNDECIDED (the rule gave no verdict on an ID,
 * which is no verdict to compare with the provider's), cs_rule_check's whole message. */
cs_probe_verdict cs_probe_offline(cs_ruleset *rs, cs_target_id t, cs_probe_pairing mode, const cs_probe_request *req,
                                  char *why, size_t why_len);

/* A native-looking ID of exactly `len` code points for `spec` (alphanumeric filler after the prefix,
 * Kimi's ":<index>" at the end when it fits); `salt` varies the filler. */
cs_str cs_probe_make_id(const cs_probe_spec *spec, uint32_t len, uint32_t index, uint32_t salt, cs_arena *a);

/* The request URL: base (trailing '/' dropped, "{region}" replaced) + the endpoint path with
 * "{model}" replaced by the percent-encoded model. */
void cs_probe_url(const cs_probe_spec *spec, const char *base, const char *region, unsigned endpoint, const char *model,
                  cs_buf *out);

/* Each provider's spec, defined at the end of its providers/<target>.c. */
extern const cs_probe_spec cs_probe_anthropic, cs_probe_openai_chat, cs_probe_openai_responses, cs_probe_mistral,
    cs_probe_kimi, cs_probe_gemini, cs_probe_bedrock;

#endif
