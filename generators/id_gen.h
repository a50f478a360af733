/* generators/id_gen.h: raw tool-call IDs of every pathology class of DESIGN.md, drawn from a choice
 * sequence. Shared by the history generator (call IDs, orphan result IDs) and cs_gen_id (normalize
 * batches). Value 0 of every draw is the simplest choice: class 0 is the plain "call_<n>", and a
 * zero random seed gives the first character of the alphabet throughout. Strings go to the arena. */
#ifndef CS_GENERATORS_ID_GEN_H
#define CS_GENERATORS_ID_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/history.h"
#include "generators/choices.h"
#include "generators/labels.h"

/* Where the ID being drawn lives; the ID classes that depend on context read it. */
typedef struct {
  cs_choices *c;
  cs_arena *a;
  cs_labelset *labels; /* labels of the produced classes are added here */
  uint32_t max_id_len; /* resolved: never 0 */
  const cs_str *pool;  /* earlier IDs of the case (blank entries are skipped) */
  uint32_t npool;
  uint32_t turn_first;     /* pool[turn_first..npool) belong to the current turn */
  cs_provider provider;    /* who produced the current turn (native classes follow it) */
  cs_str name;             /* the call's tool name (Kimi IDs embed it) */
  uint32_t global_index;   /* the call's index among all calls (plain and Kimi IDs) */
  uint32_t turn_pos;       /* the call's position in its turn */
  bool per_turn_numbering; /* plain IDs restart at call_0 in every turn */
  bool never_null;         /* normalize batches: the null class gives "" instead */
  bool cut;                /* set by the generator: the bound cut the ID being made short */
} cs_id_ctx;

/* One raw ID of any class (may be null unless never_null). The label of its class is added only
 * when the ID is still of that class: one that max_id_len cut short (a "native Mistral" ID of 1
 * byte, a look-alike of 5) gets its content labels alone, so that --stats and --min-coverage count
 * what was generated, not what was attempted. The same holds for cs_id_native and cs_id_server. */
cs_str cs_id_draw(cs_id_ctx *x);
/* The length of a server-call ID: "srvtoolu_01" and 22 base62 characters. */
#define CS_SERVER_ID_LEN 33
/* A native ID of the format `provider` produces (unknown: any native format); may be null for
 * Gemini unless never_null. */
cs_str cs_id_native(cs_id_ctx *x, cs_provider provider);
/* An Anthropic server-call ID (srvtoolu_01 + 22 letters or digits). `whole`: a server call's, which
 * max_id_len does not cut (cut short, it is no longer the provider's own and breaks the server rule
 * implementations are held to, so the harness's input would be at fault); otherwise a raw ID like
 * any other, cut to the bound. */
cs_str cs_id_server(cs_id_ctx *x, bool whole);
/* Adds the content labels of `id`: missing, empty, long, huge, illegal, control, non-ASCII. */
void cs_id_content_labels(cs_str id, cs_labelset *labels);

/* Could a normalizer give raw IDs x and y one candidate? True when they are twins by the classes
 * above (equal after sanitizing, native-prefix stripping and case folding, or alike in their first
 * 9 bytes or more, as a cut makes them), and for some other pairs: it over-approximates. Null is no
 * one's twin. */
bool cs_id_twins(cs_str x, cs_str y);

/* s without the prefix a normalizer puts before what it keeps or hashes ("toolu_", "call_",
 * "hist_tool_", ...), when something is left; else s itself. An implementation-aware twin: a
 * normalizer that prefixes what it passes through maps "toolu_X" and "X" to one ID. */
cs_str cs_id_output_prefix_stripped(cs_str s);

#endif
