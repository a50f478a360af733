/* tests/unit/test_transforms.c: the metamorphic transforms on hand-built and generated histories. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/history_json.h"
#include "generators/transforms.h"

#define S(lit)                                                                                                         \
  { lit, sizeof(lit) - 1 }

static cs_str json_of(const cs_history *h, cs_arena *a) {
  cs_buf b = {0};
  cs_history_write(&b, h);
  cs_str s = cs_arena_str(a, cs_buf_view(&b));
  cs_buf_free(&b);
  return s;
}

static cs_history parse(const char *json, cs_arena *a) {
  cs_history h;
  cs_err err = {{0}};
  cr_assert_eq(cs_history_parse(cs_str_c(json), NULL, a, &h, &err), 0, "%s", err.msg);
  return h;
}

static void gen(uint64_t seed, cs_choices *c, cs_arena *a, cs_gen_case *g) {
  cs_arena_reset(a);
  cs_choices_record(c, cs_seed_mix(seed));
  cs_gen_history(c, NULL, a, g);
}

static uint32_t assistants(const cs_history *h) {
  uint32_t n = 0;
  for (uint32_t t = 0; t < h->nturns; t++)
    n += h->turns[t].role == CS_ROLE_ASSISTANT;
  return n;
}

/* ---- append ---- */

Test(transforms, append_keeps_earlier_turns) {
  cs_arena a = {0};
  cs_choices c = {0}, c2 = {0}, r = {0};
  for (uint64_t s = 0; s < 1500; s++) {
    cs_gen_case g;
    gen(s, &c, &a, &g);
    cs_str before = json_of(&g.h, &a);
    cs_choices_record(&c2, s + 77);
    cs_history app = cs_transform_append(&g.h, &c2, NULL, &a);
    cr_assert(cs_str_eq(json_of(&g.h, &a), before), "the input is untouched");
    cr_assert_gt(app.nturns, g.h.nturns);
    cs_history prefix = {app.turns, g.h.nturns};
    cr_assert(cs_str_eq(json_of(&prefix, &a), before), "earlier turns are unchanged");
    cr_assert_gt(assistants(&app), assistants(&g.h), "at least one new assistant turn");
    cr_assert_gt(cs_history_ncalls(&app), cs_history_ncalls(&g.h));
    for (uint32_t t = g.h.nturns; t < app.nturns; t++) /* new keys (a join twin repeats an old one) */
      for (uint32_t u = 0; u < t; u++)
        if (app.turns[t].turn_key.ptr)
          cr_assert_not(cs_str_eq(app.turns[t].turn_key, app.turns[u].turn_key), "seed %llu: turn keys stay unique",
                        (unsigned long long)s);
    /* The appended part replays too. */
    cs_choices_replay(&r, c2.v, c2.n);
    cs_history again = cs_transform_append(&g.h, &r, NULL, &a);
    cr_assert(cs_str_eq(json_of(&again, &a), json_of(&app, &a)));
  }
  cs_arena_free(&a);
  cs_choices_free(&c);
  cs_choices_free(&c2);
  cs_choices_free(&r);
}

Test(transforms, append_all_zero_adds_one_plain_round) {
  cs_arena a = {0};
  cs_history h = parse("{\"turns\":[{\"role\":\"user\",\"text\":\"hi\"},{\"role\":\"assistant\",\"provider\":\"kimi\","
                       "\"turn_key\":\"t0\",\"calls\":[{\"id\":\"functions.glob:0\",\"name\":\"glob\"},{\"id\":null,"
                       "\"name\":\"glob\"}]},{\"role\":\"tool\",\"turn_key\":\"t7\",\"results\":[{\"call_id\":"
                       "\"functions.glob:0\",\"name\":\"glob\"}]}]}",
                       &a);
  cs_choices c = {0};
  cs_choices_replay(&c, NULL, 0);
  cs_history app = cs_transform_append(&h, &c, NULL, &a);
  cr_assert_eq(app.nturns, 5);
  const cs_turn *at = &app.turns[3], *tt = &app.turns[4];
  cr_assert_eq(at->role, CS_ROLE_ASSISTANT);
  cr_assert_eq(at->provider, CS_PROV_KIMI, "the provider carries on");
  cr_assert(cs_str_eq_c(at->turn_key, "t8"), "keys continue after the highest t<N>");
  cr_assert_eq(at->ncalls, 1);
  cr_assert(cs_str_eq_c(at->calls[0].id, "call_0"), "plain IDs restart in an appended turn");
  cr_assert_eq(tt->role, CS_ROLE_TOOL);
  cr_assert(cs_str_eq_c(tt->turn_key, "t9"));
  cr_assert(cs_str_eq_c(tt->results[0].call_id, "call_0"));
  cs_arena_free(&a);
  cs_choices_free(&c);
}

