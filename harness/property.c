/* harness/property.c: the property table and every property's check. Checks read only the replies
 * named in their row's `needs`; the runner guarantees those replies are present and answered. */
#include "harness/property.h"

#include <stdio.h>
#include <string.h>

#include "core/strset.h"
#include "generators/id_gen.h"
#include "harness/vectors.h"
#include "providers/canonical.h"
#include "reports/escape.h"

#define FAIL(...) (snprintf(ctx->why, ctx->why_len, __VA_ARGS__), false)
/* The rule gave no verdict on an ID: `why` is cs_rule_check's whole message. */
#define UNDECIDED(rule_why) (snprintf(ctx->why, ctx->why_len, "%s", rule_why), ctx->undecided = true, false)

/* An ID for messages: quoted and unambiguous, on one line. A quote or backslash is escaped with a
 * backslash, and every control byte or byte outside UTF-8 written as \xNN; other characters stay, for each report to
 * escape as its format needs. At most SHOW_MAX bytes of the ID, cut between characters, then "...". */
#define SHOW_MAX 60
static const char *show(cs_check_ctx *ctx, cs_str s) {
  if (!s.ptr)
    return "null";
  size_t n = s.len < SHOW_MAX ? s.len : SHOW_MAX;
  for (int back = 0; n < s.len && back < 3 && n > 0 && ((unsigned char)s.ptr[n] & 0xC0) == 0x80; back++)
    n--; /* s[n] continues a character: cut before it starts (a run of stray bytes is cut anywhere) */
  char *out = cs_arena_alloc(ctx->scratch, 4 * n + 8);
  size_t o = 0;
  out[o++] = '"';
  for (size_t i = 0; i < n;) {
    unsigned char ch = (unsigned char)s.ptr[i];
    uint32_t cp;
    size_t k = ch < 0x80 ? 1 : cs_esc_decode(s.ptr + i, n - i, &cp);
    if (ch == '"' || ch == '\\') {
      out[o++] = '\\';
      out[o++] = (char)ch;
      i++;
    } else if (ch < 0x20 || ch == 0x7F || k == 0) {
      o += (size_t)snprintf(out + o, 5, "\\x%02X", ch);
      i++;
    } else {
      memcpy(out + o, s.ptr + i, k);
      o += k;
      i += k;
    }
  }
  if (n < s.len) {
    memcpy(out + o, "...", 3);
    o += 3;
  }
  out[o++] = '"';
  out[o] = 0;
  return out;
}

/* --- emit --------------------------------------------------------------------------------------- */

static bool emit_regex(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  const cs_answer *e = &run->emit[t].answer;
  uint32_t emitted = 0;
  char why[CS_RULE_WHY_MAX], first_undecided[CS_RULE_WHY_MAX] = "";
  for (uint32_t c = 0; c < e->ncalls; c++) {
    if (!e->calls[c].ptr)
      continue;
    cs_rule_verdict v = cs_rule_check(ctx->rules, (cs_target_id)t, e->calls[c], emitted, run->main.ix.calls[c]->server,
                                      why, sizeof why);
    if (v == CS_RULE_BROKEN)
      return FAIL("call %u: wire ID %s %s", c, show(ctx, e->calls[c]), why);
    if (v == CS_RULE_UNDECIDED && !first_undecided[0]) /* a later ID may still break the rule for sure */
      memcpy(first_undecided, why, sizeof why);
    emitted++;
  }
  return first_undecided[0] ? UNDECIDED(first_undecided) : true;
}

static bool pair_check(cs_check_ctx *ctx, const cs_history_index *ix, const cs_answer *e, const char *what) {
  for (uint32_t r = 0; r < ix->nresults; r++) {
    int32_t p = ix->pair[r];
    if (p < 0)
      continue;
    if (!e->results[r].ptr && !e->calls[p].ptr)
      continue; /* both dropped: no_loss judges that */
    if (!cs_str_eq(e->results[r], e->calls[p]))
      return FAIL("result %u answers call %u but gets %s %s, the call gets %s", r, (unsigned)p, what,
                  show(ctx, e->results[r]), show(ctx, e->calls[p]));
  }
  return true;
}

