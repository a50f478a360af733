/* tests/unit/test_history.c: core/history.c: names, totals, the document-order index and
 * PROTOCOL.md's pairing rule, on hand-built histories and, against the rule written out plainly,
 * on generated ones. */
#include <criterion/criterion.h>
#include <string.h>

#include "core/history.h"
#include "generators/history_gen.h"

#include <stdio.h>
#include <stdlib.h>

#define N(arr) ((uint32_t)(sizeof(arr) / sizeof((arr)[0])))
#define S(s) cs_str_c(s) /* S(NULL) is a null string */
#define CALL(id, name)                                                                                                 \
  { S(id), S(name), CS_NULL_STR, false }
#define SERVER(id, name)                                                                                               \
  { S(id), S(name), CS_NULL_STR, true }
#define RES(call_id, name)                                                                                             \
  { S(call_id), S(name), CS_NULL_STR, false }
#define ASSIST(calls)                                                                                                  \
  { CS_ROLE_ASSISTANT, CS_PROV_UNKNOWN, CS_NULL_STR, CS_NULL_STR, calls, N(calls), NULL, 0, false }
#define TOOL(results)                                                                                                  \
  { CS_ROLE_TOOL, CS_PROV_UNKNOWN, CS_NULL_STR, CS_NULL_STR, NULL, 0, results, N(results), false }
#define USER                                                                                                           \
  { CS_ROLE_USER, CS_PROV_UNKNOWN, CS_NULL_STR, S("hi"), NULL, 0, NULL, 0, false }

static cs_arena A;
static void setup(void) {
  memset(&A, 0, sizeof A);
}
static void teardown(void) {
  cs_arena_free(&A);
}
TestSuite(history, .init = setup, .fini = teardown);

static cs_history_index index_of(cs_turn *turns, uint32_t n) {
  cs_history h = {turns, n};
  cs_history_index ix;
  cs_history_index_build(&h, &A, &ix);
  return ix;
}

/* Asserts the pairing of every result against `expect` (global call index or -1) and that
 * `answers` agrees with it. */
static void expect_pairs(const cs_history_index *ix, const int32_t *expect, uint32_t n) {
  cr_assert_eq(ix->nresults, n);
  uint32_t count[64] = {0};
  for (uint32_t r = 0; r < n; r++) {
    cr_assert_eq(ix->pair[r], expect[r], "result %u pairs with %d, expected %d", r, ix->pair[r], expect[r]);
    if (expect[r] >= 0)
      count[expect[r]]++;
  }
  for (uint32_t c = 0; c < ix->ncalls; c++)
    cr_assert_eq(ix->answers[c], count[c], "call %u answered %u times", c, ix->answers[c]);
}

Test(history, provider_and_role_names) {
  const char *names[] = {"anthropic", "openai_chat", "openai_responses", "mistral", "kimi", "gemini", "bedrock",
                         "adk",       "aisdk",       "unknown"};
  for (int p = 0; p < CS_PROVIDER_COUNT; p++) {
    cr_assert_str_eq(cs_provider_name((cs_provider)p), names[p]);
    cr_assert_eq(cs_provider_parse(S(names[p])), p);
  }
  cr_assert_eq(CS_PROVIDER_TARGETS, 7);
  cr_assert_eq(cs_provider_parse(S("Anthropic")), -1, "names are case-sensitive");
  cr_assert_eq(cs_provider_parse(S("")), -1);
  cr_assert_eq(cs_provider_parse(CS_NULL_STR), -1);
  cr_assert_eq(cs_provider_parse(cs_str_n("kimix", 4)), CS_PROV_KIMI, "length-delimited, not NUL-delimited");
  cr_assert_str_eq(cs_provider_name((cs_provider)99), "unknown");
  cr_assert_str_eq(cs_role_name(CS_ROLE_SYSTEM), "system");
  cr_assert_str_eq(cs_role_name(CS_ROLE_USER), "user");
  cr_assert_str_eq(cs_role_name(CS_ROLE_ASSISTANT), "assistant");
  cr_assert_str_eq(cs_role_name(CS_ROLE_TOOL), "tool");
}

