/* tests/unit/test_history_gen.c: the history and ID generators (and the label table): determinism,
 * replay, the all-zero simplest case, label coverage, ID validity and the shapes of the classes. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/history_json.h"
#include "core/utf8.h"
#include "generators/history_gen.h"
#include "generators/id_gen.h"

#define SEEDS 10000

static void gen_seed(cs_choices *c, uint64_t seed, const cs_gen_config *cfg, cs_arena *a, cs_gen_case *g) {
  cs_arena_reset(a);
  cs_choices_record(c, cs_seed_mix(seed));
  cs_gen_history(c, cfg, a, g);
}

static void to_json(const cs_history *h, cs_buf *b) {
  cs_buf_clear(b);
  cs_history_write(b, h);
}

static bool valid_id(cs_str s, size_t max) {
  if (!s.ptr)
    return true;
  return s.len <= max && cs_utf8_valid(s.ptr, s.len, NULL) && memchr(s.ptr, 0, s.len) == NULL;
}

/* ---- labels ---- */

Test(labels, names_unique_and_described) {
  for (int i = 0; i < CS_LABEL_COUNT; i++) {
    cr_assert(strlen(cs_label_name(i)) > 0);
    cr_assert(strlen(cs_label_desc(i)) > 0);
    for (int j = 0; j < i; j++)
      cr_assert_str_neq(cs_label_name(i), cs_label_name(j));
  }
  cr_assert_str_eq(cs_label_name(CS_LABEL_ID_MISSING), "id.missing");
  cr_assert_str_eq(cs_label_name(CS_LABEL_S_MULTI_TURN), "struct.multi_turn");
  cr_assert_str_eq(cs_label_name(CS_LABEL_COUNT), "?");
  cr_assert_str_eq(cs_label_desc((cs_label)-1), "?");
}

/* ---- determinism and replay ---- */

Test(history_gen, same_seed_same_history_and_values) {
  cs_arena a1 = {0}, a2 = {0};
  cs_choices c1 = {0}, c2 = {0};
  cs_buf j1 = {0}, j2 = {0};
  for (uint64_t s = 0; s < 500; s++) {
    cs_gen_case g1, g2;
    gen_seed(&c1, s, NULL, &a1, &g1);
    gen_seed(&c2, s, NULL, &a2, &g2);
    to_json(&g1.h, &j1);
    to_json(&g2.h, &j2);
    cr_assert_str_eq(j1.data, j2.data, "seed %llu", (unsigned long long)s);
    cr_assert_eq(c1.n, c2.n);
    cr_assert_eq(memcmp(c1.v, c2.v, c1.n * sizeof *c1.v), 0);
    cr_assert_eq(g1.labels, g2.labels);
    cr_assert_eq(g1.ntwins, g2.ntwins);
    if (g1.ntwins)
      cr_assert_eq(memcmp(g1.twins, g2.twins, g1.ntwins * sizeof *g1.twins), 0);
  }
  cs_arena_free(&a1);
  cs_arena_free(&a2);
  cs_choices_free(&c1);
  cs_choices_free(&c2);
  cs_buf_free(&j1);
  cs_buf_free(&j2);
}

Test(history_gen, replay_reproduces_byte_for_byte) {
  cs_arena a = {0};
  cs_choices c = {0}, r = {0};
  cs_buf j1 = {0}, j2 = {0};
  for (uint64_t s = 0; s < 3000; s++) {
    cs_gen_case g1, g2;
    gen_seed(&c, s, NULL, &a, &g1);
    to_json(&g1.h, &j1);
    cs_choices_replay(&r, c.v, c.n);
    cs_gen_history(&r, NULL, &a, &g2);
    to_json(&g2.h, &j2);
    cr_assert_str_eq(j1.data, j2.data, "seed %llu", (unsigned long long)s);
    cr_assert_not(r.exhausted, "replay reads exactly what was recorded");
    cr_assert_eq(r.pos, c.n);
    cr_assert_eq(g1.labels, g2.labels);
    cr_assert_eq(g1.rounds, g2.rounds);
    cr_assert_eq(g1.ntwins, g2.ntwins);
  }
  cs_arena_free(&a);
  cs_choices_free(&c);
  cs_choices_free(&r);
  cs_buf_free(&j1);
  cs_buf_free(&j2);
}

static void check_simplest(const cs_gen_case *g) {
  const cs_history *h = &g->h;
  cr_assert_eq(h->nturns, 3);
  cr_assert_eq(h->turns[0].role, CS_ROLE_USER);
  cr_assert_not_null(h->turns[0].text.ptr);
  const cs_turn *at = &h->turns[1];
  cr_assert_eq(at->role, CS_ROLE_ASSISTANT);
  cr_assert_eq(at->provider, CS_PROV_ANTHROPIC);
  cr_assert(cs_str_eq_c(at->turn_key, "t0"));
  cr_assert_eq(at->ncalls, 1);
  cr_assert(cs_str_eq_c(at->calls[0].id, "call_0"));
  cr_assert(cs_str_eq_c(at->calls[0].name, "read_file"));
  cr_assert_not(at->calls[0].server);
  const cs_turn *tt = &h->turns[2];
  cr_assert_eq(tt->role, CS_ROLE_TOOL);
  cr_assert_eq(tt->nresults, 1);
  cr_assert(cs_str_eq_c(tt->results[0].call_id, "call_0"));
  cr_assert(cs_str_eq_c(tt->results[0].name, "read_file"));
  cr_assert_not_null(tt->results[0].content.ptr);
  cr_assert_eq(g->labels, 0, "the simplest history has no pathology");
  cr_assert_eq(g->ntwins, 0);
  cr_assert_eq(g->rounds, 1);
}

Test(history_gen, all_zero_is_simplest) {
  cs_arena a = {0};
  cs_choices c = {0};
  cs_gen_case g;
  cs_choices_replay(&c, NULL, 0);
  cs_gen_history(&c, NULL, &a, &g);
  check_simplest(&g);
  cr_assert(c.exhausted);

  uint64_t *zeros = calloc(4096, sizeof *zeros);
  cs_choices_replay(&c, zeros, 4096);
  cs_arena_reset(&a);
  cs_gen_history(&c, NULL, &a, &g);
  check_simplest(&g);
  cr_assert_not(c.exhausted);

  /* Also with a small configuration. */
  cs_gen_config cfg = {.max_rounds = 1, .max_calls = 1, .max_id_len = 16};
  cs_choices_replay(&c, zeros, 4096);
  cs_arena_reset(&a);
  cs_gen_history(&c, &cfg, &a, &g);
  check_simplest(&g);
  free(zeros);
  cs_arena_free(&a);
  cs_choices_free(&c);
}