Test(transforms, gen_continue_labels_whole_history) {
  cs_arena a = {0};
  cs_choices c = {0};
  cs_history h = parse("{\"turns\":[{\"role\":\"assistant\",\"provider\":\"anthropic\",\"turn_key\":\"t0\",\"calls\":"
                       "[{\"id\":null,\"name\":\"glob\"}]}]}",
                       &a);
  cs_choices_replay(&c, NULL, 0);
  cs_gen_case g;
  cs_gen_continue(&c, NULL, &h, &a, &g);
  cr_assert(g.labels & CS_LABEL_BIT(CS_LABEL_ID_MISSING), "labels cover the earlier turns");
  cr_assert(g.labels & CS_LABEL_BIT(CS_LABEL_S_MULTI_TURN));
  cr_assert(g.labels & CS_LABEL_BIT(CS_LABEL_S_UNANSWERED));
  cr_assert_eq(g.rounds, 2);
  cr_assert_eq(g.ntwins, 0);

  /* The all-zero append repeats an earlier plain ID. */
  cs_history h0 = parse("{\"turns\":[{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"turn_key\":\"t0\","
                        "\"calls\":[{\"id\":\"call_0\",\"name\":\"read_file\"}]}]}",
                        &a);
  cs_choices_replay(&c, NULL, 0);
  cs_gen_continue(&c, NULL, &h0, &a, &g);
  cr_assert(g.labels & CS_LABEL_BIT(CS_LABEL_ID_DUP_ACROSS));
  cs_arena_free(&a);
  cs_choices_free(&c);
}

Test(transforms, append_continues_kimi_indices) {
  cs_arena a = {0};
  cs_choices c = {0}, c2 = {0};
  unsigned right = 0, wrong = 0;
  for (uint64_t s = 0; s < 2000; s++) {
    cs_gen_case g;
    gen(s, &c, &a, &g);
    cs_choices_record(&c2, s ^ 0xabc);
    cs_history app = cs_transform_append(&g.h, &c2, NULL, &a);
    uint32_t gi = 0;
    for (uint32_t t = 0; t < app.nturns; t++)
      for (uint32_t k = 0; k < app.turns[t].ncalls; k++, gi++) {
        cs_str id = app.turns[t].calls[k].id;
        if (t < g.h.nturns || !cs_str_starts(id, "functions."))
          continue;
        size_t colon = id.len;
        while (colon > 0 && id.ptr[colon - 1] != ':')
          colon--;
        unsigned long n = strtoul(cs_arena_str(&a, id).ptr + colon, NULL, 10);
        if (n == gi)
          right++;
        else
          wrong++;
      }
  }
  cr_assert_gt(right, 2 * wrong, "right %u, wrong %u: N is the index in the whole history", right, wrong);
  cs_arena_free(&a);
  cs_choices_free(&c);
  cs_choices_free(&c2);
}

/* ---- drop_leading ---- */

static const char *ROUNDS_JSON =
    "{\"turns\":[{\"role\":\"user\",\"text\":\"u\"},"
    "{\"role\":\"assistant\",\"provider\":\"anthropic\",\"turn_key\":\"A\",\"calls\":[{\"id\":\"a1\",\"name\":\"f\"},"
    "{\"id\":\"a2\",\"name\":\"f\"}]},"
    "{\"role\":\"tool\",\"turn_key\":\"At\",\"results\":[{\"call_id\":\"a1\",\"name\":\"f\"},{\"call_id\":\"a2\","
    "\"name\":\"f\"}]},"
    "{\"role\":\"user\",\"text\":\"more\"},"
    "{\"role\":\"assistant\",\"provider\":\"mistral\",\"turn_key\":\"B\",\"calls\":[{\"id\":\"b1\",\"name\":\"f\"}]},"
    "{\"role\":\"tool\",\"turn_key\":\"Bt\",\"results\":[{\"call_id\":\"b1\",\"name\":\"f\"}]},"
    "{\"role\":\"assistant\",\"provider\":\"kimi\",\"turn_key\":\"C\",\"calls\":[{\"id\":\"c1\",\"name\":\"f\"}]}]}";

