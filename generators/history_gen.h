/* generators/history_gen.h: hostile histories and IDs, drawn from a choice sequence.
 * Every class of DESIGN.md ("ID pathologies") can be produced; each produced class is recorded as
 * a label. Shrinking contract: the all-zero choice sequence gives the simplest history (one user
 * turn, one assistant turn with one call with a plain short ID, one result answering it), and
 * smaller choice values give simpler histories. Memory: everything in the arena. */
#ifndef CS_GENERATORS_HISTORY_GEN_H
#define CS_GENERATORS_HISTORY_GEN_H

#include "core/arena.h"
#include "core/history.h"
#include "core/history_json.h"
#include "generators/choices.h"
#include "generators/labels.h"

typedef struct {
  uint32_t max_rounds; /* assistant rounds; 0: 6 */
  uint32_t max_calls;  /* calls per assistant turn; 0: 4 */
  uint32_t max_id_len; /* longest ID in bytes; 0: CS_GEN_DEFAULT_MAX_ID_LEN */
} cs_gen_config;

#define CS_GEN_DEFAULT_MAX_ID_LEN 65536u

/* The longest max_id_len the command line accepts (--max-id-len). A generated ID is built whole in
 * the case's arena, next to its copies in the requests and answers: 1 MiB keeps a case within tens
 * of megabytes, while a length near 4 GiB made every huge ID exhaust memory. */
#define CS_GEN_MAX_ID_LEN_LIMIT CS_DEFAULT_MAX_ID_BYTES

/* An implementation-aware twin, planted by the runner: ask the implementation for the wire ID of
 * call `from_call` (emit to `target`, or normalize when `via_normalize`), then make it the raw ID of
 * call `to_call` (and of the results that answered `to_call` by ID). */
typedef struct {
  uint32_t from_call, to_call;
  uint32_t target; /* a cs_target_id */
  bool via_normalize;
} cs_twin_plan;

typedef struct {
  cs_history h;
  cs_labelset labels;
  cs_twin_plan *twins; /* planned twins (0..2) */
  uint32_t ntwins;
  uint32_t rounds;     /* assistant rounds in h (for compression and append transforms) */
  cs_history_index ix; /* the index of h (built anyway for the labels; callers may reuse it) */
} cs_gen_case;

/* Draws one history. */
void cs_gen_history(cs_choices *c, const cs_gen_config *cfg, cs_arena *a, cs_gen_case *out);

/* Draws 1..max_rounds more rounds after the turns of `h` (the append transform): earlier turns are
 * kept as they are (their arrays and strings are shared, not copied), new calls continue the global
 * numbering (Kimi indices), twin classes may derive from earlier IDs, and new turn keys do not reuse
 * earlier ones. Plain IDs restart at call_0 in each new turn unless drawn otherwise, so the all-zero
 * sequence appends one call "call_0" (which an earlier turn may hold) and a tool turn answering it.
 * `out->labels` covers the whole result; no twins are planned. */
void cs_gen_continue(cs_choices *c, const cs_gen_config *cfg, const cs_history *h, cs_arena *a, cs_gen_case *out);

/* Draws one raw ID (for normalize batches). `pool`/`npool`: earlier IDs of the same case, which
 * twin classes derive from. Adds the labels it produced to *labels. Never null (normalize takes
 * strings), may be empty. */
cs_str cs_gen_id(cs_choices *c, const cs_gen_config *cfg, const cs_str *pool, uint32_t npool, cs_arena *a,
                 cs_labelset *labels);

#endif
