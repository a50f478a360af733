/* tests/unit/test_builtins.c: the built-in implementations: the registry, the in-process exec
 * (rejections), and each built-in's documented behaviour, its specific bug included. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "impls/impl.h"
#include "providers/canonical.h"
#include "providers/rule.h"

/* ---- fixture: one arena and one ruleset per test ---- */

static cs_arena arena;
static cs_ruleset *rules;

static void setup(void) {
  memset(&arena, 0, sizeof arena);
  cs_err err;
  rules = cs_ruleset_new(&err);
  cr_assert_not_null(rules, "%s", err.msg);
}

static void teardown(void) {
  cs_ruleset_free(rules);
  cs_arena_free(&arena);
}

TestSuite(builtins, .init = setup, .fini = teardown);

static cs_impl *make(const char *name) {
  const cs_builtin *b = cs_builtin_find(name);
  cr_assert_not_null(b, "built-in %s not found", name);
  cs_impl_env env = {rules, 42};
  cs_err err;
  cs_impl *im = b->create(&env, &err);
  cr_assert_not_null(im, "%s: %s", name, err.msg);
  return im;
}

/* ---- history builder ---- */

typedef struct {
  cs_history h;
} hb;

static void hb_init(hb *b) {
  b->h.turns = CS_ARENA_NEW(&arena, cs_turn, 32);
  b->h.nturns = 0;
}

static cs_turn *hb_turn(hb *b, cs_role role, cs_provider p, const char *key) {
  cr_assert_lt(b->h.nturns, 32);
  cs_turn *t = &b->h.turns[b->h.nturns++];
  memset(t, 0, sizeof *t);
  t->role = role;
  t->provider = p;
  t->turn_key = key ? cs_str_c(key) : CS_NULL_STR;
  t->calls = CS_ARENA_NEW(&arena, cs_call, 16);
  t->results = CS_ARENA_NEW(&arena, cs_result, 16);
  return t;
}

static cs_turn *hb_assistant(hb *b, cs_provider p, const char *key) {
  return hb_turn(b, CS_ROLE_ASSISTANT, p, key);
}
static cs_turn *hb_tool(hb *b) {
  return hb_turn(b, CS_ROLE_TOOL, CS_PROV_UNKNOWN, NULL);
}

static void call_s(cs_turn *t, cs_str id, const char *name, bool server) {
  cr_assert_lt(t->ncalls, 16);
  t->calls[t->ncalls++] = (cs_call){id, cs_str_c(name), CS_NULL_STR, server};
}
static void call(cs_turn *t, const char *id, const char *name) {
  call_s(t, id ? cs_str_c(id) : CS_NULL_STR, name, false);
}

static void result_s(cs_turn *t, cs_str call_id, const char *name) {
  cr_assert_lt(t->nresults, 16);
  t->results[t->nresults++] = (cs_result){.call_id = call_id, .name = cs_str_c(name), .content = CS_NULL_STR};
}
static void result(cs_turn *t, const char *call_id, const char *name) {
  result_s(t, call_id ? cs_str_c(call_id) : CS_NULL_STR, name);
}

/* ---- running requests ---- */

static cs_reply run(cs_impl *im, cs_request rq) {
  cs_reply rep;
  cs_err err = {{0}};
  memset(&rep, 0xAB, sizeof rep);
  cr_assert_eq(cs_impl_exec(im, &rq, &rep, 1, &arena, &err), 0, "%s", err.msg);
  return rep;
}

static cs_answer emit(cs_impl *im, const cs_history *h, cs_target_id t) {
  cs_reply rep = run(im, (cs_request){.op = CS_OP_EMIT, .target = t, .history = h});
  cr_assert_eq(rep.status, CS_REPLY_OK, "%s emit %s: %s: %.*s", im->info.name, cs_target_get(t)->name,
               cs_reply_status_name(rep.status), (int)rep.message.len, rep.message.ptr);
  cr_assert_eq(rep.answer.ncalls, cs_history_ncalls(h));
  cr_assert_eq(rep.answer.nresults, cs_history_nresults(h));
  return rep.answer;
}

static cs_answer canon(cs_impl *im, const cs_history *h) {
  cs_reply rep = run(im, (cs_request){.op = CS_OP_CANONICALIZE, .history = h});
  cr_assert_eq(rep.status, CS_REPLY_OK, "%s canonicalize: %.*s", im->info.name, (int)rep.message.len, rep.message.ptr);
  cr_assert_eq(rep.answer.ncalls, cs_history_ncalls(h));
  cr_assert_eq(rep.answer.nresults, cs_history_nresults(h));
  return rep.answer;
}

static cs_str norm(cs_impl *im, cs_target_id t, cs_str id) {
  cs_reply rep = run(im, (cs_request){.op = CS_OP_NORMALIZE, .target = t, .ids = &id, .nids = 1});
  cr_assert_eq(rep.status, CS_REPLY_OK, "%s normalize: %.*s", im->info.name, (int)rep.message.len, rep.message.ptr);
  cr_assert_eq(rep.nids, 1);
  return rep.ids[0];
}

static void expect_eq(cs_str got, const char *want) {
  cr_assert(cs_str_eq_c(got, want), "got '%.*s', want '%s'", (int)got.len, got.ptr ? got.ptr : "(null)", want);
}

