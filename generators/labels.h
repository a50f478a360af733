/* generators/labels.h: the statistics labels, one per pathology class and structure of DESIGN.md.
 * The generators set them; `--stats` counts them; `--min-coverage` fails a run when one falls below
 * a share, so a generator cannot silently lose its teeth. One table (X-macro): id, name, meaning. */
#ifndef CS_GENERATORS_LABELS_H
#define CS_GENERATORS_LABELS_H

#include <stdint.h>

#define CS_LABEL_TABLE(X)                                                                                              \
  X(ID_MISSING, "id.missing", "null ID")                                                                               \
  X(ID_EMPTY, "id.empty", "empty-string ID")                                                                           \
  X(ID_DUP_TURN, "id.dup_in_turn", "same ID twice in one assistant turn")                                              \
  X(ID_DUP_ACROSS, "id.dup_across_turns", "same ID in two turns (call_0 every turn)")                                  \
  X(ID_LONG, "id.long", "ID of 65 to 1000 characters")                                                                 \
  X(ID_HUGE, "id.huge", "ID of 1001 characters up to 64 KiB")                                                          \
  X(ID_ILLEGAL, "id.illegal", "illegal characters (| : . / + = space)")                                                \
  X(ID_CONTROL, "id.control", "control characters")                                                                    \
  X(ID_NON_ASCII, "id.non_ascii", "non-ASCII letters or emoji")                                                        \
  X(NATIVE_OPENAI, "native.openai", "call_... (OpenAI)")                                                               \
  X(NATIVE_ANTHROPIC, "native.anthropic", "toolu_... / toolu_vrtx_... (Anthropic)")                                    \
  X(NATIVE_SERVER, "native.server", "srvtoolu_... (Anthropic server call)")                                            \
  X(NATIVE_RESPONSES, "native.responses", "call_...|fc_... composite stored by libraries (OpenAI Responses)")          \
  X(NATIVE_KIMI, "native.kimi", "functions.name:N and name:N (Kimi)")                                                  \
  X(NATIVE_MISTRAL, "native.mistral", "9 letters or digits (Mistral)")                                                 \
  X(NATIVE_ADK, "native.adk", "adk-<uuid> (Google ADK)")                                                               \
  X(NATIVE_BEDROCK, "native.bedrock", "tooluse_... (Bedrock)")                                                         \
  X(LOOKALIKE, "id.canonical_lookalike", "hist_tool_... canonical look-alike")                                         \
  X(TWIN_SANITIZE, "twin.sanitize", "IDs equal after replacing illegal characters")                                    \
  X(TWIN_PREFIX, "twin.prefix", "IDs equal after stripping a provider prefix")                                         \
  X(TWIN_CASE, "twin.case", "IDs equal after case folding")                                                            \
  X(TWIN_TRUNCATE, "twin.truncate", "IDs equal after truncation at 9/40/53/64")                                        \
  X(TWIN_IMPL, "twin.impl", "implementation-aware twin: another call's output planted as raw ID")                      \
  X(TWIN_JOIN, "twin.join",                                                                                            \
    "raw ID R|x with tool N, raw ID R with tool x|N, under one turn key: one string joined with '|' when both are "    \
    "their turn's first call (a server call before R|x keeps them apart)")                                             \
  X(S_PARALLEL_SAME_NAME, "struct.parallel_same_name", "parallel calls of the same tool")                              \
  X(S_REORDERED, "struct.reordered_results", "results in another order than their calls")                              \
  X(S_ORPHAN, "struct.orphan_result", "a result that answers no call")                                                 \
  X(S_UNANSWERED, "struct.unanswered_call", "a call without a result")                                                 \
  X(S_SERVER, "struct.server_call", "a provider-executed server call")                                                 \
  X(S_PROVIDER_SWITCH, "struct.provider_switch", "the provider changes mid-history")                                   \
  X(S_COMPRESSION_CUT, "struct.compression_cut", "history starts after a compression cut")                             \
  X(S_POSITIONAL, "struct.positional_result", "a result with a null or empty call_id")                                 \
  X(S_LATE_POSITIONAL, "struct.late_positional_result",                                                                \
    "a result with a null or empty call_id, named after a call of an earlier assistant turn")                          \
  X(S_DEFERRED, "struct.deferred_result", "a result answering by ID a call made before the latest assistant turn")     \
  X(S_MULTI_TURN, "struct.multi_turn", "more than one assistant turn")

typedef enum {
#define CS_LABEL_ENUM(id, name, desc) CS_LABEL_##id,
  CS_LABEL_TABLE(CS_LABEL_ENUM)
#undef CS_LABEL_ENUM
      CS_LABEL_COUNT
} cs_label;

const char *cs_label_name(cs_label l);
const char *cs_label_desc(cs_label l);
/* The label named `name` ("id.missing"), or -1 when none is. */
int cs_label_find(const char *name);

/* A set of labels (CS_LABEL_COUNT < 64). */
typedef uint64_t cs_labelset;
#define CS_LABEL_BIT(l) ((cs_labelset)1 << (l))

#endif