static void expect_keys(const cs_history *h, const char *const *keys, uint32_t n) {
  cr_assert_eq(h->nturns, n);
  for (uint32_t t = 0; t < n; t++) {
    if (keys[t])
      cr_assert(cs_str_eq_c(h->turns[t].turn_key, keys[t]), "turn %u", t);
    else
      cr_assert_eq(h->turns[t].role, CS_ROLE_USER, "turn %u", t);
  }
}

Test(transforms, drop_leading_rounds) {
  cs_arena a = {0};
  cs_history h = parse(ROUNDS_JSON, &a);
  cs_str before = json_of(&h, &a);
  uint32_t co = 99, ro = 99;

  cs_history d0 = cs_transform_drop_leading(&h, 0, &a, &co, &ro);
  cr_assert(cs_str_eq(json_of(&d0, &a), before));
  cr_assert_eq(co, 0);
  cr_assert_eq(ro, 0);

  cs_history d1 = cs_transform_drop_leading(&h, 1, &a, &co, &ro);
  const char *k1[] = {NULL, "B", "Bt", "C"};
  expect_keys(&d1, k1, 4); /* round A took its tool turn and the user turn after it */
  cr_assert_eq(co, 2);
  cr_assert_eq(ro, 2);

  cs_history d2 = cs_transform_drop_leading(&h, 2, &a, &co, &ro);
  const char *k2[] = {NULL, "C"};
  expect_keys(&d2, k2, 2);
  cr_assert_eq(co, 3);
  cr_assert_eq(ro, 3);

  cs_history d9 = cs_transform_drop_leading(&h, 9, &a, &co, &ro);
  const char *k9[] = {NULL};
  expect_keys(&d9, k9, 1);
  cr_assert_eq(co, 4);
  cr_assert_eq(ro, 3);
  cr_assert(cs_str_eq(json_of(&h, &a), before), "the input is untouched");
  cs_arena_free(&a);
}

Test(transforms, drop_leading_keeps_turns_before_first_assistant) {
  cs_arena a = {0};
  cs_history h = parse("{\"turns\":[{\"role\":\"tool\",\"turn_key\":\"cut\",\"results\":[{\"call_id\":\"gone\","
                       "\"name\":\"f\"}]},{\"role\":\"user\",\"text\":\"u\"},"
                       "{\"role\":\"assistant\",\"provider\":\"gemini\",\"turn_key\":\"A\",\"calls\":[{\"id\":\"a\","
                       "\"name\":\"f\"}]},{\"role\":\"tool\",\"turn_key\":\"At\",\"results\":[{\"call_id\":\"a\","
                       "\"name\":\"f\"}]},{\"role\":\"assistant\",\"provider\":\"gemini\",\"turn_key\":\"B\","
                       "\"calls\":[{\"id\":\"b\",\"name\":\"f\"}]}]}",
                       &a);
  uint32_t co = 0, ro = 0;
  cs_history d = cs_transform_drop_leading(&h, 1, &a, &co, &ro);
  const char *keys[] = {"cut", NULL, "B"};
  expect_keys(&d, keys, 3);
  cr_assert_eq(co, 1);
  cr_assert_eq(ro, 2, "results of the leading turns count before the retained rounds");
  cs_history all = cs_transform_drop_leading(&h, 0, &a, NULL, NULL); /* the out-pointers may be NULL */
  cr_assert_eq(all.nturns, h.nturns);
  cs_arena_free(&a);
}