static bool emit_pair(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  return pair_check(ctx, &run->main.ix, &run->emit[t].answer, "wire ID");
}

static bool unique_check(cs_check_ctx *ctx, const cs_answer *e, const char *what) {
  cs_strset seen;
  cs_strset_init(&seen, e->ncalls, ctx->scratch);
  for (uint32_t c = 0; c < e->ncalls; c++) {
    if (e->calls[c].ptr && !cs_strset_add(&seen, e->calls[c])) {
      uint32_t first = 0;
      while (first < c && !cs_str_eq(e->calls[first], e->calls[c]))
        first++;
      return FAIL("calls %u and %u get the same %s %s", first, c, what, show(ctx, e->calls[c]));
    }
  }
  return true;
}

static bool emit_unique(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  return unique_check(ctx, &run->emit[t].answer, "wire ID");
}

static bool same_answer(cs_check_ctx *ctx, const cs_answer *a, const cs_answer *b, const char *when) {
  for (uint32_t c = 0; c < a->ncalls && c < b->ncalls; c++)
    if (!cs_str_eq(a->calls[c], b->calls[c]))
      return FAIL("call %u gets %s, then %s %s", c, show(ctx, a->calls[c]), show(ctx, b->calls[c]), when);
  for (uint32_t r = 0; r < a->nresults && r < b->nresults; r++)
    if (!cs_str_eq(a->results[r], b->results[r]))
      return FAIL("result %u gets %s, then %s %s", r, show(ctx, a->results[r]), show(ctx, b->results[r]), when);
  return true;
}

static bool emit_deterministic(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  if (!same_answer(ctx, &run->emit[t].answer, &run->emit_again[t].answer, "when the request is repeated"))
    return false;
  if (run->have_restart && run->emit_restart[t].status == CS_REPLY_OK &&
      !same_answer(ctx, &run->emit[t].answer, &run->emit_restart[t].answer, "after a restart"))
    return false;
  return true;
}

static bool emit_no_orphans(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  const cs_answer *e = &run->emit[t].answer;
  cs_strset calls;
  cs_strset_init(&calls, e->ncalls, ctx->scratch);
  for (uint32_t c = 0; c < e->ncalls; c++)
    cs_strset_add(&calls, e->calls[c]);
  for (uint32_t r = 0; r < e->nresults; r++) {
    if (!e->results[r].ptr)
      continue;
    if (run->main.ix.pair[r] < 0)
      return FAIL("result %u answers no call but is sent with ID %s", r, show(ctx, e->results[r]));
    if (!cs_strset_has(&calls, e->results[r]))
      return FAIL("result %u is sent with ID %s, which no emitted call has", r, show(ctx, e->results[r]));
  }
  return true;
}

static bool emit_no_loss(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  const cs_answer *e = &run->emit[t].answer;
  const cs_history_index *ix = &run->main.ix;
  for (uint32_t r = 0; r < ix->nresults; r++) {
    int32_t p = ix->pair[r];
    if (p < 0)
      continue;
    if (!e->calls[p].ptr)
      return FAIL("call %d is answered by result %u but is dropped", p, r);
    if (!e->results[r].ptr)
      return FAIL("result %u answers call %d but is dropped", r, p);
  }
  return true;
}