Test(history_gen, zeroing_a_value_never_grows_the_history) {
  /* The shrinker's basic move: setting one choice to 0 gives a history no larger in turns. */
  cs_arena a = {0};
  cs_choices c = {0}, r = {0};
  for (uint64_t s = 0; s < 300; s++) {
    cs_gen_case g;
    gen_seed(&c, s, NULL, &a, &g);
    uint32_t turns = g.h.nturns;
    cr_assert_geq(c.n, 1);
    uint64_t *v = malloc(c.n * sizeof *v);
    memcpy(v, c.v, c.n * sizeof *v);
    v[0] = 0; /* the round count comes first */
    cs_choices_replay(&r, v, c.n);
    cs_gen_case z;
    cs_gen_history(&r, NULL, &a, &z);
    cr_assert_leq(z.rounds, (z.labels & CS_LABEL_BIT(CS_LABEL_TWIN_JOIN)) ? 2 : 1); /* a join twin adds one */
    cr_assert_leq(z.h.nturns, turns);
    free(v);
  }
  cs_arena_free(&a);
  cs_choices_free(&c);
  cs_choices_free(&r);
}

/* ---- labels over many seeds ---- */

Test(history_gen, every_label_appears) {
  cs_arena a = {0};
  cs_choices c = {0};
  unsigned counts[CS_LABEL_COUNT] = {0};
  for (uint64_t s = 0; s < SEEDS; s++) {
    cs_gen_case g;
    gen_seed(&c, s, NULL, &a, &g);
    for (int l = 0; l < CS_LABEL_COUNT; l++)
      counts[l] += (g.labels >> l) & 1;
  }
  for (int l = 0; l < CS_LABEL_COUNT; l++) {
    double share = (double)counts[l] / SEEDS;
    double floor = l == CS_LABEL_ID_HUGE ? 0.005 : 0.02;
    cr_assert(share >= floor, "%s in %.2f%% of histories", cs_label_name(l), 100 * share);
  }
  cs_arena_free(&a);
  cs_choices_free(&c);
}

/* ---- validity and structure ---- */

static bool ok_server_id(cs_str s) {
  if (!cs_str_starts(s, "srvtoolu_") || s.len == 9)
    return false;
  for (size_t i = 9; i < s.len; i++)
    if (!isalnum((unsigned char)s.ptr[i]) && s.ptr[i] != '_')
      return false;
  return true;
}

static void check_structure(const cs_gen_case *g, const cs_gen_config *cfg, cs_arena *a) {
  const cs_history *h = &g->h;
  uint32_t max_rounds = cfg->max_rounds ? cfg->max_rounds : 6, max_calls = cfg->max_calls ? cfg->max_calls : 4;
  size_t max_len = cfg->max_id_len ? cfg->max_id_len : 65536;
  cr_assert_geq(h->nturns, 2);
  bool cut = g->labels & CS_LABEL_BIT(CS_LABEL_S_COMPRESSION_CUT);
  cr_assert_eq(h->turns[0].role, cut ? CS_ROLE_TOOL : CS_ROLE_USER);
  uint32_t assistants = 0;
  for (uint32_t t = 0; t < h->nturns; t++) {
    const cs_turn *turn = &h->turns[t];
    if (turn->role == CS_ROLE_USER) {
      cr_assert_not_null(turn->text.ptr);
      continue;
    }
    cr_assert_not_null(turn->turn_key.ptr);
    /* Turn keys are unique, but for a join twin's round, which repeats the key of the round before. */
    for (uint32_t u = 0; u < t; u++)
      if (cs_str_eq(turn->turn_key, h->turns[u].turn_key)) {
        cr_assert(g->labels & CS_LABEL_BIT(CS_LABEL_TWIN_JOIN), "turn keys are unique");
        cr_assert_eq(turn->role, CS_ROLE_ASSISTANT);
        cr_assert_eq(h->turns[u].role, CS_ROLE_ASSISTANT);
        const cs_turn *joined = &h->turns[u];
        uint32_t j = 0; /* its first call that is not a server call */
        while (j < joined->ncalls && joined->calls[j].server)
          j++;
        cr_assert_lt(j, joined->ncalls, "a join twin joins to a call that is not a server call");
        const cs_call *x = &joined->calls[j], *y = &turn->calls[0];
        char jx[512], jy[512];
        snprintf(jx, sizeof jx, "%.*s|%.*s", (int)x->id.len, x->id.ptr, (int)x->name.len, x->name.ptr);
        snprintf(jy, sizeof jy, "%.*s|%.*s", (int)y->id.len, y->id.ptr, (int)y->name.len, y->name.ptr);
        if (x->id.len < 200)
          cr_assert_str_eq(jx, jy, "a join twin joins to its round's first call that is not a server call");
        cr_assert_not(cs_str_eq(x->id, y->id));
      }
    if (turn->role == CS_ROLE_ASSISTANT) {
      assistants++;
      cr_assert(turn->ncalls >= 1 && turn->ncalls <= max_calls);
      cr_assert_lt(turn->provider, CS_PROVIDER_COUNT);
      for (uint32_t k = 0; k < turn->ncalls; k++) {
        const cs_call *call = &turn->calls[k];
        /* A server call's ID is the provider's own: whole under any bound. */
        cr_assert(valid_id(call->id, call->server ? CS_SERVER_ID_LEN : max_len), "call id of %zu bytes", call->id.len);
        cr_assert(call->name.ptr && call->name.len);
        if (call->server) {
          cr_assert_eq(turn->provider, CS_PROV_ANTHROPIC, "server calls only in anthropic turns");
          cr_assert(ok_server_id(call->id));
          cr_assert_eq(call->id.len, CS_SERVER_ID_LEN);
        }
      }
    } else {
      cr_assert_eq(turn->role, CS_ROLE_TOOL);
      for (uint32_t k = 0; k < turn->nresults; k++) {
        cr_assert(valid_id(turn->results[k].call_id, max_len));
        cr_assert(turn->results[k].name.ptr && turn->results[k].content.ptr);
      }
    }
  }
  /* a join twin's round comes on top of the drawn ones */
  cr_assert(assistants >= 1 && assistants <= max_rounds + !!(g->labels & CS_LABEL_BIT(CS_LABEL_TWIN_JOIN)));
  cr_assert_eq(g->rounds, assistants);
  cr_assert_eq(!!(g->labels & CS_LABEL_BIT(CS_LABEL_S_MULTI_TURN)), assistants > 1);

  cs_history_index ix;
  cs_history_index_build(h, a, &ix);
  if (cut)
    for (uint32_t k = 0; k < h->turns[0].nresults; k++)
      cr_assert_eq(ix.pair[k], -1, "results before the cut answer nothing");
  cr_assert_leq(g->ntwins, 2);
  cr_assert_eq(!!(g->labels & CS_LABEL_BIT(CS_LABEL_TWIN_IMPL)), g->ntwins > 0);
  for (uint32_t i = 0; i < g->ntwins; i++) {
    const cs_twin_plan *p = &g->twins[i];
    cr_assert_lt(p->from_call, p->to_call);
    cr_assert_lt(p->to_call, ix.ncalls);
    cr_assert_lt(p->target, CS_PROVIDER_TARGETS);
    cr_assert_not(ix.calls[p->to_call]->server);
  }
  /* Labels are what the pairing shows. */
  bool orphan = false, unanswered = false;
  for (uint32_t r = 0; r < ix.nresults; r++)
    orphan |= ix.pair[r] < 0;
  for (uint32_t k = 0; k < ix.ncalls; k++)
    unanswered |= !ix.calls[k]->server && !ix.answers[k];
  cr_assert_eq(!!(g->labels & CS_LABEL_BIT(CS_LABEL_S_ORPHAN)), orphan);
  cr_assert_eq(!!(g->labels & CS_LABEL_BIT(CS_LABEL_S_UNANSWERED)), unanswered);
  /* A deferred result: one that answers by ID a call with an assistant turn between them. */
  bool deferred = false;
  for (uint32_t r = 0; r < ix.nresults; r++) {
    if (ix.pair[r] < 0 || cs_str_is_blank(ix.results[r]->call_id))
      continue;
    for (uint32_t t = ix.call_turn[ix.pair[r]] + 1; t < ix.result_turn[r]; t++)
      deferred |= h->turns[t].role == CS_ROLE_ASSISTANT;
  }
  cr_assert_eq(!!(g->labels & CS_LABEL_BIT(CS_LABEL_S_DEFERRED)), deferred);
  /* A late result closes the drawn history (a join twin's two turns may follow): one result without
   * call_id, named after a call of an earlier assistant turn than the last before it. */
  if (g->labels & CS_LABEL_BIT(CS_LABEL_S_LATE_POSITIONAL)) {
    uint32_t at = h->nturns - 1 - ((g->labels & CS_LABEL_BIT(CS_LABEL_TWIN_JOIN)) ? 2 : 0);
    const cs_turn *end = &h->turns[at];
    cr_assert_eq(end->role, CS_ROLE_TOOL);
    cr_assert_eq(end->nresults, 1u);
    cr_assert(cs_str_is_blank(end->results[0].call_id));
    uint32_t last = 0;
    for (uint32_t t = 0; t < at; t++)
      if (h->turns[t].role == CS_ROLE_ASSISTANT)
        last = t;
    bool named = false;
    for (uint32_t k = 0; k < ix.ncalls && !named; k++)
      named = ix.call_turn[k] < last && cs_str_eq(ix.calls[k]->name, end->results[0].name);
    cr_assert(named, "the late result is named after no call of an earlier turn");
  }
}

