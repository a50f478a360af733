/* providers/rule.h: the run-time ruleset: every target's rule, compiled (PCRE2, JIT when available),
 * after overrides from the command line or a profile file. One ruleset per thread: it owns PCRE2
 * match data. A zero-initialised config means the defaults of the target table. */
#ifndef CS_PROVIDERS_RULE_H
#define CS_PROVIDERS_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "providers/target.h"

typedef struct cs_ruleset cs_ruleset;

/* Builds the ruleset from the table defaults. NULL with `err` set if a pattern fails to compile. */
cs_ruleset *cs_ruleset_new(cs_err *err);
void cs_ruleset_free(cs_ruleset *rs);

/* Applies one override "TARGET.KEY=VALUE", KEY one of pattern, min_len, max_len, server_pattern
 * (e.g. "openai_chat.max_len=64"). Returns 0, or -1 with a one-line reason. */
int cs_ruleset_override(cs_ruleset *rs, const char *spec, cs_err *err);
/* Applies every non-blank, non-# line of a profile file as an override. */
int cs_ruleset_load_profile(cs_ruleset *rs, const char *path, cs_err *err);

/* The highest min_len a rule may have: the reference makes IDs of at least min_len characters. */
#define CS_RULE_MAX_MIN_LEN 65536u
/* Once every override is applied: -1 with a one-line reason when a rule cannot be met at all
 * (min_len above max_len) or asks the reference for IDs above CS_RULE_MAX_MIN_LEN characters. A
 * rule that only small requests fit passes (anthropic.max_len=1 leaves 64 IDs; how many a pattern
 * leaves is not known): whether it fits depends on the history, so `emit` checks its answer. */
int cs_ruleset_check(const cs_ruleset *rs, cs_err *err);

const cs_rule *cs_ruleset_rule(const cs_ruleset *rs, cs_target_id t);

/* Appends to `out`, each ended by a NUL, the overrides ("mistral.max_len=12") that make the default
 * rules into rs, one per key that differs ("gemini.pattern=" for a pattern removed); returns how
 * many. Given as --rule options, in order, they make rs again, wherever the profile file went. */
size_t cs_ruleset_overrides(const cs_ruleset *rs, cs_buf *out);
/* The same for one rule `r` of target t: the keys --rule and --profile set (pattern, min_len,
 * max_len, server_pattern) where r differs from t's default. */
size_t cs_rule_overrides(cs_target_id t, const cs_rule *r, cs_buf *out);

/* Pass as global_index when the index is unknown (stateless normalize): the index is not checked. */
#define CS_RULE_ANY_INDEX UINT32_MAX

/* A rule's verdict on one ID. UNDECIDED: PCRE2 gave up matching (its match, depth or heap limit,
 * on a pattern that backtracks too much), so the ID neither meets nor breaks the rule; the caller
 * must not turn that into either. Compare with the names: UNDECIDED is not 0. */
typedef enum { CS_RULE_BROKEN = 0, CS_RULE_MET = 1, CS_RULE_UNDECIDED = 2 } cs_rule_verdict;
/* Room for any `why` below, the undecided one included (it names the rule and the ID). */
#define CS_RULE_WHY_MAX 256

/* Checks one emitted call ID. `global_index` is the call's position among the request's calls
 * (for Kimi's rule). `server`: the call is a server call (checked against server_pattern when the
 * target has one). Unless MET, writes one line to `why` (if not NULL): a short reason after the ID
 * for BROKEN ("is 41 characters, the maximum is 40"); for UNDECIDED a whole message naming the
 * rule and the ID ("rule anthropic.pattern: PCRE2 match limit exceeded on ID \"x\": ..."). */
cs_rule_verdict cs_rule_check(cs_ruleset *rs, cs_target_id t, cs_str id, uint32_t global_index, bool server, char *why,
                              size_t why_len);
/* MET when `id` matches the target's server-call pattern, BROKEN when not (or the target has none),
 * UNDECIDED (with `why` as above, if not NULL) when PCRE2 gave up. */
cs_rule_verdict cs_rule_server_ok(cs_ruleset *rs, cs_target_id t, cs_str id, char *why, size_t why_len);
/* Number of Unicode code points in valid UTF-8. */
size_t cs_utf8_length(cs_str s);

#endif
