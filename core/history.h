/* core/history.h: the chat-history model of PROTOCOL.md and the normative pairing rule.
 * A history is a list of turns; assistant turns carry tool calls, tool turns carry results.
 * All memory of a history belongs to one arena. Calls and results are also numbered globally in
 * document order (all calls of all assistant turns, turn by turn), which is how the protocol's
 * `calls` and `results` answer arrays are indexed. */
#ifndef CS_CORE_HISTORY_H
#define CS_CORE_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/str.h"

/* Who produced the raw IDs of an assistant turn. The first CS_PROVIDER_TARGETS values are the
 * target names of PROTOCOL.md, in its order; the target table in providers/ is indexed by them. */
typedef enum {
  CS_PROV_ANTHROPIC,
  CS_PROV_OPENAI_CHAT,
  CS_PROV_OPENAI_RESPONSES,
  CS_PROV_MISTRAL,
  CS_PROV_KIMI,
  CS_PROV_GEMINI,
  CS_PROV_BEDROCK,
  CS_PROV_ADK,
  CS_PROV_AISDK,
  CS_PROV_UNKNOWN,
  CS_PROVIDER_COUNT
} cs_provider;
#define CS_PROVIDER_TARGETS 7

const char *cs_provider_name(cs_provider p);
/* Returns -1 when the name is not a provider of PROTOCOL.md. */
int cs_provider_parse(cs_str name);

typedef enum { CS_ROLE_SYSTEM, CS_ROLE_USER, CS_ROLE_ASSISTANT, CS_ROLE_TOOL } cs_role;
const char *cs_role_name(cs_role r);

typedef struct {
  cs_str id;   /* raw ID as stored; may be null, empty, duplicated, huge, any Unicode but U+0000 */
  cs_str name; /* tool name (non-null) */
  cs_str args; /* payload: compact JSON text of `args`, or null when absent */
  bool server; /* provider-executed call (Anthropic srvtoolu_…): no result answers it */
} cs_call;

typedef struct {
  cs_str call_id;    /* may be null or empty: then paired by name (PROTOCOL.md rule 2) */
  cs_str name;       /* tool name (non-null) */
  cs_str content;    /* payload, or null: a string's text, or the compact JSON text of any other value */
  bool content_json; /* content holds JSON text (the value was not a string): written as it is */
} cs_result;

typedef struct {
  cs_role role;
  cs_provider provider; /* assistant turns only; CS_PROV_UNKNOWN elsewhere */
  cs_str turn_key;      /* stable per-turn key; may be null */
  cs_str text;          /* payload, or null: as `content` of a result */
  cs_call *calls;       /* assistant turns */
  uint32_t ncalls;
  cs_result *results; /* tool turns */
  uint32_t nresults;
  bool text_json; /* text holds JSON text (the value was not a string): written as it is */
} cs_turn;

typedef struct {
  cs_turn *turns;
  uint32_t nturns;
} cs_history;

/* Totals over all turns. */
uint32_t cs_history_ncalls(const cs_history *h);
uint32_t cs_history_nresults(const cs_history *h);

/* Document-order views, built once per case. */
typedef struct {
  uint32_t ncalls, nresults;
  const cs_call **calls;     /* [ncalls] */
  uint32_t *call_turn;       /* [ncalls] turn index of each call */
  uint32_t *call_pos;        /* [ncalls] position of the call inside its turn */
  const cs_result **results; /* [nresults] */
  uint32_t *result_turn;     /* [nresults] */
  int32_t *pair;             /* [nresults] global call index the result answers, or -1 (orphan) */
  uint32_t *answers;         /* [ncalls] how many results answer this call (0 or 1) */
} cs_history_index;

/* Fills `ix` in the arena: the flattened calls and results and the pairing by PROTOCOL.md:
 * scan turns in order keeping unanswered non-server calls; a result with a non-empty call_id
 * answers the earliest unanswered call with a byte-identical id; a result with a null or empty
 * call_id answers the earliest unanswered call of the most recent assistant turn with the same
 * name; otherwise it is an orphan. */
void cs_history_index_build(const cs_history *h, cs_arena *a, cs_history_index *ix);

/* The answer shape of PROTOCOL.md's emit and canonicalize: one ID (or null: dropped) per call and
 * per result, in document order. */
typedef struct {
  cs_str *calls;
  uint32_t ncalls;
  cs_str *results;
  uint32_t nresults;
} cs_answer;

/* An answer with every entry null, sized for `ix`. */
cs_answer cs_answer_new(uint32_t ncalls, uint32_t nresults, cs_arena *a);
bool cs_answer_eq(const cs_answer *x, const cs_answer *y);
/* Gives each result the answer of the call it answers by ix->pair, and null to an orphan: the
 * results of any implementation that pairs as PROTOCOL.md says. */
void cs_answer_pair_results(cs_answer *ans, const cs_history_index *ix);

/* Deep copy into `a` (all strings copied). */
cs_history cs_history_clone(const cs_history *h, cs_arena *a);

#endif