Test(history_gen, ids_valid_and_structure_sound) {
  cs_arena a = {0};
  cs_choices c = {0};
  const cs_gen_config cfgs[] = {{0},
                                {.max_id_len = 1},
                                {.max_id_len = 9},
                                {.max_id_len = 100},
                                {.max_id_len = 1500},
                                {.max_rounds = 2, .max_calls = 9}};
  for (size_t k = 0; k < sizeof cfgs / sizeof cfgs[0]; k++) {
    uint64_t n = k == 0 ? SEEDS : 2000;
    for (uint64_t s = 0; s < n; s++) {
      cs_gen_case g;
      gen_seed(&c, s, &cfgs[k], &a, &g);
      check_structure(&g, &cfgs[k], &a);
    }
  }
  cs_arena_free(&a);
  cs_choices_free(&c);
}

/* A deferred result comes after another assistant turn whose calls lack its tool's name: a
 * normalizer that finds results through a map of the latest turn's names loses it. */
Test(history_gen, deferred_results_outlive_the_name_map) {
  cs_arena a = {0};
  cs_choices c = {0};
  unsigned unnamed = 0;
  for (uint64_t s = 0; s < 3000; s++) {
    cs_gen_case g;
    gen_seed(&c, s, NULL, &a, &g);
    if (!(g.labels & CS_LABEL_BIT(CS_LABEL_S_DEFERRED)))
      continue;
    for (uint32_t r = 0; r < g.ix.nresults; r++) {
      int32_t p = g.ix.pair[r];
      if (p < 0 || cs_str_is_blank(g.ix.results[r]->call_id))
        continue;
      uint32_t last = g.ix.call_turn[p];
      for (uint32_t t = last + 1; t < g.ix.result_turn[r]; t++)
        if (g.h.turns[t].role == CS_ROLE_ASSISTANT)
          last = t;
      if (last == g.ix.call_turn[p])
        continue;
      bool named = false;
      for (uint32_t k = 0; k < g.h.turns[last].ncalls; k++)
        named |= cs_str_eq(g.h.turns[last].calls[k].name, g.ix.calls[p]->name);
      unnamed += !named;
    }
  }
  cr_assert_gt(unnamed, 20, "%u deferred results the latest turn's names miss", unnamed);
  cs_arena_free(&a);
  cs_choices_free(&c);
}

/* The names of the calls of every assistant turn from the `skip`-th on, one string. */
static void call_names(const cs_history *h, uint32_t skip, cs_buf *out) {
  cs_buf_clear(out);
  uint32_t n = 0;
  for (uint32_t t = 0; t < h->nturns; t++) {
    if (h->turns[t].role != CS_ROLE_ASSISTANT || n++ < skip)
      continue;
    for (uint32_t k = 0; k < h->turns[t].ncalls; k++)
      cs_buf_printf(out, "%.*s,", (int)h->turns[t].calls[k].name.len, h->turns[t].calls[k].name.ptr);
    cs_buf_puts(out, "|");
  }
}

/* Deleting the first round, which deferred a result to the second, leaves the draws of the later
 * rounds aligned: the second round's tool turn makes as many draws without the carried result as
 * with it, so every later call keeps its tool. */
