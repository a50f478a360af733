/* providers/mistral.c: Mistral. Rule: ^[a-zA-Z0-9]{9}$ (documented in mistral-common, observed).
 * The mapper draws 9 base62 characters from SHA-256 of the canonical ID; a collision within the
 * request is resolved by re-deriving from canonical#attempt, in document order. */
#include "providers/target.h"

static cs_str mistral_map(const cs_rule *rule, const cs_digest *d, const cs_map_input *in, cs_arena *a) {
  (void)rule;
  return cs_map_base62(d, in, 9, a);
}

const cs_target cs_target_mistral = {
    .name = "mistral",
    .id = CS_PROV_MISTRAL,
    .rule = {.pattern = "^[a-zA-Z0-9]{9}$", .min_len = 9, .max_len = 9},
    .mapper = mistral_map,
    .native_passthrough = true,
    .summary = "tool_calls[].id ^[a-zA-Z0-9]{9}$, unique",
    .evidence = "documented (mistral-common validator) and observed",
};