Test(transforms, drop_leading_offsets_on_generated) {
  cs_arena a = {0};
  cs_choices c = {0};
  for (uint64_t s = 0; s < 1000; s++) {
    cs_gen_case g;
    gen(s, &c, &a, &g);
    cs_history_index ix;
    cs_history_index_build(&g.h, &a, &ix);
    uint32_t lead_results = 0;
    for (uint32_t t = 0; t < g.h.nturns && g.h.turns[t].role != CS_ROLE_ASSISTANT; t++)
      lead_results += g.h.turns[t].nresults;
    for (uint32_t k = 0; k <= g.rounds + 1; k++) {
      uint32_t co = 0, ro = 0;
      cs_history d = cs_transform_drop_leading(&g.h, k, &a, &co, &ro);
      uint32_t left = k >= g.rounds ? 0 : g.rounds - k;
      cr_assert_eq(assistants(&d), left);
      cs_history_index dx;
      cs_history_index_build(&d, &a, &dx);
      cr_assert_eq(dx.ncalls, ix.ncalls - co);
      for (uint32_t i = 0; i < dx.ncalls; i++)
        cr_assert_eq(dx.calls[i], ix.calls[i + co], "seed %llu drop %u: call %u", (unsigned long long)s, k, i);
      cr_assert_eq(dx.nresults, lead_results + ix.nresults - ro);
      for (uint32_t i = 0; i < lead_results; i++)
        cr_assert_eq(dx.results[i], ix.results[i]);
      for (uint32_t i = lead_results; i < dx.nresults; i++)
        cr_assert_eq(dx.results[i], ix.results[i - lead_results + ro]);
    }
  }
  cs_arena_free(&a);
  cs_choices_free(&c);
}

/* ---- reingest ---- */

Test(transforms, reingest_sets_ids_and_removes_orphans) {
  cs_arena a = {0};
  cs_history h = parse(
      "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"anthropic\",\"turn_key\":\"t0\",\"calls\":["
      "{\"id\":\"a\",\"name\":\"f\"},{\"id\":null,\"name\":\"g\"},{\"id\":\"srvtoolu_01x\",\"name\":\"web_search\","
      "\"server\":true}]},{\"role\":\"tool\",\"turn_key\":\"t1\",\"results\":[{\"call_id\":\"a\",\"name\":\"f\"},"
      "{\"call_id\":\"nope\",\"name\":\"f\"},{\"call_id\":null,\"name\":\"g\",\"content\":\"x\"}]}]}",
      &a);
  cs_str before = json_of(&h, &a);
  cs_str calls[3] = {S("hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA"), S("hist_tool_BBBBBBBBBBBBBBBBBBBBBBBB"),
                     S("srvtoolu_01x")};
  cs_str results[3] = {S("hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA"), CS_NULL_STR, S("hist_tool_BBBBBBBBBBBBBBBBBBBBBBBB")};
  cs_answer canon = {calls, 3, results, 3};
  cs_history r = cs_transform_reingest(&h, &canon, &a);
  cr_assert(cs_str_eq(json_of(&h, &a), before), "the input is untouched");
  cr_assert_eq(r.nturns, 2);
  for (int i = 0; i < 3; i++)
    cr_assert(cs_str_eq(r.turns[0].calls[i].id, calls[i]));
  cr_assert(r.turns[0].calls[2].server);
  cr_assert_eq(r.turns[1].nresults, 2, "the orphan is removed");
  cr_assert(cs_str_eq(r.turns[1].results[0].call_id, calls[0]));
  cr_assert(cs_str_eq(r.turns[1].results[1].call_id, calls[1]));
  cr_assert(cs_str_eq_c(r.turns[1].results[1].name, "g"));
  cr_assert(cs_str_eq_c(r.turns[1].results[1].content, "x"), "payload is kept");
  cs_arena_free(&a);
}

Test(transforms, reingest_generated_keeps_pairing) {
  cs_arena a = {0};
  cs_choices c = {0};
  for (uint64_t s = 0; s < 1000; s++) {
    cs_gen_case g;
    gen(s, &c, &a, &g);
    cs_history_index ix;
    cs_history_index_build(&g.h, &a, &ix);
    /* A canonical answer: a distinct ID per call, each result its call's ID, orphans null. */
    cs_answer canon = cs_answer_new(ix.ncalls, ix.nresults, &a);
    for (uint32_t i = 0; i < ix.ncalls; i++)
      canon.calls[i] = cs_arena_printf(&a, "hist_tool_%024u", i);
    uint32_t paired = 0;
    for (uint32_t i = 0; i < ix.nresults; i++)
      if (ix.pair[i] >= 0) {
        canon.results[i] = canon.calls[ix.pair[i]];
        paired++;
      }
    cs_history r = cs_transform_reingest(&g.h, &canon, &a);
    cs_history_index rx;
    cs_history_index_build(&r, &a, &rx);
    cr_assert_eq(rx.ncalls, ix.ncalls);
    cr_assert_eq(rx.nresults, paired);
    uint32_t j = 0;
    for (uint32_t i = 0; i < ix.nresults; i++) {
      if (ix.pair[i] < 0)
        continue;
      cr_assert_eq(rx.pair[j], ix.pair[i], "seed %llu: result %u answers the same call", (unsigned long long)s, i);
      j++;
    }
  }
  cs_arena_free(&a);
  cs_choices_free(&c);
}