Test(history_gen, deleting_a_round_that_deferred_a_result_keeps_later_draws) {
  cs_arena a = {0};
  cs_choices c = {0}, r = {0};
  cs_buf before = {0}, after = {0};
  unsigned tried = 0;
  for (uint64_t s = 0; s < 20000 && tried < 40; s++) {
    cs_gen_case g;
    gen_seed(&c, s, NULL, &a, &g);
    /* Classes that draw from earlier IDs make as many draws as the earlier IDs allow: deleting a
     * round changes that count whatever deferral does, so cases with them are left out. */
    const cs_labelset pool_drawn = CS_LABEL_BIT(CS_LABEL_TWIN_JOIN) | CS_LABEL_BIT(CS_LABEL_S_COMPRESSION_CUT) |
                                   CS_LABEL_BIT(CS_LABEL_ID_DUP_TURN) | CS_LABEL_BIT(CS_LABEL_ID_DUP_ACROSS) |
                                   CS_LABEL_BIT(CS_LABEL_LOOKALIKE) | CS_LABEL_BIT(CS_LABEL_TWIN_SANITIZE) |
                                   CS_LABEL_BIT(CS_LABEL_TWIN_PREFIX) | CS_LABEL_BIT(CS_LABEL_TWIN_CASE) |
                                   CS_LABEL_BIT(CS_LABEL_TWIN_TRUNCATE);
    if (!(g.labels & CS_LABEL_BIT(CS_LABEL_S_DEFERRED)) || g.rounds < 3 || g.ntwins || (g.labels & pool_drawn))
      continue;
    /* The first round's span (counted by the rounds draw, value 0), and a result it deferred. */
    const cs_choice_span *first = NULL;
    for (size_t i = 0; i < c.nspans && !first; i++)
      if (c.spans[i].count_at == 0)
        first = &c.spans[i];
    cr_assert_not_null(first);
    uint32_t first_turn_calls = 0, t1 = 0;
    while (g.h.turns[t1].role != CS_ROLE_ASSISTANT)
      t1++;
    first_turn_calls = g.h.turns[t1].ncalls;
    bool deferred_from_first = false;
    for (uint32_t k = 0; k < g.ix.nresults; k++)
      if (g.ix.pair[k] >= 0 && (uint32_t)g.ix.pair[k] < first_turn_calls && g.ix.result_turn[k] > t1 + 1 &&
          g.h.turns[t1 + 1].role == CS_ROLE_TOOL)
        deferred_from_first = true;
    if (!deferred_from_first)
      continue;
    tried++;
    call_names(&g.h, 1, &before);
    size_t n = 0;
    uint64_t *v = malloc(c.n * sizeof *v);
    for (size_t i = 0; i < c.n; i++)
      if (i < first->start || i >= first->end)
        v[n++] = c.v[i];
    v[0]--; /* one round fewer */
    cs_arena_reset(&a);
    cs_choices_replay(&r, v, n);
    cs_gen_history(&r, NULL, &a, &g);
    call_names(&g.h, 0, &after);
    cr_assert_str_eq(after.data, before.data, "seed %llu: the later rounds' tools changed", (unsigned long long)s);
    free(v);
  }
  cr_assert_gt(tried, 10, "%u cases tried", tried);
  cs_buf_free(&before);
  cs_buf_free(&after);
  cs_arena_free(&a);
  cs_choices_free(&c);
  cs_choices_free(&r);
}

/* Hostile IDs wear native prefixes, srvtoolu_ among them: a normalizer that trusts a prefix to mean
 * a valid server ID passes what follows it unchecked. */
Test(history_gen, hostile_ids_wear_the_server_prefix) {
  cs_arena a = {0};
  cs_choices c = {0};
  unsigned found = 0;
  for (uint64_t s = 0; s < 3000; s++) {
    cs_gen_case g;
    gen_seed(&c, s, NULL, &a, &g);
    for (uint32_t k = 0; k < g.ix.ncalls; k++) {
      const cs_call *call = g.ix.calls[k];
      if (!call->server && cs_str_starts(call->id, "srvtoolu_") && !ok_server_id(call->id))
        found++;
    }
  }
  cr_assert_gt(found, 20, "%u non-server calls with a srvtoolu_ ID the server rule refuses", found);
  cs_arena_free(&a);
  cs_choices_free(&c);
}

/* An Anthropic round of a server call and its non-server twin: the join passes over the server call
 * and joins the twin, so "srvtoolu_...|x" comes as the raw ID of a call that is not a server call
 * (a sanitizer that lets the prefix through untouched sends it as it is). */
Test(history_gen, a_join_twin_passes_over_server_calls) {
  uint64_t *v = NULL;
  size_t n = 0;
  cs_err err = {{0}};
  cr_assert_eq(cs_choices_parse_token("cs1.AAAAAAAAAAEAAAEAAAAABQAAAAAAAAE", &v, &n, &err), 0, "%s", err.msg);
  cs_arena a = {0};
  cs_choices c = {0};
  cs_choices_replay(&c, v, n);
  cs_gen_case g;
  cs_gen_history(&c, NULL, &a, &g);
  cr_assert(g.labels & CS_LABEL_BIT(CS_LABEL_TWIN_JOIN));
  cr_assert_eq(g.ix.ncalls, 3);
  const cs_call *server = g.ix.calls[0], *joined = g.ix.calls[1], *added = g.ix.calls[2];
  cr_assert(server->server);
  cr_assert_not(joined->server);
  cr_assert_eq(g.ix.call_turn[0], g.ix.call_turn[1], "the server call and its twin share a round");
  cr_assert_eq(joined->id.len, server->id.len + 2);
  cr_assert_eq(memcmp(joined->id.ptr, server->id.ptr, server->id.len), 0);
  cr_assert_eq(memcmp(joined->id.ptr + server->id.len, "|x", 2), 0);
  cr_assert(cs_str_eq(added->id, server->id), "the added round holds the twin's raw ID");
  cs_arena_free(&a);
  cs_choices_free(&c);
  free(v);
}

Test(history_gen, huge_ids_reach_the_bound) {
  cs_arena a = {0};
  cs_choices c = {0};
  size_t longest = 0;
  for (uint64_t s = 0; s < SEEDS; s++) {
    cs_gen_case g;
    gen_seed(&c, s, NULL, &a, &g);
    for (uint32_t t = 0; t < g.h.nturns; t++)
      for (uint32_t k = 0; k < g.h.turns[t].ncalls; k++)
        if (g.h.turns[t].calls[k].id.len > longest)
          longest = g.h.turns[t].calls[k].id.len;
  }
  cr_assert_eq(longest, 65536, "the longest ID is exactly max_id_len: %zu", longest);
  cs_arena_free(&a);
  cs_choices_free(&c);
}

/* Length limits count characters (40, 64) where code may count bytes or UTF-16 units: some long
 * IDs hold characters of 2 to 4 bytes, and an emoji straddles the 40th and the 64th UTF-16 unit. */
