/* generators/transforms.h: metamorphic transforms of a history. Each returns a new history in the
 * arena and leaves the input untouched. Properties compare an implementation's answers on the
 * original and on the transformed history. */
#ifndef CS_GENERATORS_TRANSFORMS_H
#define CS_GENERATORS_TRANSFORMS_H

#include "core/history.h"
#include "generators/choices.h"
#include "generators/history_gen.h"

/* Appends more rounds drawn from `c` (at least one assistant turn). Earlier turns are unchanged, so
 * their calls keep their global indices. */
cs_history cs_transform_append(const cs_history *h, cs_choices *c, const cs_gen_config *cfg, cs_arena *a);

/* Drops the first `rounds` assistant rounds (an assistant turn and every turn up to the next
 * assistant turn), keeping any turns before the first assistant turn. *call_off and *result_off
 * are the global indices, in `h`, of the first retained call and result. */
cs_history cs_transform_drop_leading(const cs_history *h, uint32_t rounds, cs_arena *a, uint32_t *call_off,
                                     uint32_t *result_off);

/* Re-ingests a canonical answer: call IDs become canon->calls; results whose canonical ID is null
 * (orphans) are removed, the others take canon->results. */
cs_history cs_transform_reingest(const cs_history *h, const cs_answer *canon, cs_arena *a);

/* Relabels the provider of each assistant turn with a value drawn from `c`. */
cs_history cs_transform_relabel(const cs_history *h, cs_choices *c, cs_arena *a);

/* Plants `raw` as the raw ID of global call `call`; results paired with that call by ID (non-blank
 * call_id) take it too, so they keep answering the same call. */
cs_history cs_transform_plant(const cs_history *h, uint32_t call, cs_str raw, cs_arena *a);

/* The history as Kimi itself would have produced it (emit.kimi_roundtrip): every assistant turn
 * Kimi's, answered calls only, each named functions.{name}:{global index} with its result taking
 * that ID and name; orphan results dropped. `ix` is the index of `h`. */
cs_history cs_transform_kimi_native(const cs_history *h, const cs_history_index *ix, cs_arena *a);

#endif