static void expect_same(cs_str x, cs_str y) {
  cr_assert(cs_str_eq(x, y), "'%.*s' != '%.*s'", (int)x.len, x.ptr ? x.ptr : "(null)", (int)y.len,
            y.ptr ? y.ptr : "(null)");
}

static bool anthropic_ok(cs_str id) {
  if (!id.ptr || id.len < 1 || id.len > 64)
    return false;
  for (size_t i = 0; i < id.len; i++) {
    char c = id.ptr[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
      return false;
  }
  return true;
}

/* A history with every pathology: null, empty, huge and non-ASCII IDs, illegal characters,
 * duplicates within and across turns, a server call, parallel same-name calls, results by ID and
 * by name, an orphan, an unanswered call, provider switches. */
static cs_history hostile(void) {
  hb b;
  hb_init(&b);
  hb_turn(&b, CS_ROLE_USER, CS_PROV_UNKNOWN, "u0");
  size_t big = 64 * 1024;
  char *huge = cs_arena_alloc(&arena, big + 1);
  for (size_t i = 0; i < big; i++)
    huge[i] = "ab|:.z"[i % 6];
  huge[big] = 0;
  cs_turn *t = hb_assistant(&b, CS_PROV_ANTHROPIC, "k1");
  call(t, NULL, "read");
  call(t, "", "read");
  call_s(t, (cs_str){huge, big}, "grep", false);
  call(t, "a|b c/d+=e", "edit");
  call(t, "\xf0\x9f\x98\x80\xc3\xa9\x01", "emoji tool");
  call_s(t, cs_str_c("srvtoolu_01AbC"), "web_search", true);
  call(t, "toolu_dup", "x");
  call(t, "toolu_dup", "x");
  t = hb_tool(&b);
  result(t, NULL, "read");
  result(t, "", "read");
  result_s(t, (cs_str){huge, big}, "grep");
  result(t, "a|b c/d+=e", "edit");
  result(t, "toolu_dup", "x");
  result(t, "nobody", "ghost");
  t = hb_assistant(&b, CS_PROV_KIMI, NULL);
  call(t, "functions.glob:8", "glob");
  call(t, "call_0", "glob");
  call(t, "hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA", "glob");
  call(t, "hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA", "glob");
  t = hb_tool(&b);
  result(t, NULL, "glob");
  result(t, NULL, "glob");
  result(t, "call_0", "glob");
  t = hb_assistant(&b, CS_PROV_MISTRAL, "k3");
  call(t, "abcDEF123", "m");
  call(t, "call_0", "m");
  return b.h;
}

/* ---- registry ---- */

Test(builtins, registry_finds_every_name_and_nothing_else) {
  size_t n = 0;
  const cs_builtin *all = cs_builtins(&n);
  cr_assert_eq(n, 8);
  const char *expected[] = {"reference",     "seed-literal-join", "prefix-swap",        "tool-id-strategy",
                            "adk-stream-v1", "adk-stream-v2",     "anthropic-sanitize", "mistral-hash9"};
  for (size_t i = 0; i < 8; i++) {
    const cs_builtin *b = cs_builtin_find(expected[i]);
    cr_assert_not_null(b, "%s", expected[i]);
    cr_assert_str_eq(b->name, expected[i]);
    cr_assert(b >= all && b < all + n);
    cr_assert(b->design && *b->design && b->breaks && *b->breaks);
    cs_impl *im = make(expected[i]);
    cr_assert_str_eq(im->info.name, expected[i]);
    cr_assert_not_null(im->info.version);
    cr_assert_neq(im->info.ops, 0);
    cr_assert_eq(im->vt->stderr_tail(im).len, 0);
    cs_impl_destroy(im);
  }
  cr_assert_null(cs_builtin_find("nope"));
  cr_assert_null(cs_builtin_find(""));
  cr_assert_null(cs_builtin_find("Reference"));
  cr_assert_null(cs_builtin_find(NULL));
}

Test(builtins, create_without_rules_is_an_error) {
  cs_impl_env env = {NULL, 1};
  cs_err err = {{0}};
  cr_assert_null(cs_builtin_find("reference")->create(&env, &err));
  cr_assert_neq(err.msg[0], 0);
}

Test(builtins, names_of_ops_and_statuses) {
  cr_assert_str_eq(cs_op_name(CS_OP_EMIT), "emit");
  cr_assert_str_eq(cs_op_name(CS_OP_CANONICALIZE), "canonicalize");
  cr_assert_str_eq(cs_op_name(CS_OP_NORMALIZE), "normalize");
  cr_assert_str_eq(cs_reply_status_name(CS_REPLY_OK), "ok");
  cr_assert_str_eq(cs_reply_status_name(CS_REPLY_REJECTED), "rejected");
  cr_assert_str_eq(cs_reply_status_name(CS_REPLY_CRASH), "crash");
  cr_assert_str_eq(cs_reply_status_name(CS_REPLY_TIMEOUT), "timeout");
  cr_assert_str_eq(cs_reply_status_name(CS_REPLY_PROTOCOL), "protocol");
}

/* ---- exec: rejections ---- */

static void expect_rejected(cs_impl *im, cs_request rq) {
  cs_reply rep = run(im, rq);
  cr_assert_eq(rep.status, CS_REPLY_REJECTED, "%s: op %s target %d: %s", im->info.name, cs_op_name(rq.op),
               (int)rq.target, cs_reply_status_name(rep.status));
  cr_assert(rep.message.ptr && rep.message.len > 0);
  cr_assert_null(memchr(rep.message.ptr, '\n', rep.message.len));
}

Test(builtins, unsupported_ops_and_targets_are_rejected) {
  cs_history h = hostile();
  cs_str id = cs_str_c("x");
  cs_impl *ref = make("reference");
  expect_rejected(ref, (cs_request){.op = CS_OP_NORMALIZE, .target = CS_PROV_KIMI, .ids = &id, .nids = 1});
  expect_rejected(ref, (cs_request){.op = CS_OP_EMIT, .target = CS_PROV_ADK, .history = &h});
  expect_rejected(ref, (cs_request){.op = CS_OP_EMIT, .target = (cs_target_id)99, .history = &h});
  expect_rejected(ref, (cs_request){.op = (cs_op)8, .target = CS_PROV_ANTHROPIC, .history = &h});
  expect_rejected(ref, (cs_request){.op = CS_OP_EMIT, .target = CS_PROV_ANTHROPIC, .history = NULL});
  cs_impl_destroy(ref);

  cs_impl *v1 = make("adk-stream-v1");
  expect_rejected(v1, (cs_request){.op = CS_OP_NORMALIZE, .target = CS_PROV_ANTHROPIC, .ids = &id, .nids = 1});
  expect_rejected(v1, (cs_request){.op = CS_OP_EMIT, .target = CS_PROV_ADK, .history = &h});
  cs_impl_destroy(v1);

  cs_impl *san = make("anthropic-sanitize");
  expect_rejected(san, (cs_request){.op = CS_OP_EMIT, .target = CS_PROV_OPENAI_CHAT, .history = &h});
  expect_rejected(san, (cs_request){.op = CS_OP_NORMALIZE, .target = CS_PROV_MISTRAL, .ids = &id, .nids = 1});
  expect_rejected(san, (cs_request){.op = CS_OP_CANONICALIZE, .history = &h});
  cs_impl_destroy(san);

  cs_impl *tis = make("tool-id-strategy");
  expect_rejected(tis, (cs_request){.op = CS_OP_CANONICALIZE, .history = &h});
  expect_rejected(tis, (cs_request){.op = CS_OP_NORMALIZE, .target = CS_PROV_KIMI, .ids = &id, .nids = 1});
  cs_impl_destroy(tis);
}

Test(builtins, a_batch_gets_one_reply_per_request) {
  cs_history h = hostile();
  cs_str ids[2] = {cs_str_c("a|b"), cs_str_c("x")};
  cs_impl *san = make("anthropic-sanitize");
  cs_request rq[3] = {
      {.op = CS_OP_EMIT, .target = CS_PROV_ANTHROPIC, .history = &h},
      {.op = CS_OP_EMIT, .target = CS_PROV_GEMINI, .history = &h},
      {.op = CS_OP_NORMALIZE, .target = CS_PROV_BEDROCK, .ids = ids, .nids = 2},
  };
  cs_reply rep[3];
  cs_err err;
  cr_assert_eq(cs_impl_exec(san, rq, rep, 3, &arena, &err), 0);
  cr_assert_eq(rep[0].status, CS_REPLY_OK);
  cr_assert_eq(rep[0].answer.ncalls, cs_history_ncalls(&h));
  cr_assert_eq(rep[1].status, CS_REPLY_REJECTED);
  cr_assert_eq(rep[2].status, CS_REPLY_OK);
  cr_assert_eq(rep[2].nids, 2);
  expect_eq(rep[2].ids[1], "x");
  cs_impl_destroy(san);
}

/* canon.deterministic compares two canonicalize requests of one batch: the reference must compute
 * each of them, not answer the second from its batch memo (the comparison would prove nothing). */
Test(builtins, reference_computes_every_canonicalize_request_of_a_batch) {
  cs_history h = hostile();
  cs_impl *ref = make("reference");
  cs_request rq[3] = {
      {.op = CS_OP_CANONICALIZE, .history = &h},
      {.op = CS_OP_CANONICALIZE, .history = &h},
      {.op = CS_OP_EMIT, .target = CS_PROV_OPENAI_CHAT, .history = &h},
  };
  cs_reply rep[3];
  cs_err err;
  cr_assert_eq(cs_impl_exec(ref, rq, rep, 3, &arena, &err), 0, "%s", err.msg);
  for (int i = 0; i < 3; i++)
    cr_assert_eq(rep[i].status, CS_REPLY_OK);
  uint32_t n = cs_history_ncalls(&h);
  cr_assert_eq(rep[0].answer.ncalls, n);
  cr_assert_eq(rep[1].answer.ncalls, n);
  cr_assert(cs_answer_eq(&rep[0].answer, &rep[1].answer));
  cs_history_index ix;
  cs_history_index_build(&h, &arena, &ix);
  uint32_t derived = 0;
  for (uint32_t c = 0; c < n; c++) {
    cs_str a = rep[0].answer.calls[c], b = rep[1].answer.calls[c];
    if (a.ptr == ix.calls[c]->id.ptr) /* a raw ID kept as it was (already canonical) */
      continue;
    /* a derived stored ID is new bytes in each answer */
    cr_assert_neq(a.ptr, b.ptr, "call %u: the second answer reuses the first one's stored ID", c);
    derived++;
  }
  cr_assert_gt(derived, 10);
  /* the emit after them maps the same stored IDs: call_ + the canonical suffix */
  uint32_t mapped = 0;
  for (uint32_t c = 0; c < n; c++) {
    cs_str stored = rep[0].answer.calls[c], wire = rep[2].answer.calls[c];
    if (!wire.ptr || !cs_str_starts(wire, "call_") || !cs_is_canonical(stored))
      continue;
    cr_assert(wire.len == 5 + stored.len - 10 && memcmp(wire.ptr + 5, stored.ptr + 10, stored.len - 10) == 0,
              "call %u: emit and canonicalize disagree", c);
    mapped++;
  }
  cr_assert_gt(mapped, 10);
  cs_impl_destroy(ref);
}

/* ---- every built-in on the hostile history ---- */

static bool deterministic(const cs_impl *im) {
  return !im->info.nondeterministic_by_design;
}

Test(builtins, every_builtin_answers_every_supported_request_without_crashing) {
  cs_history h = hostile();
  cs_str ids[] = {CS_NULL_STR, cs_str_c(""), cs_str_c("a|b"), h.turns[1].calls[2].id, cs_str_c("\xf0\x9f\x98\x80")};
  size_t n;
  const cs_builtin *all = cs_builtins(&n);
  for (size_t i = 0; i < n; i++) {
    cs_impl *im = make(all[i].name);
    cs_err err;
    if (im->info.ops & CS_OP_CANONICALIZE) {
      cs_answer x = canon(im, &h), y = canon(im, &h);
      cr_assert(cs_answer_eq(&x, &y), "%s canonicalize not deterministic", im->info.name);
      for (uint32_t c = 0; c < x.ncalls; c++)
        cr_assert_not_null(x.calls[c].ptr, "%s canonical call %u null", im->info.name, c);
    }
    for (cs_target_id t = 0; t < CS_TARGET_COUNT; t++) {
      if (im->info.emit_targets >> t & 1u) {
        cs_answer x = emit(im, &h, t);
        cr_assert_eq(im->vt->restart(im, &err), 0);
        cs_answer y = emit(im, &h, t);
        if (deterministic(im))
          cr_assert(cs_answer_eq(&x, &y), "%s emit %s not deterministic", im->info.name, cs_target_get(t)->name);
      }
      if (im->info.normalize_targets >> t & 1u) {
        cs_reply rep =
            run(im, (cs_request){.op = CS_OP_NORMALIZE, .target = t, .ids = ids, .nids = sizeof ids / sizeof *ids});
        cr_assert_eq(rep.status, CS_REPLY_OK);
        cr_assert_eq(rep.nids, sizeof ids / sizeof *ids);
      }
    }
    cs_impl_destroy(im);
  }
}

/* No turns, or only a user's text: every operation answers ok, with nothing in it. */
Test(builtins, an_empty_history_gets_empty_answers) {
  hb empty, text;
  hb_init(&empty);
  hb_init(&text);
  hb_turn(&text, CS_ROLE_USER, CS_PROV_UNKNOWN, "u0");
  const cs_history *hs[] = {&empty.h, &text.h};
  size_t n, asked = 0;
  const cs_builtin *all = cs_builtins(&n);
  for (size_t i = 0; i < n; i++) {
    cs_impl *im = make(all[i].name);
    for (size_t k = 0; k < 2; k++) {
      if (im->info.ops & CS_OP_CANONICALIZE) {
        cs_reply rep = run(im, (cs_request){.op = CS_OP_CANONICALIZE, .history = hs[k]});
        cr_assert_eq(rep.status, CS_REPLY_OK, "%s canonicalize", im->info.name);
        cr_assert_eq(rep.answer.ncalls + rep.answer.nresults, 0, "%s canonicalize", im->info.name);
        asked++;
      }
      for (cs_target_id t = 0; t < CS_TARGET_COUNT; t++)
        if (im->info.emit_targets >> t & 1u) {
          cs_reply rep = run(im, (cs_request){.op = CS_OP_EMIT, .target = t, .history = hs[k]});
          cr_assert_eq(rep.status, CS_REPLY_OK, "%s emit %s", im->info.name, cs_target_get(t)->name);
          cr_assert_eq(rep.answer.ncalls + rep.answer.nresults, 0, "%s emit", im->info.name);
          asked++;
        }
    }
    cs_impl_destroy(im);
  }
  cr_assert_geq(asked, 2 * n, "every built-in was asked");
}

/* ---- reference ---- */

Test(builtins, reference_is_valid_unique_and_paired_for_every_target) {
  cs_history h = hostile();
  cs_history_index ix;
  cs_history_index_build(&h, &arena, &ix);
  cs_impl *im = make("reference");
  cr_assert(im->info.claims_canonical_v1);
  cr_assert_eq(im->info.emit_targets, (1u << CS_TARGET_COUNT) - 1u);
  cr_assert_eq(im->info.normalize_targets & (1u << CS_PROV_KIMI), 0);
  for (cs_target_id t = 0; t < CS_TARGET_COUNT; t++) {
    cs_answer x = emit(im, &h, t);
    for (uint32_t c = 0; c < x.ncalls; c++) {
      char why[128] = "";
      cr_assert(cs_rule_check(rules, t, x.calls[c], c, ix.calls[c]->server, why, sizeof why) == CS_RULE_MET,
                "%s call %u: %s", cs_target_get(t)->name, c, why);
      for (uint32_t d = 0; d < c; d++)
        cr_assert(!cs_str_eq(x.calls[c], x.calls[d]), "%s: calls %u and %u share an ID", cs_target_get(t)->name, d, c);
    }
    for (uint32_t r = 0; r < x.nresults; r++) {
      if (ix.pair[r] >= 0)
        expect_same(x.results[r], x.calls[ix.pair[r]]);
      else
        cr_assert_null(x.results[r].ptr);
    }
    if (t != CS_PROV_KIMI) {
      char why[128] = "";
      cs_str z = norm(im, t, cs_str_c("a|b"));
      cr_assert(cs_rule_check(rules, t, z, 0, false, why, sizeof why) == CS_RULE_MET, "%s normalize: %s",
                cs_target_get(t)->name, why);
    }
  }
  /* The server call reaches anthropic unchanged. */
  cs_answer x = emit(im, &h, CS_PROV_ANTHROPIC);
  expect_eq(x.calls[5], "srvtoolu_01AbC");
  /* canonicalize is callsign canonical v1. */
  cs_digest d = {cs_hasher_new(), NULL, NULL};
  cs_answer want = cs_canonicalize(&h, &ix, &d, &arena);
  cs_answer got = canon(im, &h);
  cr_assert(cs_answer_eq(&want, &got));
  for (uint32_t c = 0; c < got.ncalls; c++)
    cr_assert(cs_is_canonical(got.calls[c]));
  cs_hasher_free(d.hasher);
  cs_impl_destroy(im);
}

/* ---- seed-literal-join ---- */

static void literal_join_expected(const char *joined, char out[35]) {
  cs_hasher *hs = cs_hasher_new();
  uint8_t h[32];
  char b64[48];
  cs_sha256(hs, joined, strlen(joined), h);
  cs_base64url(h, 32, b64);
  snprintf(out, 35, "hist_tool_%.24s", b64);
  cs_hasher_free(hs);
}

Test(builtins, literal_join_hashes_the_literal_string) {
  hb b;
  hb_init(&b);
  cs_turn *t = hb_assistant(&b, CS_PROV_OPENAI_CHAT, "k1");
  call(t, "call_1", "read");
  call(t, NULL, "read");
  t = hb_tool(&b);
  result(t, "call_1", "read");
  result(t, NULL, "read");
  cs_impl *im = make("seed-literal-join");
  cs_answer x = canon(im, &b.h);
  char want[35];
  literal_join_expected("openai_chat|call_1|read|k1|0", want);
  expect_eq(x.calls[0], want);
  literal_join_expected("openai_chat||read|k1|1", want);
  expect_eq(x.calls[1], want);
  expect_same(x.results[0], x.calls[0]);
  expect_same(x.results[1], x.calls[1]);
  cs_impl_destroy(im);
}

Test(builtins, literal_join_collides_on_a_pipe_in_the_raw_id) {
  hb b;
  hb_init(&b);
  cs_turn *t = hb_assistant(&b, CS_PROV_ANTHROPIC, NULL);
  call(t, "a|b", "c");
  t = hb_tool(&b);
  result(t, "a|b", "c");
  t = hb_assistant(&b, CS_PROV_ANTHROPIC, NULL);
  call(t, "a", "b|c");
  cs_impl *im = make("seed-literal-join");
  cs_answer x = canon(im, &b.h);
  char want[35];
  literal_join_expected("anthropic|a|b|c||0", want);
  expect_eq(x.calls[0], want);
  expect_same(x.calls[0], x.calls[1]); /* canon.unique breaks */
  expect_same(x.results[0], x.calls[0]);
  /* No collision handling at emit either: both map to the same wire ID. */
  cs_answer y = emit(im, &b.h, CS_PROV_OPENAI_CHAT);
  expect_same(y.calls[0], y.calls[1]);
  cr_assert(cs_str_starts(y.calls[0], "call_"));
  /* The reference keeps them apart. */
  cs_impl *ref = make("reference");
  cs_answer z = canon(ref, &b.h);
  cr_assert(!cs_str_eq(z.calls[0], z.calls[1]));
  cs_impl_destroy(ref);
  cs_impl_destroy(im);
}

Test(builtins, literal_join_keeps_look_alike_duplicates) {
  hb b;
  hb_init(&b);
  cs_turn *t = hb_assistant(&b, CS_PROV_GEMINI, "k");
  call(t, "hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA", "f");
  call(t, "hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA", "g");
  cs_impl *im = make("seed-literal-join");
  cs_answer x = canon(im, &b.h);
  expect_eq(x.calls[0], "hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA");
  expect_eq(x.calls[1], "hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA");
  cs_answer y = emit(im, &b.h, CS_PROV_ANTHROPIC);
  expect_eq(y.calls[0], "toolu_AAAAAAAAAAAAAAAAAAAAAAAA");
  expect_same(y.calls[0], y.calls[1]); /* emit.unique breaks */
  cs_impl_destroy(im);
}

/* ---- prefix-swap ---- */

Test(builtins, prefix_swap_swaps_prefixes) {
  hb b;
  hb_init(&b);
  cs_turn *t = hb_assistant(&b, CS_PROV_OPENAI_CHAT, NULL);
  call(t, "call_X1", "read");
  call(t, "toolu_Y2", "read");
  call(t, "abc", "read");
  call(t, NULL, "glob");
  t = hb_tool(&b);
  result(t, "call_X1", "read");
  result(t, "toolu_Y2", "read");
  result(t, "abc", "read");
  result(t, NULL, "glob");
  cs_impl *im = make("prefix-swap");
  cs_answer s = canon(im, &b.h);
  expect_eq(s.calls[0], "hist_tool_X1");
  expect_eq(s.calls[1], "hist_tool_Y2");
  expect_eq(s.calls[2], "hist_tool_abc");
  expect_eq(s.calls[3], "hist_tool_3");
  for (uint32_t i = 0; i < 4; i++)
    expect_same(s.results[i], s.calls[i]);
  cs_answer x = emit(im, &b.h, CS_PROV_ANTHROPIC);
  expect_eq(x.calls[0], "toolu_X1");
  expect_eq(x.calls[2], "toolu_abc");
  x = emit(im, &b.h, CS_PROV_OPENAI_RESPONSES);
  expect_eq(x.calls[1], "call_Y2");
  x = emit(im, &b.h, CS_PROV_BEDROCK);
  expect_eq(x.calls[0], "tooluse_X1");
  x = emit(im, &b.h, CS_PROV_GEMINI);
  expect_eq(x.calls[0], "X1");
  expect_eq(x.calls[3], "3");
  x = emit(im, &b.h, CS_PROV_MISTRAL);
  expect_eq(x.calls[0], "X10000000");
  expect_eq(x.calls[2], "abc000000");
  expect_same(x.results[2], x.calls[2]);
  cs_impl_destroy(im);
}

Test(builtins, prefix_swap_breaks_regex_twins_and_kimi_index) {
  hb b;
  hb_init(&b);
  cs_turn *t = hb_assistant(&b, CS_PROV_ANTHROPIC, NULL);
  call(t, "call_X", "read");
  call(t, "toolu_X", "read");
  call(t, "a|b", "read");
  t = hb_tool(&b);
  result(t, "call_X", "read");
  t = hb_assistant(&b, CS_PROV_KIMI, NULL);
  call(t, "functions.glob:3", "glob");
  cs_impl *im = make("prefix-swap");
  cs_answer x = emit(im, &b.h, CS_PROV_ANTHROPIC);
  expect_same(x.calls[0], x.calls[1]); /* twins */
  expect_eq(x.calls[2], "toolu_a|b");
  cr_assert_eq(cs_rule_check(rules, CS_PROV_ANTHROPIC, x.calls[2], 2, false, NULL, 0), CS_RULE_BROKEN);
  x = emit(im, &b.h, CS_PROV_KIMI);
  expect_eq(x.calls[3], "functions.glob:0"); /* index within the turn, not the global 3 */
  cr_assert_eq(cs_rule_check(rules, CS_PROV_KIMI, x.calls[3], 3, false, NULL, 0), CS_RULE_BROKEN);
  expect_eq(x.calls[1], "functions.read:1");
  cs_impl_destroy(im);
}

/* ---- tool-id-strategy ---- */

static bool is_hex32(cs_str s) {
  if (s.len != 32)
    return false;
  for (size_t i = 0; i < 32; i++)
    if (!strchr("0123456789abcdef", s.ptr[i]))
      return false;
  return true;
}

Test(builtins, tool_id_strategy_strips_and_merges) {
  hb b;
  hb_init(&b);
  cs_turn *t = hb_assistant(&b, CS_PROV_OPENAI_CHAT, NULL);
  call(t, "a-b", "read");
  call(t, "ab", "read");
  call(t, "call_é|x", "read");
  t = hb_tool(&b);
  result(t, "a-b", "read");
  cs_impl *im = make("tool-id-strategy");
  cr_assert(im->info.nondeterministic_by_design);
  cs_answer x = emit(im, &b.h, CS_PROV_OPENAI_CHAT);
  expect_eq(x.calls[0], "ab");
  expect_eq(x.calls[1], "ab"); /* emit.unique breaks */
  expect_eq(x.calls[2], "call_x");
  expect_eq(x.results[0], "ab");
  x = emit(im, &b.h, CS_PROV_MISTRAL);
  expect_eq(x.calls[2], "call_x"); /* no length fix */
  cr_assert_eq(cs_rule_check(rules, CS_PROV_MISTRAL, x.calls[2], 2, false, NULL, 0), CS_RULE_BROKEN);
  expect_eq(norm(im, CS_PROV_ANTHROPIC, cs_str_c("a-b")), "ab");
  expect_same(norm(im, CS_PROV_ANTHROPIC, cs_str_c("a-b")), norm(im, CS_PROV_ANTHROPIC, cs_str_c("ab")));
  cs_impl_destroy(im);
}

Test(builtins, tool_id_strategy_draws_random_ids_that_do_not_pair) {
  hb b;
  hb_init(&b);
  cs_turn *t = hb_assistant(&b, CS_PROV_GEMINI, NULL);
  call(t, NULL, "read");
  call(t, "||", "read");
  t = hb_tool(&b);
  result(t, NULL, "read");
  cs_impl *im = make("tool-id-strategy");
  cs_answer x = emit(im, &b.h, CS_PROV_GEMINI);
  cr_assert(is_hex32(x.calls[0]) && is_hex32(x.calls[1]) && is_hex32(x.results[0]));
  cr_assert_eq(x.calls[0].ptr[12], '4'); /* version-4 UUID */
  cr_assert(!cs_str_eq(x.calls[0], x.calls[1]));
  cr_assert(!cs_str_eq(x.results[0], x.calls[0])); /* emit.pair breaks for missing IDs */
  cs_answer y = emit(im, &b.h, CS_PROV_GEMINI);
  cr_assert(!cs_answer_eq(&x, &y)); /* emit.deterministic breaks */
  cs_str n1 = norm(im, CS_PROV_GEMINI, cs_str_c("")), n2 = norm(im, CS_PROV_GEMINI, cs_str_c(""));
  cr_assert(is_hex32(n1) && !cs_str_eq(n1, n2));
  /* Two instances with the same env seed still differ: the design is not reproducible. */
  cs_impl *other = make("tool-id-strategy");
  cs_answer z = emit(other, &b.h, CS_PROV_GEMINI);
  cr_assert(!cs_str_eq(z.calls[0], x.calls[0]));
  cs_impl_destroy(other);
  cs_impl_destroy(im);
}

Test(builtins, tool_id_strategy_kimi_uses_the_global_index) {
  hb b;
  hb_init(&b);
  cs_turn *t = hb_assistant(&b, CS_PROV_KIMI, NULL);
  call(t, "functions.read:0", "read");
  t = hb_tool(&b);
  result(t, "functions.read:0", "read");
  t = hb_assistant(&b, CS_PROV_KIMI, NULL);
  call(t, "functions.glob:1", "glob");
  call(t, NULL, "grep");
  t = hb_tool(&b);
  result(t, NULL, "grep");
  cs_impl *im = make("tool-id-strategy");
  cs_answer x = emit(im, &b.h, CS_PROV_KIMI);
  expect_eq(x.calls[0], "functions.read:0");
  expect_eq(x.calls[1], "functions.glob:1");
  expect_eq(x.calls[2], "functions.grep:2");
  expect_same(x.results[0], x.calls[0]);
  expect_same(x.results[1], x.calls[2]);
  for (uint32_t c = 0; c < 3; c++)
    cr_assert(cs_rule_check(rules, CS_PROV_KIMI, x.calls[c], c, false, NULL, 0) == CS_RULE_MET);
  cs_impl_destroy(im);
}

/* ---- adk-stream ---- */

static cs_history two_turns_parallel(void) {
  hb b;
  hb_init(&b);
  cs_turn *t = hb_assistant(&b, CS_PROV_GEMINI, NULL);
  call(t, NULL, "read");
  call(t, "", "read");
  call(t, "raw|1", "glob");
  t = hb_tool(&b);
  result(t, NULL, "read");
  result(t, NULL, "read");
  result(t, "raw|1", "glob");
  t = hb_assistant(&b, CS_PROV_GEMINI, NULL);
  call(t, NULL, "grep");
  t = hb_tool(&b);
  result(t, "anything", "grep");
  result(t, NULL, "read"); /* read is not in the most recent assistant turn */
  return b.h;
}

Test(builtins, adk_stream_v1_restarts_numbering_every_turn) {
  cs_history h = two_turns_parallel();
  cs_impl *im = make("adk-stream-v1");
  cs_answer x = emit(im, &h, CS_PROV_ANTHROPIC);
  expect_eq(x.calls[0], "call_0");
  expect_eq(x.calls[1], "call_1");
  expect_eq(x.calls[2], "call_2");
  expect_eq(x.calls[3], "call_0");   /* emit.unique breaks across turns */
  expect_eq(x.results[0], "call_1"); /* the last 'read' wins: emit.pair breaks */
  expect_eq(x.results[1], "call_1");
  expect_eq(x.results[2], "call_2"); /* call_id ignored: matched by name */
  expect_eq(x.results[3], "call_0");
  cr_assert_null(x.results[4].ptr);
  x = emit(im, &h, CS_PROV_MISTRAL);
  cr_assert_eq(cs_rule_check(rules, CS_PROV_MISTRAL, x.calls[0], 0, false, NULL, 0), CS_RULE_BROKEN);
  cs_answer y = canon(im, &h);
  cr_assert(cs_answer_eq(&x, &y));
  cs_impl_destroy(im);
}

Test(builtins, adk_stream_v2_keeps_raw_ids) {
  cs_history h = two_turns_parallel();
  cs_impl *im = make("adk-stream-v2");
  cs_answer x = emit(im, &h, CS_PROV_ANTHROPIC);
  expect_eq(x.calls[0], "call_0");
  expect_eq(x.calls[1], "call_1"); /* empty raw ID: call_N */
  expect_eq(x.calls[2], "raw|1");  /* illegal for anthropic, passed through */
  cr_assert_eq(cs_rule_check(rules, CS_PROV_ANTHROPIC, x.calls[2], 2, false, NULL, 0), CS_RULE_BROKEN);
  expect_eq(x.calls[3], "call_0");
  expect_eq(x.results[0], "call_1");
  expect_eq(x.results[2], "raw|1");
  expect_eq(x.results[3], "anything"); /* a call_id is kept as is */
  cr_assert_null(x.results[4].ptr);
  hb b;
  hb_init(&b);
  cs_turn *t = hb_assistant(&b, CS_PROV_ANTHROPIC, NULL);
  call(t, "toolu_same", "a");
  call(t, "toolu_same", "b");
  cs_answer y = emit(im, &b.h, CS_PROV_ANTHROPIC);
  expect_same(y.calls[0], y.calls[1]); /* duplicates kept */
  cs_impl_destroy(im);
}

/* ---- anthropic-sanitize ---- */

static void sha_hex10(const void *data, size_t len, char out[11]) {
  cs_hasher *hs = cs_hasher_new();
  uint8_t h[32];
  char hex[65];
  cs_sha256(hs, data, len, h);
  cs_hex(h, 32, hex);
  memcpy(out, hex, 10);
  out[10] = 0;
  cs_hasher_free(hs);
}

Test(builtins, anthropic_sanitize_rewrites_only_illegal_ids) {
  cs_impl *im = make("anthropic-sanitize");
  expect_eq(norm(im, CS_PROV_ANTHROPIC, cs_str_c("toolu_01-ok")), "toolu_01-ok");
  char hex[11], want[80];
  sha_hex10("a|b", 3, hex);
  snprintf(want, sizeof want, "a_b_%s", hex);
  expect_eq(norm(im, CS_PROV_ANTHROPIC, cs_str_c("a|b")), want);
  /* One '_' per character, not per byte. */
  sha_hex10("\xc3\xa9x\xf0\x9f\x98\x80", 7, hex);
  snprintf(want, sizeof want, "_x__%s", hex);
  expect_eq(norm(im, CS_PROV_BEDROCK, cs_str_c("\xc3\xa9x\xf0\x9f\x98\x80")), want);
  /* srvtoolu_ IDs are untouched even when illegal. */
  expect_eq(norm(im, CS_PROV_ANTHROPIC, cs_str_c("srvtoolu_a|b")), "srvtoolu_a|b");
  /* A 64 KiB ID becomes 53 characters + '_' + 10 hex digits. */
  size_t big = 64 * 1024;
  char *huge = cs_arena_alloc(&arena, big);
  for (size_t i = 0; i < big; i++)
    huge[i] = (i % 7 == 3) ? ':' : 'q';
  cs_str z = norm(im, CS_PROV_ANTHROPIC, (cs_str){huge, big});
  cr_assert_eq(z.len, 64);
  cr_assert(anthropic_ok(z));
  sha_hex10(huge, big, hex);
  cr_assert_eq(memcmp(z.ptr + 53, "_", 1), 0);
  cr_assert_eq(memcmp(z.ptr + 54, hex, 10), 0);
  /* A legal but long ID is cut too. */
  memset(huge, 'k', 65);
  z = norm(im, CS_PROV_ANTHROPIC, (cs_str){huge, 65});
  cr_assert_eq(z.len, 64);
  cr_assert(anthropic_ok(z));
  /* normalize.idempotent holds. */
  const char *samples[] = {"a|b", "x y z", "\xf0\x9f\x98\x80", "", "ok"};
  for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
    cs_str once = norm(im, CS_PROV_ANTHROPIC, cs_str_c(samples[i]));
    cr_assert(anthropic_ok(once), "'%s'", samples[i]);
    expect_same(norm(im, CS_PROV_ANTHROPIC, once), once);
  }
  cs_impl_destroy(im);
}