Test(history_gen, long_ids_go_past_ascii_and_split_at_the_limits) {
  cs_arena a = {0};
  cs_choices c = {0};
  bool straddles[2] = {false, false};
  const size_t limits[2] = {40, 64};
  for (uint64_t s = 0; s < SEEDS; s++) {
    cs_gen_case g;
    gen_seed(&c, s, NULL, &a, &g);
    for (uint32_t t = 0; t < g.h.nturns; t++)
      for (uint32_t k = 0; k < g.h.turns[t].ncalls; k++) {
        cs_str id = g.h.turns[t].calls[k].id;
        if (!id.ptr || id.len < 65 || !cs_str_starts(id, "call_"))
          continue;
        for (int l = 0; l < 2; l++) { /* a 4-byte character beginning at unit limit-1 */
          size_t units = 0;
          for (size_t i = 0; i < id.len && units < limits[l]; i++) {
            unsigned char ch = (unsigned char)id.ptr[i];
            if ((ch & 0xC0) == 0x80)
              continue;
            if (ch >= 0xF0 && units == limits[l] - 1)
              straddles[l] = true;
            units += ch >= 0xF0 ? 2 : 1;
          }
        }
      }
  }
  cr_assert(straddles[0] && straddles[1], "an emoji across the 40th UTF-16 unit: %d, the 64th: %d", straddles[0],
            straddles[1]);
  cs_arena_free(&a);
  cs_choices_free(&c);
}

Test(history_gen, round_trips_through_protocol_json) {
  cs_arena a = {0}, pa = {0};
  cs_choices c = {0};
  cs_buf j1 = {0}, j2 = {0};
  for (uint64_t s = 0; s < 2000; s++) {
    cs_gen_case g;
    gen_seed(&c, s, NULL, &a, &g);
    to_json(&g.h, &j1);
    cs_arena_reset(&pa);
    cs_history back;
    cs_err err = {{0}};
    cr_assert_eq(cs_history_parse(cs_buf_view(&j1), NULL, &pa, &back, &err), 0, "seed %llu: %s", (unsigned long long)s,
                 err.msg);
    to_json(&back, &j2);
    cr_assert_str_eq(j1.data, j2.data);
  }
  cs_arena_free(&a);
  cs_arena_free(&pa);
  cs_choices_free(&c);
  cs_buf_free(&j1);
  cs_buf_free(&j2);
}

static int cmp_u64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return (a > b) - (a < b);
}

/* Any bytes make a well-formed history; the same bytes make the same one, and different bytes
 * make different ones (the bytes are the choices, not a seed that is ignored). */
Test(history_gen, fuzzer_bytes_drive_the_generator) {
  enum { ROUNDS = 2000 };
  cs_arena a = {0};
  cs_choices c = {0};
  cs_buf j1 = {0}, j2 = {0};
  uint64_t x = 12345, *digest = calloc(ROUNDS, sizeof *digest);
  uint8_t bytes[512];
  for (int round = 0; round < ROUNDS; round++) {
    size_t n = (size_t)(round % 512);
    for (size_t i = 0; i < n; i++) {
      x = cs_seed_mix(x);
      bytes[i] = (uint8_t)x;
    }
    cs_gen_config cfg = {0};
    cs_gen_case g;
    cs_choices_replay_bytes(&c, bytes, n);
    cs_arena_reset(&a);
    cs_gen_history(&c, &cfg, &a, &g);
    check_structure(&g, &cfg, &a);
    to_json(&g.h, &j1);
    cs_choices_replay_bytes(&c, bytes, n);
    cs_arena_reset(&a);
    cs_gen_history(&c, &cfg, &a, &g);
    to_json(&g.h, &j2);
    cr_assert_str_eq(j1.data, j2.data, "round %d: the same bytes gave two histories", round);
    digest[round] = cs_str_hash(cs_buf_view(&j1));
  }
  qsort(digest, ROUNDS, sizeof *digest, cmp_u64);
  size_t distinct = 1;
  for (size_t i = 1; i < ROUNDS; i++)
    distinct += digest[i] != digest[i - 1];
  cr_assert_gt(distinct, ROUNDS * 9 / 10, "only %zu distinct histories from %d byte strings", distinct, ROUNDS);
  free(digest);
  cs_buf_free(&j1);
  cs_buf_free(&j2);
  cs_arena_free(&a);
  cs_choices_free(&c);
}

/* ---- shapes of the classes ---- */

typedef struct {
  cs_str *ids;
  uint32_t n;
} idlist;

static idlist call_ids(const cs_history *h, cs_arena *a, bool with_results) {
  idlist l = {CS_ARENA_NEW(a, cs_str, cs_history_ncalls(h) + cs_history_nresults(h) + 1), 0};
  for (uint32_t t = 0; t < h->nturns; t++) {
    for (uint32_t k = 0; k < h->turns[t].ncalls; k++)
      if (!cs_str_is_blank(h->turns[t].calls[k].id))
        l.ids[l.n++] = h->turns[t].calls[k].id;
    for (uint32_t k = 0; with_results && k < h->turns[t].nresults; k++)
      if (!cs_str_is_blank(h->turns[t].results[k].call_id))
        l.ids[l.n++] = h->turns[t].results[k].call_id;
  }
  return l;
}

static bool any_id(idlist l, bool (*pred)(cs_str)) {
  for (uint32_t i = 0; i < l.n; i++)
    if (pred(l.ids[i]))
      return true;
  return false;
}

static bool all_alnum(cs_str s, size_t from) {
  for (size_t i = from; i < s.len; i++)
    if (!isalnum((unsigned char)s.ptr[i]))
      return false;
  return true;
}
static bool is_openai(cs_str s) {
  return cs_str_starts(s, "call_") && s.len > 5;
}
static bool is_anthropic(cs_str s) {
  return cs_str_starts(s, "toolu_");
}
static bool is_server(cs_str s) {
  return ok_server_id(s);
}
static bool contains(cs_str s, const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; i + n <= s.len; i++)
    if (memcmp(s.ptr + i, needle, n) == 0)
      return true;
  return false;
}
static bool is_composite(cs_str s) {
  return contains(s, "|") && contains(s, "fc_");
}
static bool is_kimi(cs_str s) {
  return memchr(s.ptr, ':', s.len) != NULL;
}
static bool is_mistral(cs_str s) {
  return s.len == 9 && all_alnum(s, 0);
}
static bool is_adk(cs_str s) {
  if (s.len != 40 || !cs_str_starts(s, "adk-"))
    return false;
  for (size_t i = 4; i < 40; i++) {
    bool dash = i == 12 || i == 17 || i == 22 || i == 27;
    if (dash ? s.ptr[i] != '-' : !isxdigit((unsigned char)s.ptr[i]))
      return false;
  }
  return s.ptr[18] == '4';
}
static bool is_bedrock(cs_str s) {
  return cs_str_starts(s, "tooluse_");
}
static bool is_lookalike(cs_str s) {
  return cs_str_starts(s, "hist_tool_");
}

