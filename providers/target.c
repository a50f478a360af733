/* providers/target.c: the target table (one row per provider file) and name lookup. */
#include "providers/target.h"

#include <string.h>

static const cs_target *const table[CS_TARGET_COUNT] = {
    [CS_PROV_ANTHROPIC] = &cs_target_anthropic,
    [CS_PROV_OPENAI_CHAT] = &cs_target_openai_chat,
    [CS_PROV_OPENAI_RESPONSES] = &cs_target_openai_responses,
    [CS_PROV_MISTRAL] = &cs_target_mistral,
    [CS_PROV_KIMI] = &cs_target_kimi,
    [CS_PROV_GEMINI] = &cs_target_gemini,
    [CS_PROV_BEDROCK] = &cs_target_bedrock,
};

const cs_target *cs_target_get(cs_target_id t) {
  return (unsigned)t < CS_TARGET_COUNT ? table[t] : NULL;
}

int cs_target_parse(const char *name) {
  for (int i = 0; i < CS_TARGET_COUNT; i++)
    if (name && strcmp(name, table[i]->name) == 0)
      return i;
  return -1;
}