/* ---- relabel ---- */

Test(transforms, relabel_changes_only_providers) {
  cs_arena a = {0};
  cs_choices c = {0}, d = {0};
  bool changed = false;
  for (uint64_t s = 0; s < 300; s++) {
    cs_gen_case g;
    gen(s, &c, &a, &g);
    cs_str before = json_of(&g.h, &a);
    cs_choices_record(&d, s);
    cs_history r = cs_transform_relabel(&g.h, &d, &a);
    cr_assert(cs_str_eq(json_of(&g.h, &a), before));
    cr_assert_eq(r.nturns, g.h.nturns);
    for (uint32_t t = 0; t < r.nturns; t++) {
      cs_turn x = r.turns[t], y = g.h.turns[t];
      changed |= x.provider != y.provider;
      cr_assert_lt(x.provider, CS_PROVIDER_COUNT);
      x.provider = y.provider;
      cr_assert_eq(memcmp(&x, &y, sizeof x), 0, "only the provider differs");
    }
  }
  cr_assert(changed);
  /* All zero: every assistant turn becomes anthropic. */
  cs_history h = parse(ROUNDS_JSON, &a);
  cs_choices_replay(&d, NULL, 0);
  cs_history r = cs_transform_relabel(&h, &d, &a);
  for (uint32_t t = 0; t < r.nturns; t++)
    if (r.turns[t].role == CS_ROLE_ASSISTANT)
      cr_assert_eq(r.turns[t].provider, CS_PROV_ANTHROPIC);
  cs_arena_free(&a);
  cs_choices_free(&c);
  cs_choices_free(&d);
}

/* ---- plant ---- */

Test(transforms, plant_updates_call_and_its_results) {
  cs_arena a = {0};
  cs_history h = parse("{\"turns\":[{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"turn_key\":\"t0\","
                       "\"calls\":[{\"id\":\"x\",\"name\":\"f\"},{\"id\":\"y\",\"name\":\"g\"},{\"id\":\"x\","
                       "\"name\":\"f\"},{\"id\":\"z\",\"name\":\"h\"}]},"
                       "{\"role\":\"tool\",\"turn_key\":\"t1\",\"results\":[{\"call_id\":\"x\",\"name\":\"f\"},"
                       "{\"call_id\":\"y\",\"name\":\"g\"},{\"call_id\":\"x\",\"name\":\"f\"},{\"call_id\":\"\","
                       "\"name\":\"h\"}]}]}",
                       &a);
  cs_str before = json_of(&h, &a);

  cs_history p = cs_transform_plant(&h, 0, cs_str_c("P"), &a);
  cr_assert(cs_str_eq(json_of(&h, &a), before), "the input is untouched");
  cr_assert(cs_str_eq_c(p.turns[0].calls[0].id, "P"));
  cr_assert(cs_str_eq_c(p.turns[0].calls[2].id, "x"));
  cr_assert(cs_str_eq_c(p.turns[1].results[0].call_id, "P"), "the result that answered call 0");
  cr_assert(cs_str_eq_c(p.turns[1].results[2].call_id, "x"), "the duplicate's result stays");

  cs_history q = cs_transform_plant(&h, 2, cs_str_c("Q"), &a);
  cr_assert(cs_str_eq_c(q.turns[0].calls[2].id, "Q"));
  cr_assert(cs_str_eq_c(q.turns[1].results[0].call_id, "x"));
  cr_assert(cs_str_eq_c(q.turns[1].results[2].call_id, "Q"));

  cs_history r = cs_transform_plant(&h, 3, cs_str_c("R"), &a);
  cr_assert(cs_str_eq_c(r.turns[0].calls[3].id, "R"));
  cr_assert(cs_str_eq_c(r.turns[1].results[3].call_id, ""), "a positional result keeps its blank call_id");

  cs_history same = cs_transform_plant(&h, 99, cs_str_c("S"), &a);
  cr_assert(cs_str_eq(json_of(&same, &a), before), "an out-of-range call changes nothing");
  cr_assert(cs_str_eq(json_of(&h, &a), before));
  cs_arena_free(&a);
}