static bool emit_server_passthrough(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  const cs_answer *e = &run->emit[CS_PROV_ANTHROPIC].answer;
  const cs_history_index *ix = &run->main.ix;
  cs_strset seen;
  cs_strset_init(&seen, ix->ncalls, ctx->scratch);
  for (uint32_t c = 0; c < ix->ncalls; c++) {
    const cs_call *call = ix->calls[c];
    if (!call->server)
      continue;
    char why[CS_RULE_WHY_MAX];
    cs_rule_verdict v = cs_rule_server_ok(ctx->rules, CS_PROV_ANTHROPIC, call->id, why, sizeof why);
    if (v == CS_RULE_UNDECIDED)
      return UNDECIDED(why);
    if (v != CS_RULE_MET)
      continue;
    if (!cs_strset_add(&seen, call->id))
      continue; /* a repeated server ID cannot pass twice and stay unique */
    if (!cs_str_eq(e->calls[c], call->id))
      return FAIL("server call %u %s reaches anthropic as %s", c, show(ctx, call->id), show(ctx, e->calls[c]));
  }
  return true;
}

static bool emit_kimi_roundtrip(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  const cs_answer *e = &run->emit_kimi.answer;
  const cs_history_index *ix = &run->kimi.ix;
  char why[CS_RULE_WHY_MAX];
  for (uint32_t c = 0; c < ix->ncalls; c++) {
    if (cs_str_eq(e->calls[c], ix->calls[c]->id))
      continue;
    /* Under overridden length limits a Kimi-produced ID may break the rule itself: the rule wins. */
    cs_rule_verdict v = cs_rule_check(ctx->rules, CS_PROV_KIMI, ix->calls[c]->id, c, false, why, sizeof why);
    if (v == CS_RULE_UNDECIDED)
      return UNDECIDED(why);
    if (v == CS_RULE_MET)
      return FAIL("Kimi-produced call %u %s comes back as %s", c, show(ctx, ix->calls[c]->id), show(ctx, e->calls[c]));
  }
  return true;
}

static bool emit_prefix_stable(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  const cs_answer *a = &run->emit[t].answer, *b = &run->emit_appended[t].answer;
  for (uint32_t c = 0; c < a->ncalls && c < b->ncalls; c++)
    if (a->calls[c].ptr && !cs_str_eq(a->calls[c], b->calls[c])) /* null: dropped while unanswered */
      return FAIL("call %u gets %s, and %s once turns are appended", c, show(ctx, a->calls[c]), show(ctx, b->calls[c]));
  return true;
}

/* True when call `c`'s collision resolution involved a dropped call: its raw ID is the raw ID of a
 * dropped call, or it was planted as a twin of a call that is dropped or itself involved (twins
 * always come from an earlier call, so the chain is followed backwards). Decided from the case
 * alone, so the verdict does not depend on which other replies were asked for. */
static bool collided_with_dropped(const cs_caserun *run, uint32_t c) {
  cs_str raw = run->main.ix.calls[c]->id;
  if (c < run->call_off)
    return true;
  if (!raw.ptr)
    return false;
  for (uint32_t k = 0; k < run->call_off; k++)
    if (cs_str_eq(run->main.ix.calls[k]->id, raw))
      return true;
  for (uint32_t i = 0; i < run->nplanted; i++)
    if (run->planted_to[i] == c && run->planted_from[i] < c && collided_with_dropped(run, run->planted_from[i]))
      return true;
  return false;
}

static bool emit_compression_stable(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  if (t == CS_PROV_KIMI)
    return true; /* index-based target: excepted by design */
  const cs_answer *a = &run->emit[t].answer, *b = &run->emit_compressed[t].answer;
  /* Calls of the full answer whose wire ID was given up by the drop: the dropped ones, and retained
   * ones excused below. A retained call that now gets the ID one of them had, and whose raw ID is its
   * twin, was kept from that ID by it before (a counter that renumbers has no such twins). */
  bool *freed = CS_ARENA_NEW(ctx->scratch, bool, a->ncalls + 1);
  for (uint32_t k = 0; k < run->call_off && k < a->ncalls; k++)
    freed[k] = true;
  for (uint32_t c = 0; c < b->ncalls && c + run->call_off < a->ncalls; c++) {
    uint32_t full = c + run->call_off;
    if (cs_str_eq(a->calls[full], b->calls[c]))
      continue;
    /* A raw ID that also stood in a dropped round was resolved against it; its resolution may
     * legitimately change once that round is gone. */
    bool excused = collided_with_dropped(run, full);
    for (uint32_t k = 0; k < full && !excused; k++)
      excused = freed[k] && b->calls[c].ptr && cs_str_eq(a->calls[k], b->calls[c]) &&
                cs_id_twins(run->main.ix.calls[k]->id, run->main.ix.calls[full]->id);
    if (!excused)
      return FAIL("call %u gets %s, and %s once leading rounds are dropped", full, show(ctx, a->calls[full]),
                  show(ctx, b->calls[c]));
    freed[full] = true;
  }
  return true;
}