Test(history, index_flattens_in_document_order) {
  cs_call c1[] = {CALL("a", "f"), CALL("b", "g")};
  cs_call c2[] = {CALL("c", "h")};
  cs_result r1[] = {RES("b", "g"), RES("a", "f")};
  cs_result r2[] = {RES("c", "h")};
  cs_turn t[] = {USER, ASSIST(c1), TOOL(r1), USER, ASSIST(c2), TOOL(r2)};
  cs_history h = {t, N(t)};
  cr_assert_eq(cs_history_ncalls(&h), 3);
  cr_assert_eq(cs_history_nresults(&h), 3);
  cs_history_index ix = index_of(t, N(t));
  cr_assert_eq(ix.ncalls, 3);
  cr_assert_eq(ix.calls[0], &c1[0]);
  cr_assert_eq(ix.calls[1], &c1[1]);
  cr_assert_eq(ix.calls[2], &c2[0]);
  cr_assert_eq(ix.call_turn[0], 1);
  cr_assert_eq(ix.call_turn[2], 4);
  cr_assert_eq(ix.call_pos[1], 1);
  cr_assert_eq(ix.call_pos[2], 0);
  cr_assert_eq(ix.results[0], &r1[0]);
  cr_assert_eq(ix.results[2], &r2[0]);
  cr_assert_eq(ix.result_turn[1], 2);
  cr_assert_eq(ix.result_turn[2], 5);
  int32_t expect[] = {1, 0, 2};
  expect_pairs(&ix, expect, 3);
}

Test(history, empty_history) {
  cs_history_index ix = index_of(NULL, 0);
  cr_assert_eq(ix.ncalls, 0);
  cr_assert_eq(ix.nresults, 0);
}

/* Rule 1: a non-empty call_id answers the earliest unanswered call with a byte-identical id,
 * across turns. */
Test(history, rule1_earliest_unanswered_identical_id_across_turns) {
  cs_call c1[] = {CALL("call_0", "f"), CALL("x", "f")};
  cs_call c2[] = {CALL("call_0", "f")};
  cs_call c3[] = {CALL("call_0", "g")};
  /* Nothing answers turn 0's calls before turn 2 comes: the first call_0 result goes to call 0. */
  cs_result r1[] = {RES("call_0", "f"), RES("call_0", "f")};
  cs_result r2[] = {RES("call_0", "zzz")};
  cs_turn t[] = {ASSIST(c1), ASSIST(c2), TOOL(r1), ASSIST(c3), TOOL(r2)};
  cs_history_index ix = index_of(t, N(t));
  /* results: call_0 -> call 0 (earliest), call_0 -> call 2 (turn 1), call_0 -> call 3 (name is
   * irrelevant under rule 1). */
  int32_t expect[] = {0, 2, 3};
  expect_pairs(&ix, expect, 3);
}

Test(history, rule1_is_byte_exact) {
  cs_call c[] = {CALL("Call_1", "f"), CALL("call_1", "f"), CALL("call_1 ", "f")};
  cs_result r[] = {RES("call_1", "f"), RES("CALL_1", "f"), RES("call_1 ", "f"), RES("Call_1", "f")};
  cs_turn t[] = {ASSIST(c), TOOL(r)};
  cs_history_index ix = index_of(t, N(t));
  int32_t expect[] = {1, -1, 2, 0};
  expect_pairs(&ix, expect, 4);
}

Test(history, rule1_never_answers_a_later_call) {
  cs_result r0[] = {RES("a", "f")};
  cs_call c[] = {CALL("a", "f")};
  cs_result r1[] = {RES("a", "f")};
  cs_turn t[] = {TOOL(r0), ASSIST(c), TOOL(r1)};
  cs_history_index ix = index_of(t, N(t));
  int32_t expect[] = {-1, 0};
  expect_pairs(&ix, expect, 2);
}

