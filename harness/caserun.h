/* harness/caserun.h: one generated case as run against one implementation: the case, the history
 * after implementation-aware twins were planted, the derived histories of the metamorphic
 * transforms, and every reply the properties read. Filled by harness/runner.c, read by the
 * property checks. All memory in the batch arena. */
#ifndef CS_HARNESS_CASERUN_H
#define CS_HARNESS_CASERUN_H

#include "generators/history_gen.h"
#include "impls/impl.h"

/* Which replies a property reads; the runner requests only what the enabled properties need. */
enum {
  CS_NEED_EMIT = 1u << 0,
  CS_NEED_EMIT_AGAIN = 1u << 1,
  CS_NEED_EMIT_RESTART = 1u << 2,
  CS_NEED_CANON = 1u << 3,
  CS_NEED_CANON_AGAIN = 1u << 4,
  CS_NEED_REINGEST = 1u << 5,
  CS_NEED_APPEND = 1u << 6,
  CS_NEED_COMPRESS = 1u << 7,
  CS_NEED_NORM = 1u << 8,
  CS_NEED_NORM_AGAIN = 1u << 9,
  CS_NEED_NORM_TWICE = 1u << 10,
  CS_NEED_KIMI = 1u << 11,
  CS_NEED_NORM_RESTART = 1u << 12,
  /* Either restart check: the implementation is restarted before its requests are sent again. */
  CS_NEED_RESTART = CS_NEED_EMIT_RESTART | CS_NEED_NORM_RESTART,
};

typedef struct {
  const cs_history *h;
  cs_history_index ix;
} cs_indexed;

typedef struct {
  cs_gen_case gen;
  uint64_t case_index;
  bool cut;        /* the time ran out mid-case (a reply is CS_REPLY_CUT, none is a fault): not judged */
  cs_indexed main; /* the history after planting twins */
  uint32_t planted_from[2], planted_to[2]; /* twins planted: call `to` got call `from`'s answer */
  uint32_t nplanted;
  cs_reply twin_unanswered; /* the first request for a twin that got no answer (a fault, or cut off) */

  cs_reply emit[CS_TARGET_COUNT], emit_again[CS_TARGET_COUNT], emit_restart[CS_TARGET_COUNT];
  bool have_restart; /* emit_restart and norm_restart were asked of a restarted implementation */
  cs_reply canon, canon_again, canon_reingest;
  cs_indexed reingested;

  cs_indexed appended;
  cs_reply emit_appended[CS_TARGET_COUNT];

  cs_indexed compressed;
  uint32_t call_off, result_off; /* first retained call/result of `compressed` in `main` */
  cs_reply emit_compressed[CS_TARGET_COUNT];

  cs_indexed kimi; /* the history as Kimi would have produced it */
  cs_reply emit_kimi;

  cs_str *norm_in; /* normalize batch: raw IDs of the history plus generated IDs */
  uint32_t nnorm;
  cs_reply norm[CS_TARGET_COUNT], norm_again[CS_TARGET_COUNT], norm_twice[CS_TARGET_COUNT];
  cs_reply norm_restart[CS_TARGET_COUNT]; /* the batch again, after a restart */
  /* What norm_twice was asked: norm's outputs in order, then each of them without its prefix
   * (cs_id_output_prefix_stripped) where that differs. */
  cs_str *norm_twice_in[CS_TARGET_COUNT];
} cs_caserun;

#endif
