/* harness/property.h: the property table, the single source of truth for what callsign checks.
 * Each row: a stable name, its tier, the op it needs, whether it is checked per target (and for
 * which target only), the replies it reads, a one-line contract, and the check. `callsign list`,
 * the reports and the README's property table are derived from it. */
#ifndef CS_HARNESS_PROPERTY_H
#define CS_HARNESS_PROPERTY_H

#include <stdbool.h>
#include <stddef.h>

#include "harness/caserun.h"

typedef enum { CS_TIER_REQUIRED, CS_TIER_RECOMMENDED } cs_tier;

typedef struct {
  cs_ruleset *rules;
  cs_arena *scratch; /* for temporaries of a check */
  char *why;         /* the check writes one line here when it fails */
  size_t why_len;
  /* Set (with `why` saying why, and false returned) when a rule could not decide on an ID it
   * needed (cs_rule_check's UNDECIDED): the case is not judged, and the rule is the input at fault. */
  bool undecided;
} cs_check_ctx;

/* Returns true when the property holds on this case (for target t, or -1 for target-less ones).
 * It is only called when every reply it needs is present and answered (status OK). */
typedef bool (*cs_check_fn)(cs_check_ctx *ctx, const cs_caserun *run, int target);

typedef struct {
  const char *name; /* stable: reports, --expect lists and replay tokens refer to it */
  cs_tier tier;
  cs_op op;             /* the op it needs */
  bool per_target;      /* checked once per target the implementation supports for `op` */
  int only_target;      /* -1, or the one target it concerns */
  unsigned needs;       /* CS_NEED_* */
  const char *contract; /* one line */
  cs_check_fn check;    /* NULL: checked outside the case loop (vectors) */
} cs_property;

/* The most rows the table may have: a selection of properties is a bit set (harness/campaign.h). */
#define CS_PROPERTY_MAX 64

const cs_property *cs_properties(size_t *count);
const cs_property *cs_property_find(const char *name);
/* Name of the pseudo-property that records faults (crash, timeout, protocol, rejected). */
#define CS_PROPERTY_ANSWER "protocol.answer"
/* Whether p is that pseudo-property: judged on every request other properties send, not on its own. */
bool cs_property_is_answer(const cs_property *p);

#endif
