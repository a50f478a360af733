/* generators/transforms.c: the metamorphic transforms (append, drop leading rounds, re-ingest a
 * canonical answer, relabel providers, plant a raw ID, the history as Kimi produced it). Each builds a new turns array
 * in the arena; turns it does not change share their call/result arrays and strings with the input, which is never
 * written to (so the input must outlive the result). */
#include "generators/transforms.h"

#include <string.h>

#include "providers/target.h"

static cs_history copy_turns(const cs_history *h, cs_arena *a) {
  cs_history out = {CS_ARENA_NEW(a, cs_turn, h->nturns + 1), h->nturns};
  if (h->nturns)
    memcpy(out.turns, h->turns, h->nturns * sizeof *h->turns);
  return out;
}

cs_history cs_transform_append(const cs_history *h, cs_choices *c, const cs_gen_config *cfg, cs_arena *a) {
  cs_gen_case g;
  cs_gen_continue(c, cfg, h, a, &g);
  return g.h;
}

/* *result_off counts the results of every turn before the retained rounds, so that for results of
 * the retained rounds, index in h = index in the result - (results of the kept leading turns) +
 * *result_off. When the leading turns hold no results (the usual case) that is a plain offset. */
cs_history cs_transform_drop_leading(const cs_history *h, uint32_t rounds, cs_arena *a, uint32_t *call_off,
                                     uint32_t *result_off) {
  uint32_t first = 0;
  while (first < h->nturns && h->turns[first].role != CS_ROLE_ASSISTANT)
    first++;
  uint32_t end = h->nturns, seen = 0;
  for (uint32_t t = first; t < h->nturns; t++) {
    if (h->turns[t].role != CS_ROLE_ASSISTANT)
      continue;
    if (seen == rounds) {
      end = t;
      break;
    }
    seen++;
  }
  uint32_t calls = 0, results = 0;
  for (uint32_t t = 0; t < end; t++) {
    calls += h->turns[t].ncalls;
    results += h->turns[t].nresults;
  }
  if (call_off)
    *call_off = calls;
  if (result_off)
    *result_off = results;
  uint32_t kept = first + (h->nturns - end);
  cs_history out = {CS_ARENA_NEW(a, cs_turn, kept + 1), kept};
  if (first)
    memcpy(out.turns, h->turns, first * sizeof *h->turns);
  if (h->nturns > end)
    memcpy(out.turns + first, h->turns + end, (h->nturns - end) * sizeof *h->turns);
  return out;
}

cs_history cs_transform_reingest(const cs_history *h, const cs_answer *canon, cs_arena *a) {
  cs_history out = copy_turns(h, a);
  uint32_t ci = 0, ri = 0;
  for (uint32_t t = 0; t < out.nturns; t++) {
    cs_turn *turn = &out.turns[t];
    if (turn->ncalls) {
      cs_call *calls = CS_ARENA_NEW(a, cs_call, turn->ncalls);
      for (uint32_t k = 0; k < turn->ncalls; k++, ci++) {
        calls[k] = turn->calls[k];
        if (ci < canon->ncalls) /* a short answer leaves the rest as it was */
          calls[k].id = cs_arena_str(a, canon->calls[ci]);
      }
      turn->calls = calls;
    }
    if (turn->nresults) {
      cs_result *results = CS_ARENA_NEW(a, cs_result, turn->nresults);
      uint32_t n = 0;
      for (uint32_t k = 0; k < turn->nresults; k++, ri++) {
        cs_result r = turn->results[k];
        if (ri < canon->nresults) {
          if (!canon->results[ri].ptr)
            continue; /* an orphan: the canonical history drops it */
          r.call_id = cs_arena_str(a, canon->results[ri]);
        }
        results[n++] = r;
      }
      turn->results = results;
      turn->nresults = n;
    }
  }
  return out;
}

cs_history cs_transform_relabel(const cs_history *h, cs_choices *c, cs_arena *a) {
  cs_history out = copy_turns(h, a);
  for (uint32_t t = 0; t < out.nturns; t++)
    if (out.turns[t].role == CS_ROLE_ASSISTANT)
      out.turns[t].provider = (cs_provider)cs_draw(c, CS_PROVIDER_COUNT);
  return out;
}