Test(transforms, plant_generated_keeps_pairing) {
  cs_arena a = {0};
  cs_choices c = {0};
  for (uint64_t s = 0; s < 1000; s++) {
    cs_gen_case g;
    gen(s, &c, &a, &g);
    cs_history_index ix;
    cs_history_index_build(&g.h, &a, &ix);
    uint32_t call = (uint32_t)(cs_seed_mix(s) % ix.ncalls);
    cs_str raw = cs_arena_printf(&a, "planted-%u", call);
    cs_history p = cs_transform_plant(&g.h, call, raw, &a);
    cs_history_index px;
    cs_history_index_build(&p, &a, &px);
    cr_assert(cs_str_eq(px.calls[call]->id, raw));
    for (uint32_t i = 0; i < ix.ncalls; i++)
      if (i != call)
        cr_assert(cs_str_eq(px.calls[i]->id, ix.calls[i]->id));
    for (uint32_t r = 0; r < ix.nresults; r++) {
      bool by_id = ix.pair[r] == (int32_t)call && !cs_str_is_blank(ix.results[r]->call_id);
      cr_assert(cs_str_eq(px.results[r]->call_id, by_id ? raw : ix.results[r]->call_id));
      if (by_id)
        cr_assert_eq(px.pair[r], (int32_t)call, "seed %llu: it still answers the planted call", (unsigned long long)s);
    }
  }
  cs_arena_free(&a);
  cs_choices_free(&c);
}

/* ---- the history as Kimi produced it ---- */

Test(transforms, kimi_native_numbers_answered_calls_across_turns) {
  cs_arena a = {0};
  /* Turn 1: a server call and an unanswered one are left out; turn 2 continues the numbering; an
   * orphan result goes, a positional one takes its call's Kimi ID; a name Kimi refuses is cleaned. */
  cs_history h = parse("{\"turns\":[{\"role\":\"user\",\"text\":\"go\"},"
                       "{\"role\":\"assistant\",\"provider\":\"anthropic\",\"turn_key\":\"t0\",\"calls\":["
                       "{\"id\":\"srvtoolu_01a\",\"name\":\"web_search\",\"args\":{},\"server\":true},"
                       "{\"id\":\"toolu_a\",\"name\":\"my tool\",\"args\":{}},"
                       "{\"id\":\"toolu_b\",\"name\":\"glob\",\"args\":{}}]},"
                       "{\"role\":\"tool\",\"turn_key\":\"t1\",\"results\":["
                       "{\"call_id\":\"toolu_a\",\"name\":\"my tool\",\"content\":\"x\"},"
                       "{\"call_id\":\"nothing\",\"name\":\"glob\",\"content\":\"y\"}]},"
                       "{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"turn_key\":\"t2\",\"calls\":["
                       "{\"id\":\"call_c\",\"name\":\"read_file\",\"args\":{}}]},"
                       "{\"role\":\"tool\",\"turn_key\":\"t3\",\"results\":["
                       "{\"call_id\":null,\"name\":\"read_file\",\"content\":\"z\"}]}]}",
                       &a);
  cs_history_index ix;
  cs_history_index_build(&h, &a, &ix);
  cs_history k = cs_transform_kimi_native(&h, &ix, &a);
  cr_assert_str_eq(json_of(&k, &a).ptr,
                   "{\"turns\":[{\"role\":\"user\",\"text\":\"go\"},"
                   "{\"role\":\"assistant\",\"provider\":\"kimi\",\"turn_key\":\"t0\",\"calls\":["
                   "{\"id\":\"functions.my_tool:0\",\"name\":\"my_tool\",\"args\":{}}]},"
                   "{\"role\":\"tool\",\"turn_key\":\"t1\",\"results\":["
                   "{\"call_id\":\"functions.my_tool:0\",\"name\":\"my_tool\",\"content\":\"x\"}]},"
                   "{\"role\":\"assistant\",\"provider\":\"kimi\",\"turn_key\":\"t2\",\"calls\":["
                   "{\"id\":\"functions.read_file:1\",\"name\":\"read_file\",\"args\":{}}]},"
                   "{\"role\":\"tool\",\"turn_key\":\"t3\",\"results\":["
                   "{\"call_id\":\"functions.read_file:1\",\"name\":\"read_file\",\"content\":\"z\"}]}]}");
  /* the input is left as it was */
  cr_assert_str_eq(h.turns[1].calls[1].id.ptr, "toolu_a");
  cr_assert_eq(h.turns[1].ncalls, 3);
  cs_arena_free(&a);
}