/* A result whose call_id matches only an already answered call is an orphan (duplicate result). */
Test(history, duplicate_result_is_orphan) {
  cs_call c[] = {CALL("a", "f"), CALL("b", "f")};
  cs_result r[] = {RES("a", "f"), RES("a", "f"), RES("b", "f")};
  cs_result r2[] = {RES("b", "f"), RES("a", "f")};
  cs_turn t[] = {ASSIST(c), TOOL(r), TOOL(r2)};
  cs_history_index ix = index_of(t, N(t));
  int32_t expect[] = {0, -1, 1, -1, -1};
  expect_pairs(&ix, expect, 5);
}

/* A non-empty call_id that matches nothing is an orphan even if a same-name call is unanswered:
 * rule 2 applies only to null and empty call_ids. */
Test(history, unknown_id_is_orphan_not_positional) {
  cs_call c[] = {CALL("a", "f")};
  cs_result r[] = {RES("nope", "f")};
  cs_turn t[] = {ASSIST(c), TOOL(r)};
  cs_history_index ix = index_of(t, N(t));
  int32_t expect[] = {-1};
  expect_pairs(&ix, expect, 1);
}

/* Rule 2: null AND empty call_id -> earliest unanswered call of the most recent assistant turn with
 * the same name. */
Test(history, rule2_null_and_empty_pair_by_name_in_most_recent_turn) {
  cs_call c1[] = {CALL("old", "read"), CALL("old2", "read")};
  cs_call c2[] = {CALL("p", "read"), CALL(NULL, "glob"), CALL("", "read"), CALL("q", "read")};
  cs_result r[] = {RES(NULL, "read"), RES("", "read"),   RES(NULL, "glob"),
                   RES("", "read"),   RES(NULL, "read"), RES(NULL, "glob")};
  cs_turn t[] = {ASSIST(c1), ASSIST(c2), TOOL(r)};
  cs_history_index ix = index_of(t, N(t));
  /* Turn 1 holds calls 2..5. read -> 2, 4, 5 in order; glob -> 3; then nothing left: orphans, and
   * the unanswered calls of turn 0 are never considered. */
  int32_t expect[] = {2, 4, 3, 5, -1, -1};
  expect_pairs(&ix, expect, 6);
  cr_assert_eq(ix.answers[0], 0);
  cr_assert_eq(ix.answers[1], 0);
}

Test(history, rule2_skips_calls_answered_by_id) {
  cs_call c[] = {CALL("a", "f"), CALL("b", "f"), CALL("c", "f")};
  cs_result r[] = {RES("a", "f"), RES(NULL, "f"), RES("c", "f"), RES("", "f")};
  cs_turn t[] = {ASSIST(c), TOOL(r)};
  cs_history_index ix = index_of(t, N(t));
  int32_t expect[] = {0, 1, 2, -1};
  expect_pairs(&ix, expect, 4);
}

Test(history, rule2_uses_the_most_recent_turn_only) {
  cs_call c1[] = {CALL("a", "f")};
  cs_call c2[] = {CALL("b", "g")};
  cs_result r[] = {RES(NULL, "f"), RES(NULL, "g")};
  cs_turn t[] = {ASSIST(c1), USER, ASSIST(c2), USER, TOOL(r)};
  cs_history_index ix = index_of(t, N(t));
  /* f's call lives in an older assistant turn: orphan. */
  int32_t expect[] = {-1, 1};
  expect_pairs(&ix, expect, 2);
}