static bool emit_native_passthrough(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  if (t == CS_PROV_KIMI)
    return true; /* index-based: kimi_roundtrip covers it */
  const cs_answer *e = &run->emit[t].answer;
  const cs_history_index *ix = &run->main.ix;
  for (uint32_t c = 0; c < ix->ncalls; c++) {
    const cs_call *call = ix->calls[c];
    if (run->main.h->turns[ix->call_turn[c]].provider != (cs_provider)t || call->server || !call->id.ptr ||
        !e->calls[c].ptr) /* a dropped call is no_loss's to judge (PROTOCOL.md allows dropping) */
      continue;
    char why[CS_RULE_WHY_MAX];
    cs_rule_verdict v = cs_rule_check(ctx->rules, (cs_target_id)t, call->id, c, false, why, sizeof why);
    if (v == CS_RULE_UNDECIDED)
      return UNDECIDED(why);
    if (v != CS_RULE_MET)
      continue;
    bool taken = false; /* an earlier call with the same raw ID or wire ID excuses a change */
    for (uint32_t k = 0; k < c && !taken; k++)
      taken = cs_str_eq(ix->calls[k]->id, call->id) || cs_str_eq(e->calls[k], call->id);
    if (!taken && !cs_str_eq(e->calls[c], call->id))
      return FAIL("call %u has native %s ID %s but is sent as %s", c, cs_provider_name((cs_provider)t),
                  show(ctx, call->id), show(ctx, e->calls[c]));
  }
  return true;
}

/* --- canonicalize ------------------------------------------------------------------------------- */

static bool canon_deterministic(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  return same_answer(ctx, &run->canon.answer, &run->canon_again.answer, "when the request is repeated");
}

static bool canon_unique(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  return unique_check(ctx, &run->canon.answer, "stored ID");
}

static bool canon_pair(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  const cs_answer *e = &run->canon.answer;
  if (!pair_check(ctx, &run->main.ix, e, "stored ID"))
    return false;
  for (uint32_t r = 0; r < e->nresults; r++)
    if (run->main.ix.pair[r] < 0 && e->results[r].ptr)
      return FAIL("result %u answers no call but is stored with ID %s", r, show(ctx, e->results[r]));
  return true;
}

static bool canon_idempotent(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  const cs_answer *a = &run->canon.answer, *b = &run->canon_reingest.answer;
  for (uint32_t c = 0; c < a->ncalls && c < b->ncalls; c++)
    if (!cs_str_eq(a->calls[c], b->calls[c]))
      return FAIL("stored call ID %s becomes %s when canonicalized again", show(ctx, a->calls[c]),
                  show(ctx, b->calls[c]));
  uint32_t k = 0; /* reingest dropped the results stored as null */
  for (uint32_t r = 0; r < a->nresults; r++) {
    if (!a->results[r].ptr)
      continue;
    if (k < b->nresults && !cs_str_eq(a->results[r], b->results[k]))
      return FAIL("stored result ID %s becomes %s when canonicalized again", show(ctx, a->results[r]),
                  show(ctx, b->results[k]));
    k++;
  }
  return true;
}