static bool lower_eq(cs_str x, cs_str y) {
  if (x.len != y.len)
    return false;
  for (size_t i = 0; i < x.len; i++)
    if (tolower((unsigned char)x.ptr[i]) != tolower((unsigned char)y.ptr[i]))
      return false;
  return true;
}

static char sanitize_byte(char ch) {
  unsigned char u = (unsigned char)ch;
  return u < 0x80 && !isalnum(u) && u != '-' ? '_' : ch;
}

static bool sanitize_eq(cs_str x, cs_str y) {
  if (x.len != y.len)
    return false;
  for (size_t i = 0; i < x.len; i++)
    if (sanitize_byte(x.ptr[i]) != sanitize_byte(y.ptr[i]))
      return false;
  return true;
}

static cs_str strip_prefix(cs_str s) {
  static const char *const p[] = {"toolu_vrtx_", "toolu_bdrk_", "srvtoolu_", "tooluse_",
                                  "toolu_",      "call_",       "fc_",       "functions."};
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
    if (cs_str_starts(s, p[i]) && s.len > strlen(p[i]))
      return (cs_str){s.ptr + strlen(p[i]), s.len - strlen(p[i])};
  return s;
}

static bool prefix_eq(cs_str x, cs_str y) {
  return cs_str_eq(strip_prefix(x), strip_prefix(y));
}

static bool truncate_eq(cs_str x, cs_str y) {
  static const size_t cuts[] = {9, 40, 53, 64};
  for (size_t i = 0; i < 4; i++) {
    size_t c = cuts[i];
    if (x.len >= c && y.len >= c && (x.len > c || y.len > c) && memcmp(x.ptr, y.ptr, c) == 0)
      return true;
  }
  return false;
}

static bool any_pair(idlist l, bool (*eq)(cs_str, cs_str)) {
  for (uint32_t i = 0; i < l.n; i++)
    for (uint32_t j = 0; j < l.n; j++)
      if (i != j && !cs_str_eq(l.ids[i], l.ids[j]) && eq(l.ids[i], l.ids[j]))
        return true;
  return false;
}

Test(history_gen, labels_match_content) {
  cs_arena a = {0};
  cs_choices c = {0};
  unsigned kimi_right = 0, kimi_wrong = 0;
  for (uint64_t s = 0; s < 3000; s++) {
    cs_gen_case g;
    gen_seed(&c, s, NULL, &a, &g);
    idlist calls = call_ids(&g.h, &a, false), all = call_ids(&g.h, &a, true);
    cs_labelset l = g.labels;
#define HAS(label) (l & CS_LABEL_BIT(CS_LABEL_##label))
    if (HAS(NATIVE_OPENAI))
      cr_assert(any_id(all, is_openai), "seed %llu", (unsigned long long)s);
    if (HAS(NATIVE_ANTHROPIC))
      cr_assert(any_id(all, is_anthropic));
    if (HAS(NATIVE_SERVER))
      cr_assert(any_id(calls, is_server));
    if (HAS(NATIVE_RESPONSES))
      cr_assert(any_id(all, is_composite));
    if (HAS(NATIVE_KIMI))
      cr_assert(any_id(all, is_kimi));
    if (HAS(NATIVE_MISTRAL))
      cr_assert(any_id(all, is_mistral));
    if (HAS(NATIVE_ADK))
      cr_assert(any_id(all, is_adk));
    if (HAS(NATIVE_BEDROCK))
      cr_assert(any_id(all, is_bedrock));
    if (HAS(LOOKALIKE))
      cr_assert(any_id(calls, is_lookalike));
    if (HAS(TWIN_CASE))
      cr_assert(any_pair(calls, lower_eq), "seed %llu: twin.case without a case twin", (unsigned long long)s);
    if (HAS(TWIN_SANITIZE))
      cr_assert(any_pair(calls, sanitize_eq), "seed %llu: twin.sanitize without a twin", (unsigned long long)s);
    if (HAS(TWIN_PREFIX))
      cr_assert(any_pair(calls, prefix_eq), "seed %llu: twin.prefix without a twin", (unsigned long long)s);
    if (HAS(TWIN_TRUNCATE))
      cr_assert(any_pair(calls, truncate_eq), "seed %llu: twin.truncate without a twin", (unsigned long long)s);
    /* Null and empty call IDs (a result's blank call_id is positional pairing, not a missing ID):
     * labelled only when the final history has them (a join twin rewrites a call's ID after it was
     * drawn, and a compression cut's Gemini result may have none); repeated call IDs, exactly
     * when it has them. */
    bool null_id = false, empty_id = false;
    for (uint32_t t = 0; t < g.h.nturns; t++)
      for (uint32_t k = 0; k < g.h.turns[t].ncalls; k++) {
        null_id = null_id || !g.h.turns[t].calls[k].id.ptr;
        empty_id = empty_id || (g.h.turns[t].calls[k].id.ptr && !g.h.turns[t].calls[k].id.len);
      }
    if (HAS(ID_MISSING))
      cr_assert(null_id, "seed %llu: id.missing without a null ID", (unsigned long long)s);
    if (HAS(ID_EMPTY))
      cr_assert(empty_id, "seed %llu: id.empty without an empty ID", (unsigned long long)s);
    bool dup_turn = false, dup_across = false;
    for (uint32_t i = 0; i < g.ix.ncalls; i++)
      for (uint32_t j = i + 1; g.ix.calls[i]->id.len && j < g.ix.ncalls; j++)
        if (cs_str_eq(g.ix.calls[i]->id, g.ix.calls[j]->id))
          *(g.ix.call_turn[i] == g.ix.call_turn[j] ? &dup_turn : &dup_across) = true;
    cr_assert_eq(!!HAS(ID_DUP_TURN), dup_turn, "seed %llu: id.dup_in_turn", (unsigned long long)s);
    cr_assert_eq(!!HAS(ID_DUP_ACROSS), dup_across, "seed %llu: id.dup_across_turns", (unsigned long long)s);
#undef HAS
    /* Kimi's N is sometimes the global index and sometimes not. */
    uint32_t gi = 0;
    for (uint32_t t = 0; t < g.h.nturns; t++)
      for (uint32_t k = 0; k < g.h.turns[t].ncalls; k++, gi++) {
        cs_str id = g.h.turns[t].calls[k].id;
        if (!cs_str_starts(id, "functions."))
          continue;
        size_t colon = id.len;
        while (colon > 0 && id.ptr[colon - 1] != ':')
          colon--;
        unsigned long n = 0;
        for (size_t i = colon; i < id.len && isdigit((unsigned char)id.ptr[i]); i++)
          n = n * 10 + (unsigned long)(id.ptr[i] - '0');
        if (colon > 0 && n == gi)
          kimi_right++;
        else
          kimi_wrong++;
      }
  }
  cr_assert_gt(kimi_right, 2 * kimi_wrong, "right %u, wrong %u", kimi_right, kimi_wrong);
  cr_assert_gt(kimi_wrong, 5);
  cs_arena_free(&a);
  cs_choices_free(&c);
}