Test(history, rule2_most_recent_turn_without_calls_orphans) {
  cs_call c1[] = {CALL("a", "f")};
  cs_turn empty = {CS_ROLE_ASSISTANT, CS_PROV_UNKNOWN, CS_NULL_STR, S("thinking"), NULL, 0, NULL, 0, false};
  cs_result r[] = {RES(NULL, "f")};
  cs_turn t[] = {ASSIST(c1), empty, TOOL(r)};
  cs_history_index ix = index_of(t, N(t));
  int32_t expect[] = {-1};
  expect_pairs(&ix, expect, 1);
}

Test(history, rule2_with_no_assistant_turn_yet) {
  cs_result r[] = {RES(NULL, "f"), RES("", "f")};
  cs_turn t[] = {USER, TOOL(r)};
  cs_history_index ix = index_of(t, N(t));
  int32_t expect[] = {-1, -1};
  expect_pairs(&ix, expect, 2);
}

Test(history, rule2_name_is_byte_exact) {
  cs_call c[] = {CALL(NULL, "Read"), CALL(NULL, "read")};
  cs_result r[] = {RES(NULL, "read"), RES(NULL, "READ")};
  cs_turn t[] = {ASSIST(c), TOOL(r)};
  cs_history_index ix = index_of(t, N(t));
  int32_t expect[] = {1, -1};
  expect_pairs(&ix, expect, 2);
}

/* A blank call_id never matches a call with an empty id under rule 1: "" results are positional. */
Test(history, empty_call_ids_are_positional_not_identical) {
  cs_call c1[] = {CALL("", "f")};
  cs_call c2[] = {CALL("", "g")};
  cs_result r[] = {RES("", "f"), RES("", "g")};
  cs_turn t[] = {ASSIST(c1), ASSIST(c2), TOOL(r)};
  cs_history_index ix = index_of(t, N(t));
  int32_t expect[] = {-1, 1};
  expect_pairs(&ix, expect, 2);
}

Test(history, server_calls_are_never_answered) {
  cs_call c[] = {SERVER("srvtoolu_01", "web_search"), CALL("srvtoolu_01", "web_search"),
                 SERVER("srvtoolu_02", "web_search")};
  cs_result r[] = {RES("srvtoolu_01", "web_search"), RES("srvtoolu_02", "web_search"), RES(NULL, "web_search"),
                   RES("srvtoolu_01", "web_search")};
  cs_turn t[] = {ASSIST(c), TOOL(r)};
  cs_history_index ix = index_of(t, N(t));
  /* The identical non-server call 1 takes the first result; the server calls take none, not even
   * positionally. */
  int32_t expect[] = {1, -1, -1, -1};
  expect_pairs(&ix, expect, 4);
  cr_assert_eq(ix.answers[0], 0);
  cr_assert_eq(ix.answers[2], 0);
}

Test(history, unanswered_and_orphans_mixed) {
  cs_call c1[] = {CALL("a", "f"), CALL("b", "g"), CALL(NULL, "h")};
  cs_result r1[] = {RES("zz", "f"), RES(NULL, "h"), RES(NULL, "h")};
  cs_call c2[] = {CALL("a", "f")};
  cs_result r2[] = {RES("a", "f"), RES("a", "f"), RES("b", "g")};
  cs_turn t[] = {ASSIST(c1), TOOL(r1), ASSIST(c2), TOOL(r2)};
  cs_history_index ix = index_of(t, N(t));
  /* zz orphan; h -> 2; second h orphan; a -> 0 (earliest, still unanswered), a -> 3, b -> 1. */
  int32_t expect[] = {-1, 2, -1, 0, 3, 1};
  expect_pairs(&ix, expect, 6);
}

/* Calls on a turn that is not an assistant turn (only possible when built by hand) are still
 * indexed: the index never holds fewer calls than cs_history_ncalls counts. */
