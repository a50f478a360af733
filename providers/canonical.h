/* providers/canonical.h: the reference (callsign canonical v1) and the reference emitter.
 *
 * canonical v1: "hist_tool_" + the first 24 characters of base64url(SHA-256(encode(provider, raw_id,
 * tool_name, turn_key, call_index))). encode is injective: the ASCII header "callsign-canonical-v1,"
 * then each field as a netstring "<decimal byte length>:<bytes>," or "~," for null; call_index is
 * written as decimal digits in a netstring. A call whose raw ID is already canonical
 * (^hist_tool_[A-Za-z0-9_-]{24}$) keeps it, unless an earlier call of the history already has that
 * canonical ID; any duplicate is resolved in document order by appending a sixth field, the attempt
 * number 1, 2, ... until the ID is unused. Results take their call's ID by PROTOCOL.md's pairing
 * rule; orphan results get null.
 *
 * Reference emit for a target: canonicalize, then in document order give each call a wire ID:
 * an Anthropic server call whose raw ID matches the server pattern keeps it; a call whose turn was
 * produced by the target itself keeps its raw ID when it is valid for the target (targets with
 * native_passthrough); otherwise the target's mapper derives it from the canonical ID. An ID already
 * used in the request is re-derived with attempt 1, 2, ... Results get their call's wire ID.
 */
#ifndef CS_PROVIDERS_CANONICAL_H
#define CS_PROVIDERS_CANONICAL_H

#include "core/history.h"
#include "providers/rule.h"
#include "providers/target.h"

#define CS_CANONICAL_SCHEME "callsign-canonical-v1"
#define CS_CANONICAL_PREFIX "hist_tool_"
#define CS_CANONICAL_LEN 34

/* True for ^hist_tool_[A-Za-z0-9_-]{24}$. */
bool cs_is_canonical(cs_str id);
/* The canonical v1 ID of one call tuple (attempt 0: the plain hash). */
cs_str cs_canonical_id(const cs_digest *d, cs_provider provider, cs_str raw_id, cs_str tool_name, cs_str turn_key,
                       uint32_t call_index, uint32_t attempt, cs_arena *a);

/* Canonicalizes a whole history (stored IDs). `ix` must be built from `h`. */
cs_answer cs_canonicalize(const cs_history *h, const cs_history_index *ix, const cs_digest *d, cs_arena *a);

/* Attempts the reference emitter makes per call before it gives up on a unique ID: a rule such as
 * anthropic.max_len=1 admits only 64 IDs, and the 65th call finds every one taken. */
#define CS_EMIT_ATTEMPTS 10000u

/* Reference emit for `target` given the canonical answer `canon` of the same history. A call that
 * finds all of its CS_EMIT_ATTEMPTS attempts taken (the rule leaves no room for one more ID) keeps
 * the last. */
cs_answer cs_reference_emit(const cs_history *h, const cs_history_index *ix, const cs_answer *canon, cs_ruleset *rs,
                            cs_target_id target, const cs_digest *d, cs_arena *a);

/* What cs_reference_emit_checked finds. */
typedef struct {
  uint32_t bad;        /* the first call whose wire ID repeats an earlier one or breaks the rule; ncalls: none */
  bool repeated;       /* that call found all of its attempts taken (else its ID breaks the rule) */
  uint64_t candidates; /* wire IDs the mapper derived: the work done */
} cs_emit_check;

/* cs_reference_emit that also checks each wire ID against the rule and uniqueness as it goes. With
 * `stop`, it stops at the first bad call (the calls after it stay null), so a rule that leaves no
 * room for the history costs one call's attempts, not those of every call after it. */
cs_answer cs_reference_emit_checked(const cs_history *h, const cs_history_index *ix, const cs_answer *canon,
                                    cs_ruleset *rs, cs_target_id target, const cs_digest *d, cs_arena *a, bool stop,
                                    cs_emit_check *chk);

/* Reference stateless normalizer: always derives (prefix + hash of the whole input), so it is
 * deterministic, valid and injective up to the hash, and gives up idempotence by design. Kimi has
 * no stateless form (its IDs depend on the call's index): returns null for it. */
cs_str cs_reference_normalize(cs_ruleset *rs, cs_target_id target, cs_str id, const cs_digest *d, cs_arena *a);

#endif