/* ---- cs_gen_id ---- */

Test(history_gen, gen_id_never_null_and_labelled) {
  cs_arena a = {0};
  cs_choices c = {0};
  cs_labelset seen = 0;
  cs_gen_config cfg = {.max_id_len = 2000};
  cs_str pool[64];
  for (uint64_t s = 0; s < 3000; s++) {
    cs_arena_reset(&a);
    cs_choices_record(&c, cs_seed_mix(s));
    uint32_t n = 0;
    for (int k = 0; k < 64; k++) {
      cs_labelset l = 0;
      cs_str id = cs_gen_id(&c, &cfg, pool, n, &a, &l);
      cr_assert_not_null(id.ptr);
      cr_assert(valid_id(id, 2000));
      pool[n++] = id;
      seen |= l;
    }
  }
  const cs_label want[] = {
      CS_LABEL_ID_EMPTY,         CS_LABEL_ID_DUP_TURN,      CS_LABEL_ID_LONG,        CS_LABEL_ID_HUGE,
      CS_LABEL_ID_ILLEGAL,       CS_LABEL_ID_CONTROL,       CS_LABEL_ID_NON_ASCII,   CS_LABEL_NATIVE_OPENAI,
      CS_LABEL_NATIVE_ANTHROPIC, CS_LABEL_NATIVE_KIMI,      CS_LABEL_NATIVE_MISTRAL, CS_LABEL_NATIVE_ADK,
      CS_LABEL_NATIVE_BEDROCK,   CS_LABEL_NATIVE_RESPONSES, CS_LABEL_NATIVE_SERVER,  CS_LABEL_LOOKALIKE,
      CS_LABEL_TWIN_SANITIZE,    CS_LABEL_TWIN_PREFIX,      CS_LABEL_TWIN_CASE,      CS_LABEL_TWIN_TRUNCATE};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    cr_assert(seen & CS_LABEL_BIT(want[i]), "cs_gen_id never produced %s", cs_label_name(want[i]));
  cr_assert_not(seen & CS_LABEL_BIT(CS_LABEL_ID_MISSING));

  /* Deterministic, and the all-zero sequence gives the plain ID. */
  uint64_t zero = 0;
  cs_choices_replay(&c, &zero, 0);
  cs_labelset l = 0;
  cs_str id = cs_gen_id(&c, NULL, NULL, 0, &a, &l);
  cr_assert(cs_str_eq_c(id, "call_0"));
  cr_assert_eq(l, 0);
  cs_arena_free(&a);
  cs_choices_free(&c);
}

/* A class label says what an ID is: under a bound that cuts the class's IDs short (1 byte), no ID
 * is native, a look-alike or a prefix or truncation twin, and none is counted as one; content
 * labels still are. Under a bound of 9 a native Mistral ID (9 letters or digits) fits whole. */
Test(history_gen, a_cut_id_is_not_labelled_by_its_class) {
  cs_arena a = {0};
  cs_choices c = {0};
  cs_labelset seen1 = 0, seen9 = 0;
  cs_str pool[32];
  for (uint32_t bound = 1; bound <= 9; bound += 8) {
    cs_gen_config cfg = {.max_id_len = bound};
    for (uint64_t s = 0; s < 3000; s++) {
      cs_arena_reset(&a);
      cs_choices_record(&c, cs_seed_mix(s));
      uint32_t n = 0;
      for (int k = 0; k < 32; k++) {
        cs_labelset l = 0;
        cs_str id = cs_gen_id(&c, &cfg, pool, n, &a, &l);
        cr_assert_leq(id.len, bound);
        if (l & CS_LABEL_BIT(CS_LABEL_NATIVE_MISTRAL))
          cr_assert_eq(id.len, 9, "a 'native Mistral' ID of %zu bytes", id.len);
        pool[n++] = id;
        *(bound == 1 ? &seen1 : &seen9) |= l;
      }
    }
  }
  const cs_label cut[] = {CS_LABEL_NATIVE_OPENAI,    CS_LABEL_NATIVE_ANTHROPIC, CS_LABEL_NATIVE_KIMI,
                          CS_LABEL_NATIVE_MISTRAL,   CS_LABEL_NATIVE_ADK,       CS_LABEL_NATIVE_BEDROCK,
                          CS_LABEL_NATIVE_RESPONSES, CS_LABEL_LOOKALIKE,        CS_LABEL_TWIN_PREFIX,
                          CS_LABEL_TWIN_TRUNCATE};
  for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++)
    cr_assert_not(seen1 & CS_LABEL_BIT(cut[i]), "%s counted under a 1-byte bound", cs_label_name(cut[i]));
  cr_assert(seen1 & CS_LABEL_BIT(CS_LABEL_ID_ILLEGAL), "content labels are still counted");
  cr_assert(seen1 & CS_LABEL_BIT(CS_LABEL_TWIN_CASE), "a case twin of one letter is still one");
  cr_assert(seen9 & CS_LABEL_BIT(CS_LABEL_NATIVE_MISTRAL), "a native Mistral ID fits a 9-byte bound");
  cs_arena_free(&a);
  cs_choices_free(&c);
}

Test(history_gen, gen_id_twins_derive_from_pool) {
  cs_arena a = {0};
  cs_choices c = {0};
  cs_str pool[1] = {cs_str_c("call_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghijklmnopqrstuvwxyz")};
  unsigned twins = 0;
  for (uint64_t s = 0; s < 5000; s++) {
    cs_arena_reset(&a);
    cs_choices_record(&c, cs_seed_mix(s));
    cs_labelset l = 0;
    cs_str id = cs_gen_id(&c, NULL, pool, 1, &a, &l);
    const cs_labelset tw = CS_LABEL_BIT(CS_LABEL_TWIN_CASE) | CS_LABEL_BIT(CS_LABEL_TWIN_SANITIZE) |
                           CS_LABEL_BIT(CS_LABEL_TWIN_PREFIX) | CS_LABEL_BIT(CS_LABEL_TWIN_TRUNCATE);
    if (!(l & tw))
      continue;
    twins++;
    cr_assert_not(cs_str_eq(id, pool[0]), "a twin differs from its original");
    if (l & CS_LABEL_BIT(CS_LABEL_TWIN_CASE))
      cr_assert(lower_eq(id, pool[0]));
    if (l & CS_LABEL_BIT(CS_LABEL_TWIN_SANITIZE))
      cr_assert(sanitize_eq(id, pool[0]));
    if (l & CS_LABEL_BIT(CS_LABEL_TWIN_PREFIX))
      cr_assert(prefix_eq(id, pool[0]));
    if (l & CS_LABEL_BIT(CS_LABEL_TWIN_TRUNCATE))
      cr_assert(truncate_eq(id, pool[0]));
  }
  cr_assert_gt(twins, 100);
  cs_arena_free(&a);
  cs_choices_free(&c);
}