Test(history, calls_on_other_roles_are_indexed) {
  cs_call c[] = {CALL("a", "f")};
  cs_turn odd = {CS_ROLE_USER, CS_PROV_UNKNOWN, CS_NULL_STR, CS_NULL_STR, c, 1, NULL, 0, false};
  cs_result r[] = {RES("a", "f")};
  cs_turn t[] = {odd, TOOL(r)};
  cs_history_index ix = index_of(t, N(t));
  cr_assert_eq(ix.ncalls, 1);
  cr_assert_eq(ix.calls[0], &c[0]);
  int32_t expect[] = {0};
  expect_pairs(&ix, expect, 1);
}

Test(history, clone_is_deep_and_equal) {
  char id[] = "call_1", name[] = "read";
  cs_call c[] = {{cs_str_c(id), cs_str_c(name), S("{\"p\":1}"), true}, CALL(NULL, "g")};
  cs_result r[] = {{S(""), S("g"), S("out"), false}};
  cs_turn t[] = {{CS_ROLE_ASSISTANT, CS_PROV_KIMI, S("k1"), S("txt"), c, 2, NULL, 0, false}, TOOL(r)};
  cs_history h = {t, N(t)};
  cs_arena other = {0};
  cs_history k = cs_history_clone(&h, &other);
  id[0] = 'X';
  name[0] = 'X';
  cr_assert_eq(k.nturns, 2);
  cr_assert_eq(k.turns[0].provider, CS_PROV_KIMI);
  cr_assert(cs_str_eq_c(k.turns[0].turn_key, "k1"));
  cr_assert(cs_str_eq_c(k.turns[0].text, "txt"));
  cr_assert(cs_str_eq_c(k.turns[0].calls[0].id, "call_1"), "the clone does not share bytes");
  cr_assert(cs_str_eq_c(k.turns[0].calls[0].name, "read"));
  cr_assert(cs_str_eq_c(k.turns[0].calls[0].args, "{\"p\":1}"));
  cr_assert(k.turns[0].calls[0].server);
  cr_assert(cs_str_is_null(k.turns[0].calls[1].id), "null stays null");
  cr_assert_neq(k.turns[0].calls, c);
  cr_assert(cs_str_eq_c(k.turns[1].results[0].call_id, ""), "empty stays empty, not null");
  cr_assert(cs_str_is_null(k.turns[1].text));
  cr_assert(cs_str_eq_c(k.turns[1].results[0].content, "out"));
  cs_arena_free(&other);
}

Test(history, answers) {
  cs_answer x = cs_answer_new(2, 1, &A), y = cs_answer_new(2, 1, &A);
  cr_assert(cs_str_is_null(x.calls[0]));
  cr_assert(cs_str_is_null(x.results[0]));
  cr_assert(cs_answer_eq(&x, &y));
  x.calls[1] = S("a");
  cr_assert_not(cs_answer_eq(&x, &y));
  y.calls[1] = S("a");
  cr_assert(cs_answer_eq(&x, &y));
  x.results[0] = S("");
  cr_assert_not(cs_answer_eq(&x, &y), "\"\" differs from null");
  y.results[0] = S("");
  cr_assert(cs_answer_eq(&x, &y));
  cs_answer z = cs_answer_new(2, 0, &A);
  cr_assert_not(cs_answer_eq(&x, &z), "different shapes differ");
}

/* Results take their call's answer; an orphan gets null, even when calls have answers. */
Test(history, answer_pair_results) {
  cs_call c1[] = {CALL("a", "glob"), CALL("b", "glob")};
  cs_result r1[] = {RES("b", "glob"), RES("zz", "glob"), RES("a", "glob")};
  cs_turn turns[] = {ASSIST(c1), TOOL(r1)};
  cs_history_index ix = index_of(turns, N(turns));
  cs_answer ans = cs_answer_new(ix.ncalls, ix.nresults, &A);
  ans.calls[0] = S("wire_a");
  ans.calls[1] = S("wire_b");
  ans.results[1] = S("stale");
  cs_answer_pair_results(&ans, &ix);
  cr_assert(cs_str_eq_c(ans.results[0], "wire_b"));
  cr_assert(cs_str_is_null(ans.results[1]), "an orphan's answer is null");
  cr_assert(cs_str_eq_c(ans.results[2], "wire_a"));
}

