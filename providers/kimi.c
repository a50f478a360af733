/* providers/kimi.c: Moonshot Kimi K2. Rule: functions.{name}:{N} with N the call's global index over
 * the request, from 0 (documented model-native format); unique by construction. */
#include <stdint.h>
#include <string.h>

#include "providers/probe.h"
#include "providers/target.h"

size_t cs_kimi_name(cs_str name, char *out, size_t room) {
  size_t n = 0;
  for (size_t i = 0; i < name.len && n < room; i++) {
    unsigned char c = (unsigned char)name.ptr[i];
    int ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (c >= 0x80 && (c & 0xC0) == 0x80)
      continue; /* one '_' per non-ASCII character, not per byte */
    out[n++] = ok ? (char)c : '_';
  }
  return n;
}

/* The name part is cut or padded with '_' when the rule's length limits leave it less or more room
 * (overridden limits only; the index is what keeps Kimi IDs unique). A maximum that leaves no room
 * for one name character cannot be met in this format: the name is then kept whole. */
static cs_str kimi_map(const cs_rule *rule, const cs_digest *d, const cs_map_input *in, cs_arena *a) {
  (void)d;
  cs_str name = in->call ? in->call->name : cs_str_c("tool");
  /* the index, in decimal (printf is too slow for the hot loop) */
  char digits[12];
  size_t nd = 0;
  uint32_t v = in->global_index + in->attempt;
  do
    digits[nd++] = (char)('0' + v % 10);
  while (v /= 10);
  size_t fixed = 10 + 1 + nd; /* "functions." ":" index */
  size_t room = SIZE_MAX, least = 1;
  if (rule->max_len && rule->max_len >= fixed + 1)
    room = rule->max_len - fixed;
  if (rule->min_len > fixed + 1)
    least = rule->min_len - fixed;
  char *clean = cs_arena_alloc(a, fixed + (name.len > least ? name.len : least) + 1);
  memcpy(clean, "functions.", 10);
  size_t n = 10 + cs_kimi_name(name, clean + 10, room);
  while (n - 10 < least)
    clean[n++] = '_';
  clean[n++] = ':';
  while (nd)
    clean[n++] = digits[--nd];
  clean[n] = 0;
  return (cs_str){clean, n};
}

const cs_target cs_target_kimi = {
    .name = "kimi",
    .id = CS_PROV_KIMI,
    .rule = {.pattern = "^functions\\.[A-Za-z0-9_.-]+:[0-9]+$", .min_len = 1, .max_len = 0, .global_index = true},
    .mapper = kimi_map,
    .native_passthrough = false,  /* the global index decides; a native ID with the right index maps to itself */
    .attempt_shifts_index = true, /* kimi_map reads the call's name and global_index + attempt only */
    .summary = "functions.{name}:{N}, N global over the request from 0, unique",
    /* The name class is DESIGN.md's; Kimi's raw-token parser reads [\w.]+ (PROVIDERS.md section 6),
     * so a tool name with '-' passes this rule but is one the model itself may not parse. */
    .evidence = "documented model-native format (the global index is inferred); the hosted API returns "
                "{name}:{idx} itself, and no rejection of other formats was found (it may normalise them); "
                "off-format IDs make the model stall without an error; the model's own parser reads names as "
                "[\\w.]+, without the '-' this rule allows",
    .probe = &cs_probe_kimi,
};

/* ---- live probe: PROVIDERS.md section 6 ---- */

static void kimi_build(const cs_probe_request *req, cs_buf *b) {
  cs_probe_build_chat(req, "max_tokens", 1, b);
}

static const cs_probe_pattern kimi_errors[] = {
    {"tool call id * is duplicated", CS_PROBE_REJECTED_RULE},
};

/* Kimi's own texts first; otherwise it speaks OpenAI's (lower-case "an assistant message ..."). */
static void kimi_classify(long status, cs_str body, cs_probe_outcome *out) {
  cs_probe_classify_with(kimi_errors, sizeof kimi_errors / sizeof *kimi_errors, status, body, out);
  if (out->verdict == CS_PROBE_REJECTED_OTHER)
    cs_probe_openai_chat.classify(status, body, out);
}

const cs_probe_spec cs_probe_kimi = {
    .key_env = {"MOONSHOT_API_KEY", "KIMI_API_KEY"},
    .auth = CS_PROBE_AUTH_BEARER,
    .base_url = "https://api.moonshot.ai",
    .model = "kimi-k2-turbo-preview",
    .endpoints = {{"chat_completions", "/v1/chat/completions"}},
    .nendpoints = 1,
    .pairing = CS_PROBE_PAIR_BY_ID,
    .id_prefix = "functions." CS_PROBE_TOOL,
    .id_index_suffix = true,
    .build = kimi_build,
    .classify = kimi_classify,
};
