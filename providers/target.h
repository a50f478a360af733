/* providers/target.h: the target table, the single source of truth for every provider's ID rule,
 * its reference mapper and its notes. `callsign list`, the reports and the README's target table
 * are derived from it. Rules can be overridden at run time through a cs_ruleset (no global state).
 */
#ifndef CS_PROVIDERS_TARGET_H
#define CS_PROVIDERS_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/history.h"

typedef struct cs_probe_spec cs_probe_spec; /* providers/probe.h */

typedef cs_provider cs_target_id; /* only the first CS_PROVIDER_TARGETS values are targets */
#define CS_TARGET_COUNT CS_PROVIDER_TARGETS

/* An ID rule. Length is counted in Unicode code points. */
typedef struct {
  const char *pattern;        /* PCRE2 pattern every call ID must match; NULL: any text */
  uint32_t min_len, max_len;  /* inclusive; max_len 0: no limit */
  bool global_index;          /* Kimi: the number after the last ':' is the call's global index */
  const char *server_pattern; /* pattern for server-call IDs (Anthropic srvtoolu_), or NULL */
} cs_rule;

/* What the reference mapper needs to derive a wire ID. The digest is injectable so tests can force
 * collisions; NULL digest means SHA-256 through `hasher`. */
typedef struct {
  cs_hasher *hasher;
  void (*digest)(void *user, const void *data, size_t len, uint8_t out[32]);
  void *digest_user;
} cs_digest;

void cs_digest_run(const cs_digest *d, const void *data, size_t len, uint8_t out[32]);

typedef struct {
  cs_str canonical;      /* the call's canonical v1 ID */
  const cs_call *call;   /* the call itself */
  uint32_t global_index; /* position among all calls of the request */
  uint32_t attempt;      /* 0 first; >0 after a collision with an ID already used in the request */
} cs_map_input;

/* A reference mapper: canonical ID -> wire candidate for this target, respecting `rule`. */
typedef cs_str (*cs_mapper_fn)(const cs_rule *rule, const cs_digest *d, const cs_map_input *in, cs_arena *a);

typedef struct {
  const char *name;                  /* stable target name, as in PROTOCOL.md */
  cs_target_id id;                   /* its cs_provider value */
  cs_rule rule;                      /* the default rule */
  cs_mapper_fn mapper;               /* reference mapper */
  bool native_passthrough;           /* reference keeps IDs that the same provider produced, when valid */
  bool attempt_shifts_index;         /* mapper's attempt a at index i = its attempt 0 at i + a, same name (kimi) */
  const char *summary;               /* one line for `callsign list` and the README */
  const char *evidence;              /* how sure we are (PROVIDERS.md grade) */
  const struct cs_probe_spec *probe; /* live probe: request builder, classifier (providers/probe.h) */
} cs_target;

/* The table, indexed by cs_target_id. */
const cs_target *cs_target_get(cs_target_id t);
/* -1 when not a target name. */
int cs_target_parse(const char *name);

/* Shared mapper helpers (providers/mapper_util.c). */
/* prefix + `n` base64url chars of the canonical suffix (attempt 0) or of digest(canonical#attempt). */
cs_str cs_map_prefixed(const cs_rule *rule, const cs_digest *d, const cs_map_input *in, const char *prefix,
                       cs_arena *a);
/* `n` base62 characters drawn from digest(canonical) (attempt 0) or digest(canonical#attempt). */
cs_str cs_map_base62(const cs_digest *d, const cs_map_input *in, size_t n, cs_arena *a);

/* Kimi's name part (providers/kimi.c): `name` with each character outside [A-Za-z0-9_.-] as one '_'
 * (one per character, not per UTF-8 byte), at most `room` characters written to `out`. Returns the
 * count written; 0 for an empty name. */
size_t cs_kimi_name(cs_str name, char *out, size_t room);

extern const cs_target cs_target_anthropic, cs_target_openai_chat, cs_target_openai_responses, cs_target_mistral,
    cs_target_kimi, cs_target_gemini, cs_target_bedrock;

#endif