/* PROTOCOL.md's pairing rule written out plainly, call by call (no lists kept): the index's
 * pairing must agree with it on generated histories, which mix every structural pathology. */
static void pairing_by_the_rule(const cs_history *h, int32_t *pair, uint32_t nr, uint32_t nc) {
  uint8_t *answered = calloc(nc + 1, 1);
  const cs_call **calls = calloc(nc + 1, sizeof *calls);
  uint32_t ci = 0, ri = 0;
  int64_t first = -1, end = -1;
  for (uint32_t t = 0; t < h->nturns; t++) {
    const cs_turn *turn = &h->turns[t];
    if (turn->role == CS_ROLE_ASSISTANT || turn->ncalls) {
      first = ci;
      for (uint32_t k = 0; k < turn->ncalls; k++)
        calls[ci++] = &turn->calls[k];
      end = ci;
    }
    for (uint32_t k = 0; k < turn->nresults && ri < nr; k++, ri++) {
      const cs_result *r = &turn->results[k];
      int32_t match = -1;
      bool blank = !r->call_id.ptr || r->call_id.len == 0;
      for (int64_t c = blank ? first : 0; c >= 0 && c < (blank ? end : (int64_t)ci) && match < 0; c++) {
        if (answered[c] || calls[c]->server)
          continue;
        cs_str mine = blank ? calls[c]->name : calls[c]->id, theirs = blank ? r->name : r->call_id;
        if (mine.ptr && theirs.ptr && mine.len == theirs.len && memcmp(mine.ptr, theirs.ptr, mine.len) == 0)
          match = (int32_t)c;
      }
      pair[ri] = match;
      if (match >= 0)
        answered[match] = 1;
    }
  }
  free(answered);
  free(calls);
}

Test(history, pairing_agrees_with_the_rule_on_generated_histories) {
  cs_choices ch = {0};
  cs_gen_config gc = {.max_id_len = 200};
  uint32_t paired = 0, orphans = 0, positional = 0;
  for (uint64_t seed = 1; seed <= 20000; seed++) {
    cs_choices_record(&ch, seed);
    cs_gen_case g;
    cs_gen_history(&ch, &gc, &A, &g);
    cs_history_index ix;
    cs_history_index_build(&g.h, &A, &ix);
    int32_t *want = calloc(ix.nresults + 1, sizeof *want);
    pairing_by_the_rule(&g.h, want, ix.nresults, ix.ncalls);
    for (uint32_t r = 0; r < ix.nresults; r++) {
      cr_assert_eq(ix.pair[r], want[r], "seed %llu, result %u: index pairs it with %d, the rule with %d",
                   (unsigned long long)seed, r, ix.pair[r], want[r]);
      paired += want[r] >= 0;
      orphans += want[r] < 0;
      positional += want[r] >= 0 && cs_str_is_blank(ix.results[r]->call_id);
    }
    free(want);
    cs_arena_reset(&A);
  }
  cs_choices_free(&ch);
  /* The histories must exercise every branch of the rule. */
  cr_assert_gt(paired, 10000);
  cr_assert_gt(orphans, 1000);
  cr_assert_gt(positional, 1000);
}

/* Large histories pair through lookups by ID and by name instead of scans (a hostile file of 10^5
 * calls must not take minutes): the same rule. Generated histories joined end to end give large
 * ones with repeated IDs and names across turns, positional results and orphans. */