static bool charset_ok(cs_str s) {
  if (!s.ptr || s.len < 1 || s.len > 64)
    return false;
  for (size_t i = 0; i < s.len; i++) {
    char c = s.ptr[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
      return false;
  }
  return true;
}

static bool canon_charset(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  const cs_answer *e = &run->canon.answer;
  for (uint32_t c = 0; c < e->ncalls; c++)
    if (!charset_ok(e->calls[c]))
      return FAIL("call %u is stored as %s, not ^[A-Za-z0-9_-]{1,64}$", c, show(ctx, e->calls[c]));
  for (uint32_t r = 0; r < e->nresults; r++)
    if (e->results[r].ptr && !charset_ok(e->results[r]))
      return FAIL("result %u is stored as %s, not ^[A-Za-z0-9_-]{1,64}$", r, show(ctx, e->results[r]));
  return true;
}

/* --- normalize ---------------------------------------------------------------------------------- */

static bool normalize_regex(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  const cs_reply *n = &run->norm[t];
  char why[CS_RULE_WHY_MAX], first_undecided[CS_RULE_WHY_MAX] = "";
  for (uint32_t i = 0; i < n->nids; i++) {
    cs_rule_verdict v =
        cs_rule_check(ctx->rules, (cs_target_id)t, n->ids[i], CS_RULE_ANY_INDEX, false, why, sizeof why);
    if (v == CS_RULE_BROKEN)
      return FAIL("normalize(%s) = %s %s", show(ctx, run->norm_in[i]), show(ctx, n->ids[i]), why);
    if (v == CS_RULE_UNDECIDED && !first_undecided[0]) /* a later ID may still break the rule for sure */
      memcpy(first_undecided, why, sizeof why);
  }
  return first_undecided[0] ? UNDECIDED(first_undecided) : true;
}

static bool normalize_deterministic(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  const cs_reply *a = &run->norm[t];
  const struct {
    const cs_reply *b;
    const char *when;
  } again[] = {{&run->norm_again[t], ""}, {run->have_restart ? &run->norm_restart[t] : NULL, " after a restart"}};
  for (size_t k = 0; k < sizeof again / sizeof *again; k++) {
    const cs_reply *b = again[k].b;
    if (!b || b->status != CS_REPLY_OK)
      continue;
    for (uint32_t i = 0; i < a->nids && i < b->nids; i++)
      if (!cs_str_eq(a->ids[i], b->ids[i]))
        return FAIL("normalize(%s) = %s, then %s%s", show(ctx, run->norm_in[i]), show(ctx, a->ids[i]),
                    show(ctx, b->ids[i]), again[k].when);
  }
  return true;
}

/* One output's group among normalize's inputs: the first input that is there (f) and the first
 * later input that differs from it (j); NO_INPUT until found. */
#define NO_INPUT UINT32_MAX
typedef struct {
  uint32_t any; /* 1 + an index with this output; 0: an empty slot */
  uint32_t f, j;
} output_group;

static bool normalize_injective(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  /* Inputs: the batch, and the batch's outputs fed back in (the implementation-aware twins). */
  const cs_reply *a = &run->norm[t], *b = &run->norm_twice[t];
  uint32_t n = a->nids + b->nids;
  cs_str *in = CS_ARENA_NEW(ctx->scratch, cs_str, n + 1), *out = CS_ARENA_NEW(ctx->scratch, cs_str, n + 1);
  for (uint32_t i = 0; i < a->nids; i++)
    in[i] = run->norm_in[i], out[i] = a->ids[i];
  for (uint32_t i = 0; i < b->nids; i++)
    in[a->nids + i] = run->norm_twice_in[t][i], out[a->nids + i] = b->ids[i];
  /* Grouped by output in one pass, not compared pair by pair (a case of 20,000 calls took 25 s). The
   * pair named is the one a pairwise scan finds first: the smallest i with a later j of the same
   * output and another input, and the first such j. */
  uint32_t cap = 16;
  while (cap < 2 * n)
    cap *= 2;
  output_group *g = CS_ARENA_NEW(ctx->scratch, output_group, cap);
  for (uint32_t i = 0; i < n; i++) {
    if (!out[i].ptr)
      continue;
    uint32_t k = (uint32_t)cs_str_hash(out[i]) & (cap - 1);
    while (g[k].any && !cs_str_eq(out[g[k].any - 1], out[i]))
      k = (k + 1) & (cap - 1);
    if (!g[k].any)
      g[k] = (output_group){i + 1, NO_INPUT, NO_INPUT};
    if (g[k].f == NO_INPUT) {
      if (in[i].ptr)
        g[k].f = i;
    } else if (g[k].j == NO_INPUT && !cs_str_eq(in[i], in[g[k].f])) {
      g[k].j = i;
    }
  }
  uint32_t bi = NO_INPUT, bj = 0;
  for (uint32_t k = 0; k < cap; k++)
    if (g[k].any && g[k].j != NO_INPUT && g[k].f < bi)
      bi = g[k].f, bj = g[k].j;
  if (bi == NO_INPUT)
    return true;
  /* Inputs that differ only past what show() prints would read as one: say where they part. */
  size_t d = 0;
  while (d < in[bi].len && d < in[bj].len && in[bi].ptr[d] == in[bj].ptr[d])
    d++;
  char where[64] = "";
  if (d >= SHOW_MAX)
    snprintf(where, sizeof where, " (the inputs first differ at byte %zu)", d);
  return FAIL("normalize(%s) = normalize(%s) = %s%s", show(ctx, in[bi]), show(ctx, in[bj]), show(ctx, out[bi]), where);
}

static bool normalize_idempotent(cs_check_ctx *ctx, const cs_caserun *run, int t) {
  const cs_reply *a = &run->norm[t], *b = &run->norm_twice[t];
  for (uint32_t i = 0; i < a->nids && i < b->nids; i++)
    if (!cs_str_eq(a->ids[i], b->ids[i]))
      return FAIL("normalize(%s) = %s, but normalize(%s) = %s", show(ctx, run->norm_in[i]), show(ctx, a->ids[i]),
                  show(ctx, a->ids[i]), show(ctx, b->ids[i]));
  return true;
}

/* --- the table ---------------------------------------------------------------------------------- */

#define REQ CS_TIER_REQUIRED
#define REC CS_TIER_RECOMMENDED
static const cs_property table[] = {
    {CS_PROPERTY_ANSWER, REQ, CS_OP_ALL, false, -1, 0,
     "every request gets a well-formed answer in time: no crash, hang, protocol error or rejection", NULL},
    {"emit.regex", REQ, CS_OP_EMIT, true, -1, CS_NEED_EMIT, "every non-null emitted ID satisfies the target's rule",
     emit_regex},
    {"emit.pair", REQ, CS_OP_EMIT, true, -1, CS_NEED_EMIT,
     "each result gets the same wire ID as the call it answers (PROTOCOL.md pairing rule)", emit_pair},
    {"emit.unique", REQ, CS_OP_EMIT, true, -1, CS_NEED_EMIT, "distinct calls in one request get distinct wire IDs",
     emit_unique},
    {"emit.deterministic", REQ, CS_OP_EMIT, true, -1, CS_NEED_EMIT | CS_NEED_EMIT_AGAIN | CS_NEED_EMIT_RESTART,
     "the same request, repeated and after restarting the implementation, gets the same answer", emit_deterministic},
    {"emit.no_orphans", REQ, CS_OP_EMIT, true, -1, CS_NEED_EMIT,
     "every non-null result ID is the ID of an emitted call, and a result that answers no call is dropped",
     emit_no_orphans},
    {"emit.no_loss", REQ, CS_OP_EMIT, true, -1, CS_NEED_EMIT, "no paired call or result is dropped", emit_no_loss},
    {"emit.server_passthrough", REQ, CS_OP_EMIT, true, CS_PROV_ANTHROPIC, CS_NEED_EMIT,
     "srvtoolu_ server-call IDs reach anthropic unchanged", emit_server_passthrough},
    {"emit.kimi_roundtrip", REQ, CS_OP_EMIT, true, CS_PROV_KIMI, CS_NEED_KIMI,
     "a history produced by Kimi (functions.name:N, N global from 0, every call answered) comes back from kimi "
     "unchanged, each ID the rule admits",
     emit_kimi_roundtrip},
    {"canon.deterministic", REQ, CS_OP_CANONICALIZE, false, -1, CS_NEED_CANON | CS_NEED_CANON_AGAIN,
     "the same history, canonicalized twice, gets the same stored IDs", canon_deterministic},
    {"canon.unique", REQ, CS_OP_CANONICALIZE, false, -1, CS_NEED_CANON, "distinct calls get distinct stored IDs",
     canon_unique},
    {"canon.pair", REQ, CS_OP_CANONICALIZE, false, -1, CS_NEED_CANON,
     "each result gets its call's stored ID; a result that answers no call is stored as null", canon_pair},
    {"canon.idempotent", REQ, CS_OP_CANONICALIZE, false, -1, CS_NEED_CANON | CS_NEED_REINGEST,
     "canonicalizing an already canonical history changes nothing", canon_idempotent},
    {"canon.charset", REQ, CS_OP_CANONICALIZE, false, -1, CS_NEED_CANON, "stored IDs match ^[A-Za-z0-9_-]{1,64}$",
     canon_charset},
    {"normalize.regex", REQ, CS_OP_NORMALIZE, true, -1, CS_NEED_NORM, "every normalized ID satisfies the target's rule",
     normalize_regex},
    {"normalize.deterministic", REQ, CS_OP_NORMALIZE, true, -1,
     CS_NEED_NORM | CS_NEED_NORM_AGAIN | CS_NEED_NORM_RESTART,
     "the same ID always normalizes to the same output, repeated and after restarting the implementation",
     normalize_deterministic},
    {"normalize.injective", REQ, CS_OP_NORMALIZE, true, -1, CS_NEED_NORM | CS_NEED_NORM_TWICE,
     "distinct inputs (including earlier outputs fed back in, with and without their prefix) give distinct outputs",
     normalize_injective},
    {"vectors.canonical_v1", REQ, CS_OP_CANONICALIZE, false, -1, 0, CS_VECTORS_CONTRACT(CS_VECTORS_DEFAULT), NULL},
    {"normalize.idempotent", REC, CS_OP_NORMALIZE, true, -1, CS_NEED_NORM | CS_NEED_NORM_TWICE,
     "N(N(x)) = N(x); a total, valid normalizer cannot be both idempotent and injective", normalize_idempotent},
    {"emit.prefix_stable", REC, CS_OP_EMIT, true, -1, CS_NEED_EMIT | CS_NEED_APPEND,
     "appending turns never changes earlier wire IDs (prompt caches depend on it)", emit_prefix_stable},
    {"emit.compression_stable", REC, CS_OP_EMIT, true, -1, CS_NEED_EMIT | CS_NEED_COMPRESS,
     "dropping leading rounds keeps the retained calls' wire IDs (kimi, and IDs that collided with a dropped one, "
     "excepted)",
     emit_compression_stable},
    {"emit.native_passthrough", REC, CS_OP_EMIT, true, -1, CS_NEED_EMIT,
     "an ID the target itself produced, valid and not taken, passes unchanged (kimi excepted)",
     emit_native_passthrough},
};

_Static_assert(sizeof table / sizeof table[0] <= CS_PROPERTY_MAX, "a selection of properties is a 64-bit set");

const cs_property *cs_properties(size_t *count) {
  *count = sizeof table / sizeof table[0];
  return table;
}

bool cs_property_is_answer(const cs_property *p) {
  return strcmp(p->name, CS_PROPERTY_ANSWER) == 0;
}

const cs_property *cs_property_find(const char *name) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(table[i].name, name) == 0)
      return &table[i];
  return NULL;
}