/* ---- content labels ---- */

static cs_labelset content(cs_str s) {
  cs_labelset l = 0;
  cs_id_content_labels(s, &l);
  return l;
}

Test(history_gen, content_labels) {
  static char buf[3000];
  cr_assert_eq(content(CS_NULL_STR), CS_LABEL_BIT(CS_LABEL_ID_MISSING));
  cr_assert_eq(content(cs_str_c("")), CS_LABEL_BIT(CS_LABEL_ID_EMPTY));
  cr_assert_eq(content(cs_str_c("call_abc-DEF_1")), 0);
  const char *illegal[] = {"a|b", "a:b", "a.b", "a/b", "a+b", "a=b", "a b"};
  for (size_t i = 0; i < 7; i++)
    cr_assert_eq(content(cs_str_c(illegal[i])), CS_LABEL_BIT(CS_LABEL_ID_ILLEGAL), "%s", illegal[i]);
  cr_assert_eq(content(cs_str_c("a\x01")), CS_LABEL_BIT(CS_LABEL_ID_CONTROL));
  cr_assert_eq(content(cs_str_c("a\x1f")), CS_LABEL_BIT(CS_LABEL_ID_CONTROL));
  cr_assert_eq(content(cs_str_c("a\x7f")), 0);
  cr_assert_eq(content(cs_str_c("caf\xC3\xA9")), CS_LABEL_BIT(CS_LABEL_ID_NON_ASCII));
  memset(buf, 'a', sizeof buf);
  cr_assert_eq(content(cs_str_n(buf, 64)), 0);
  cr_assert_eq(content(cs_str_n(buf, 65)), CS_LABEL_BIT(CS_LABEL_ID_LONG));
  cr_assert_eq(content(cs_str_n(buf, 1000)), CS_LABEL_BIT(CS_LABEL_ID_LONG));
  cr_assert_eq(content(cs_str_n(buf, 1001)), CS_LABEL_BIT(CS_LABEL_ID_HUGE));
  for (size_t i = 0; i < 2000; i += 2)
    buf[i] = (char)0xC3, buf[i + 1] = (char)0xA9; /* 1000 characters in 2000 bytes */
  cr_assert_eq(content(cs_str_n(buf, 2000)), CS_LABEL_BIT(CS_LABEL_ID_LONG) | CS_LABEL_BIT(CS_LABEL_ID_NON_ASCII));
  cr_assert_eq(content(cs_str_n(buf, 128)), CS_LABEL_BIT(CS_LABEL_ID_NON_ASCII)); /* 64 characters */
  cr_assert_eq(content(cs_str_n(buf, 130)), CS_LABEL_BIT(CS_LABEL_ID_LONG) | CS_LABEL_BIT(CS_LABEL_ID_NON_ASCII));
  /* One odd byte at every position of IDs of 1 to 24 bytes: the scan takes eight bytes a step. */
  const struct {
    char byte;
    cs_label label;
  } odd[] = {{'|', CS_LABEL_ID_ILLEGAL}, {'\x01', CS_LABEL_ID_CONTROL}, {(char)0xC3, CS_LABEL_ID_NON_ASCII}};
  for (size_t k = 0; k < sizeof odd / sizeof *odd; k++)
    for (size_t n = 1; n <= 24; n++)
      for (size_t at = 0; at < n; at++) {
        memset(buf, 'a', n);
        buf[at] = odd[k].byte;
        cr_assert_eq(content(cs_str_n(buf, n)), CS_LABEL_BIT(odd[k].label), "byte 0x%02x at %zu of %zu",
                     (unsigned char)odd[k].byte, at, n);
      }
}

/* Twins by every class the generator makes count as twins; unrelated IDs, and null, do not. */
Test(id_gen, twins_are_told_from_strangers) {
  static const char *const twins[][2] = {
      {"call_0", "call|0"},             /* sanitizing */
      {"call_0", "CALL_0"},             /* case folding */
      {"toolu_abc", "call_abc"},        /* another native prefix */
      {"toolu_abc", "abc"},             /* no prefix */
      {"abcdefghijkl", "abcdefghi"},    /* cut at 9 */
      {"abcdefghijXYZ", "abcdefghijQ"}, /* the same first 10 bytes, different tails */
  };
  for (size_t i = 0; i < sizeof twins / sizeof twins[0]; i++) {
    cr_assert(cs_id_twins(cs_str_c(twins[i][0]), cs_str_c(twins[i][1])), "%s / %s", twins[i][0], twins[i][1]);
    cr_assert(cs_id_twins(cs_str_c(twins[i][1]), cs_str_c(twins[i][0])), "%s / %s", twins[i][1], twins[i][0]);
  }
  static const char *const strangers[][2] = {
      {"call_0", "toolu_zz"}, {"call_0", "call_1"}, {"abcdefgh", "abcdefg"}, {"idx_2", "idx_0"}};
  for (size_t i = 0; i < sizeof strangers / sizeof strangers[0]; i++)
    cr_assert_not(cs_id_twins(cs_str_c(strangers[i][0]), cs_str_c(strangers[i][1])), "%s / %s", strangers[i][0],
                  strangers[i][1]);
  cr_assert_not(cs_id_twins(CS_NULL_STR, cs_str_c("call_0")));
  cr_assert_not(cs_id_twins(CS_NULL_STR, CS_NULL_STR));
}

/* What normalize.injective feeds back besides the outputs themselves: each without the prefix a
 * normalizer puts in front, the longest that matches; nothing stripped when nothing would be left. */
Test(id_gen, output_prefix_stripped_takes_the_longest_prefix_and_keeps_a_rest) {
  const char *cases[][2] = {
      {"toolu_abc", "abc"}, {"toolu_bdrk_x1", "x1"},  {"hist_tool_AbC-9", "AbC-9"}, {"call_", "call_"},
      {"tooluse_q", "q"},   {"functions.f:0", "f:0"}, {"Jh60XbpzV", "Jh60XbpzV"},   {"", ""}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    cs_str got = cs_id_output_prefix_stripped(cs_str_c(cases[i][0]));
    cr_assert(cs_str_eq(got, cs_str_c(cases[i][1])), "%s: %.*s", cases[i][0], (int)got.len, got.ptr);
  }
  cr_assert_null(cs_id_output_prefix_stripped(CS_NULL_STR).ptr);
}