Test(history, large_histories_pair_by_the_same_rule) {
  cs_choices ch = {0};
  cs_gen_config gc = {.max_id_len = 12};
  uint32_t large = 0, positional = 0, orphans = 0;
  for (uint64_t seed = 1; seed <= 400; seed++) {
    cs_turn *turns = NULL;
    uint32_t nturns = 0;
    for (uint64_t k = 0; k < 24; k++) {
      cs_choices_record(&ch, seed * 1000 + k);
      cs_gen_case g;
      cs_gen_history(&ch, &gc, &A, &g);
      turns = realloc(turns, (nturns + g.h.nturns + 1) * sizeof *turns);
      cr_assert_not_null(turns);
      memcpy(turns + nturns, g.h.turns, g.h.nturns * sizeof *turns);
      nturns += g.h.nturns;
    }
    cs_history h = {turns, nturns};
    cs_history_index ix;
    cs_history_index_build(&h, &A, &ix);
    large += ix.ncalls > 64;
    int32_t *want = calloc(ix.nresults + 1, sizeof *want);
    pairing_by_the_rule(&h, want, ix.nresults, ix.ncalls);
    uint32_t *count = calloc(ix.ncalls + 1, sizeof *count);
    for (uint32_t r = 0; r < ix.nresults; r++) {
      cr_assert_eq(ix.pair[r], want[r], "seed %llu, result %u: index pairs it with %d, the rule with %d",
                   (unsigned long long)seed, r, ix.pair[r], want[r]);
      positional += want[r] >= 0 && cs_str_is_blank(ix.results[r]->call_id);
      orphans += want[r] < 0;
      if (want[r] >= 0)
        count[want[r]]++;
    }
    for (uint32_t c = 0; c < ix.ncalls; c++)
      cr_assert_eq(ix.answers[c], count[c], "seed %llu, call %u", (unsigned long long)seed, c);
    free(count);
    free(want);
    free(turns);
    cs_arena_reset(&A);
  }
  cs_choices_free(&ch);
  cr_assert_gt(large, 350, "only %u of the joined histories were large", large);
  cr_assert_gt(positional, 1000);
  cr_assert_gt(orphans, 1000);
}

/* 10^5 calls answered in reverse order, and 10^5 results of one ID: fast (seconds would be a
 * regression to the quadratic scan, which took minutes; the bound is generous for sanitizers). */
Test(history, large_histories_pair_in_near_linear_time, .timeout = 20) {
  enum { NC = 100000 };
  cs_call *calls = calloc(NC, sizeof *calls);
  cs_result *results = calloc(NC, sizeof *results);
  char(*ids)[16] = calloc(NC, sizeof *ids);
  for (uint32_t i = 0; i < NC; i++) {
    snprintf(ids[i], sizeof ids[i], "c%u", i);
    calls[i] = (cs_call){S(ids[i]), S("x"), CS_NULL_STR, false};
    results[NC - 1 - i] = (cs_result){.call_id = S(ids[i]), .name = S("x"), .content = CS_NULL_STR};
  }
  cs_turn turns[2] = {{CS_ROLE_ASSISTANT, CS_PROV_UNKNOWN, CS_NULL_STR, CS_NULL_STR, calls, NC, NULL, 0, false},
                      {CS_ROLE_TOOL, CS_PROV_UNKNOWN, CS_NULL_STR, CS_NULL_STR, NULL, 0, results, NC, false}};
  cs_history_index ix = index_of(turns, 2);
  for (uint32_t r = 0; r < NC; r++)
    cr_assert_eq(ix.pair[r], (int32_t)(NC - 1 - r));
  for (uint32_t i = 0; i < NC; i++) { /* one ID for all, then positional: earliest open first */
    calls[i].id = S("same");
    results[i] = (cs_result){.call_id = i % 2 ? S("same") : CS_NULL_STR, .name = S("x"), .content = CS_NULL_STR};
  }
  ix = index_of(turns, 2);
  for (uint32_t r = 0; r < NC; r++)
    cr_assert_eq(ix.pair[r], (int32_t)r, "result %u pairs with %d", r, ix.pair[r]);
  free(ids);
  free(results);
  free(calls);
}