Test(builtins, anthropic_sanitize_emit_pairs_and_breaks_on_twins) {
  hb b;
  hb_init(&b);
  cs_turn *t = hb_assistant(&b, CS_PROV_OPENAI_CHAT, NULL);
  call(t, "a|b", "read");
  call(t, NULL, "read");
  call_s(t, cs_str_c("srvtoolu_01x"), "web_search", true);
  t = hb_tool(&b);
  result(t, "a|b", "read");
  result(t, NULL, "read"); /* placed positionally: answers the missing-ID call at position 1 */
  cs_impl *im = make("anthropic-sanitize");
  cs_answer x = emit(im, &b.h, CS_PROV_ANTHROPIC);
  expect_same(x.results[0], x.calls[0]);
  expect_same(x.results[1], x.calls[1]);
  cr_assert(anthropic_ok(x.calls[0]));
  char hex[11], want[32];
  sha_hex10("0:1", 3, hex);
  snprintf(want, sizeof want, "toolu_%s", hex);
  expect_eq(x.calls[1], want);
  expect_eq(x.calls[2], "srvtoolu_01x");
  /* Plant the sanitized output as another call's raw ID: the two calls now share a wire ID. */
  cs_str planted = x.calls[0];
  t = hb_assistant(&b, CS_PROV_ANTHROPIC, NULL);
  call_s(t, planted, "read", false);
  cs_answer y = emit(im, &b.h, CS_PROV_ANTHROPIC);
  expect_same(y.calls[0], y.calls[3]);
  cs_impl_destroy(im);
}
