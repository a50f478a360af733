/* impls/registry.c: the registry of built-in implementations, the one table `callsign list`,
 * `--impl NAME` and the README's implementation table come from. `breaks` is documentation only:
 * the harness judges every built-in by the same properties. */
#include <string.h>

#include "impls/builtins.h"

static const cs_builtin builtins[] = {
    {
        .name = "reference",
        .design = "callsign canonical v1 (length-prefixed tuple, SHA-256, collisions resolved) and the reference "
                  "mappers",
        .breaks = "nothing required; normalize gives up idempotence (it always derives) and has no kimi form; on "
                  "mistral its stateless normalize has 62^9 outputs (53.6 bits), so it is injective only below the "
                  "birthday bound: `callsign collide` finds a pair in seconds, and a corpus that keeps that pair "
                  "fails normalize.injective, as it should",
        .create = cs_builtin_reference_create,
    },
    {
        .name = "seed-literal-join",
        .design = "hist_tool_ + base64url(SHA-256(provider|rawId|toolName|turnKey|callIndex)), reference mappers",
        .breaks = "canon.unique, emit.unique: a raw ID and a tool name holding '|' join to another tuple's string "
                  "(twin.join), canonical look-alike duplicates are kept, no collision handling",
        .create = cs_builtin_literal_join_create,
    },
    {
        .name = "prefix-swap",
        .design = "swap native prefixes (call_, toolu_, tooluse_) for hist_tool_, then for the target's prefix",
        .breaks = "emit.regex and canon.charset (illegal characters, long IDs), emit.unique and canon.unique (twins "
                  "call_X/toolu_X), emit.kimi_roundtrip (index within the turn), emit.pair, emit.no_orphans and "
                  "canon.pair (results keep their own call_id), emit.server_passthrough and emit.native_passthrough",
        .create = cs_builtin_prefix_swap_create,
    },
    {
        .name = "tool-id-strategy",
        .design = "strip characters outside [A-Za-z0-9_], random UUID when nothing is left; "
                  "functions.{name}:{global index} for kimi",
        .breaks =
            "emit.deterministic and normalize.deterministic (random UUIDs), emit.pair and emit.no_orphans for "
            "missing IDs, emit.unique and normalize.injective (a-b vs ab), emit.regex and normalize.regex (mistral, "
            "length limits, a tool name kimi refuses), emit.native_passthrough, emit.prefix_stable and "
            "emit.compression_stable (stripped and random IDs)",
        .create = cs_builtin_tool_id_strategy_create,
    },
    {
        .name = "adk-stream-v1",
        .design = "call_0, call_1, ... restarting every assistant turn; results matched by tool name",
        .breaks = "emit.unique across turns, emit.pair, emit.no_orphans and emit.no_loss (the name map: parallel "
                  "same-name calls, results of earlier turns or under another tool's name), emit.regex (mistral, "
                  "kimi, server calls), emit.kimi_roundtrip, "
                  "emit.server_passthrough and emit.native_passthrough (it renumbers), canon.unique and canon.pair",
        .create = cs_builtin_adk_stream_v1_create,
    },
    {
        .name = "adk-stream-v2",
        .design = "the provider's raw ID when present, else call_N; results without call_id matched by tool name",
        .breaks =
            "emit.regex and canon.charset on illegal raw IDs, emit.unique and canon.unique on duplicated raw IDs, "
            "emit.pair, emit.no_orphans and canon.pair (the name map for results without call_id)",
        .create = cs_builtin_adk_stream_v2_create,
    },
    {
        .name = "anthropic-sanitize",
        .design = "anthropic/bedrock: compliant and srvtoolu_ IDs pass; others get characters outside "
                  "[a-zA-Z0-9_-] replaced by '_', are cut to 53 and get _ + 10 hex digits of SHA-256 (a missing ID: "
                  "toolu_ + 10 hex digits of its place); results get the same of their own call_id",
        .breaks =
            "emit.unique (duplicates and implementation-aware twins pass unchanged), normalize.injective "
            "(40-bit suffix, twins), emit.pair and emit.no_orphans (a result's own call_id is sanitized, not "
            "paired), emit.compression_stable (a missing ID is named after its turn), emit.regex and normalize.regex "
            "(srvtoolu_ is matched by its prefix alone, so srvtoolu_|x passes)",
        .create = cs_builtin_anthropic_sanitize_create,
    },
    {
        .name = "mistral-hash9",
        .design = "mistral: 9 base62 characters of SHA-256(raw ID) for every call ID (a missing one hashed from its "
                  "place), results paired by the rule, no collision handling",
        .breaks =
            "emit.unique: duplicated raw IDs, and real collisions of the 53.6-bit hash (callsign collide finds one "
            "in about 2^27 evaluations; normalize.injective fails on the pair the corpus keeps); "
            "normalize.idempotent (it hashes its own output again); emit.native_passthrough (native IDs are hashed "
            "too) and emit.compression_stable (a missing ID is named after its turn)",
        .create = cs_builtin_mistral_hash9_create,
    },
};

const cs_builtin *cs_builtins(size_t *count) {
  if (count)
    *count = sizeof builtins / sizeof *builtins;
  return builtins;
}

const cs_builtin *cs_builtin_find(const char *name) {
  if (!name)
    return NULL;
  for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
    if (strcmp(builtins[i].name, name) == 0)
      return &builtins[i];
  return NULL;
}