cs_history cs_transform_plant(const cs_history *h, uint32_t call, cs_str raw, cs_arena *a) {
  cs_history out = copy_turns(h, a);
  cs_history_index ix;
  cs_history_index_build(h, a, &ix);
  if (call >= ix.ncalls)
    return out;
  raw = cs_arena_str(a, raw);
  bool *copied = CS_ARENA_NEW(a, bool, h->nturns + 1); /* copy-on-write per turn */

  uint32_t t = ix.call_turn[call];
  cs_turn *turn = &out.turns[t];
  cs_call *calls = CS_ARENA_NEW(a, cs_call, turn->ncalls);
  memcpy(calls, turn->calls, turn->ncalls * sizeof *calls);
  calls[ix.call_pos[call]].id = raw;
  turn->calls = calls;

  /* Results are numbered in document order; find each one's turn and position as we go. */
  uint32_t r = 0;
  for (uint32_t rt = 0; rt < out.nturns; rt++) {
    cs_turn *tt = &out.turns[rt];
    for (uint32_t k = 0; k < tt->nresults; k++, r++) {
      if (ix.pair[r] != (int32_t)call || cs_str_is_blank(ix.results[r]->call_id))
        continue;
      if (!copied[rt]) {
        cs_result *results = CS_ARENA_NEW(a, cs_result, tt->nresults);
        memcpy(results, tt->results, tt->nresults * sizeof *results);
        tt->results = results;
        copied[rt] = true;
      }
      tt->results[k].call_id = raw;
    }
  }
  return out;
}

/* The history as Kimi itself would have produced it: functions.{name}:{global index}. Kimi's API, as
 * OpenAI's, wants every call answered, so only answered calls are kept: an implementation may drop an
 * unanswered call (PROTOCOL.md), which would leave the later indices no longer Kimi's. */
cs_history cs_transform_kimi_native(const cs_history *h, const cs_history_index *ix, cs_arena *a) {
  cs_history out = cs_history_clone(h, a);
  uint32_t g = 0, c = 0;
  cs_str *ids = CS_ARENA_NEW(a, cs_str, ix->ncalls + 1), *names = CS_ARENA_NEW(a, cs_str, ix->ncalls + 1);
  bool *answered = CS_ARENA_NEW(a, bool, ix->ncalls + 1);
  for (uint32_t r = 0; r < ix->nresults; r++)
    if (ix->pair[r] >= 0)
      answered[ix->pair[r]] = true;
  for (uint32_t t = 0; t < out.nturns; t++) {
    cs_turn *turn = &out.turns[t];
    if (turn->role != CS_ROLE_ASSISTANT)
      continue;
    turn->provider = CS_PROV_KIMI;
    uint32_t kept = 0;
    for (uint32_t k = 0; k < turn->ncalls; k++, c++) {
      if (!answered[c])
        continue;
      cs_call call = turn->calls[k];
      char *name = cs_arena_alloc(a, call.name.len + 2);
      size_t n = cs_kimi_name(call.name, name, SIZE_MAX);
      if (!n)
        name[n++] = 'f';
      name[n] = 0;
      call.name = (cs_str){name, n};
      call.server = false;
      call.id = cs_arena_printf(a, "functions.%s:%u", name, g++);
      ids[c] = call.id;
      names[c] = call.name;
      turn->calls[kept++] = call;
    }
    turn->ncalls = kept;
  }
  /* Results: paired ones take their call's ID and name; orphans are not something Kimi produces. */
  uint32_t ri = 0;
  for (uint32_t t = 0; t < out.nturns; t++) {
    cs_turn *turn = &out.turns[t];
    uint32_t kept = 0;
    for (uint32_t k = 0; k < turn->nresults; k++, ri++) {
      int32_t p = ix->pair[ri];
      if (p < 0)
        continue;
      cs_result res = turn->results[k];
      res.call_id = ids[p];
      res.name = names[p];
      turn->results[kept++] = res;
    }
    turn->nresults = kept;
  }
  return out;
}
