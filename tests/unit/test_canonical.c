/* tests/unit/test_canonical.c: providers/canonical.c, canonical v1: golden values computed by an
 * independent implementation, injectivity of the encoding, look-alikes, duplicates, pairing of
 * results, orphans and idempotence under re-ingestion. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/history_json.h"
#include "core/strset.h"
#include "providers/canonical.h"

static cs_arena A;
static cs_digest D;
static void setup(void) {
  memset(&A, 0, sizeof A);
  D = (cs_digest){.hasher = cs_hasher_new()};
  cr_assert_not_null(D.hasher);
}
static void teardown(void) {
  cs_hasher_free(D.hasher);
  cs_arena_free(&A);
}
TestSuite(canonical, .init = setup, .fini = teardown);

#define S(s) cs_str_c(s)

static cs_str canon_id(cs_provider p, cs_str raw, const char *name, cs_str key, uint32_t idx, uint32_t attempt) {
  return cs_canonical_id(&D, p, raw, S(name), key, idx, attempt, &A);
}

/* ^hist_tool_[A-Za-z0-9_-]{24}$, checked here without the code under test. */
static bool canonical_shape(cs_str s) {
  if (!s.ptr || s.len != 34 || memcmp(s.ptr, "hist_tool_", 10) != 0)
    return false;
  for (size_t i = 10; i < 34; i++)
    if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-", s.ptr[i]) || !s.ptr[i])
      return false;
  return true;
}

/* Golden values. Computed once with python3's hashlib and base64 from the encoding described in
 * providers/canonical.h, not from this code:
 *   ns = lambda b: b"~," if b is None else str(len(b)).encode() + b":" + b + b","
 *   m = b"callsign-canonical-v1," + ns(provider) + ns(raw) + ns(name) + ns(turn_key) + ns(str(index))
 *       [+ ns(str(attempt)) when attempt > 0]
 *   "hist_tool_" + base64.urlsafe_b64encode(hashlib.sha256(m).digest()).decode()[:24] */
Test(canonical, golden_values) {
  cr_assert(cs_str_eq_c(canon_id(CS_PROV_ANTHROPIC, S("toolu_01A"), "read_file", S("k1"), 0, 0),
                        "hist_tool_ragQiIRkg6Pg4Rm4N1aPd8EN"));
  cr_assert(cs_str_eq_c(canon_id(CS_PROV_KIMI, CS_NULL_STR, "glob", CS_NULL_STR, 2, 0),
                        "hist_tool_e2aqgb3VaDqSygikNe2CD4f7"));
  cr_assert(cs_str_eq_c(canon_id(CS_PROV_UNKNOWN, S("a|b\xf0\x9f\x98\x80"), "c", S(""), 1, 1),
                        "hist_tool_HJQvBqZ-b-HpYVNQHejSbzLn"));
  cr_assert(cs_str_eq_c(canon_id(CS_PROV_MISTRAL, S(""), "f", S("t"), 0, 0), "hist_tool_HzJYKGXh0UMH0jlb5NpVcmtM"));
  /* Multi-digit index, attempt and lengths (the one-digit fast path does not cover these). */
  cr_assert(cs_str_eq_c(canon_id(CS_PROV_GEMINI, S("call_123456789"), "edit", S("t10"), 12, 305),
                        "hist_tool_nvmOSp1KdaMqC7F1wkoVm-Gy"));
  /* Ten-digit index and attempt (their length field has two digits), and the 9/10 boundary. */
  cr_assert(cs_str_eq_c(canon_id(CS_PROV_BEDROCK, S("tooluse_x"), "glob", S("t2"), 4294967295u, 1000000000u),
                        "hist_tool_H4W-9O0ePl0O90mrgdkeArL5"));
  cr_assert(cs_str_eq_c(canon_id(CS_PROV_ANTHROPIC, S("call_9"), "read_file", S("t1"), 9, 0),
                        "hist_tool_rLwgTaWJps5xTQUqTgXijNGP"));
  cr_assert(cs_str_eq_c(canon_id(CS_PROV_ANTHROPIC, S("call_9"), "read_file", S("t1"), 10, 0),
                        "hist_tool_o-13NauWftBS3jizKiHDZ1xw"));
  /* A raw ID too long for the stack buffer goes through the arena. */
  char *big = malloc(5001);
  memset(big, 'x', 5000);
  big[5000] = 0;
  cr_assert(
      cs_str_eq_c(canon_id(CS_PROV_OPENAI_CHAT, S(big), "f", S("k"), 7, 0), "hist_tool_VewXSw9BKxsvMIV_bIqLz9oC"));
  free(big);
}

Test(canonical, is_canonical) {
  cr_assert(cs_is_canonical(S("hist_tool_ragQiIRkg6Pg4Rm4N1aPd8EN")));
  cr_assert(cs_is_canonical(S("hist_tool_------------------------")));
  cr_assert(cs_is_canonical(S("hist_tool_________________________")));
  cr_assert_not(cs_is_canonical(S("hist_tool_ragQiIRkg6Pg4Rm4N1aPd8E")), "23 characters");
  cr_assert_not(cs_is_canonical(S("hist_tool_ragQiIRkg6Pg4Rm4N1aPd8ENx")), "25 characters");
  cr_assert_not(cs_is_canonical(S("hist_tool_ragQiIRkg6Pg4Rm4N1aPd8E+")), "standard base64 character");
  cr_assert_not(cs_is_canonical(S("hist_tool_ragQiIRkg6Pg4Rm4N1aPd8E.")));
  cr_assert_not(cs_is_canonical(S("Hist_tool_ragQiIRkg6Pg4Rm4N1aPd8EN")));
  cr_assert_not(cs_is_canonical(S("hist_toolXragQiIRkg6Pg4Rm4N1aPd8EN")));
  cr_assert_not(cs_is_canonical(cs_str_n("hist_tool_ragQiIRkg6Pg4Rm4N1aPd8E\0", 34)));
  cr_assert_not(cs_is_canonical(S("")));
  cr_assert_not(cs_is_canonical(CS_NULL_STR));
}

Test(canonical, encoding_is_injective) {
  cs_str pipe1 = canon_id(CS_PROV_UNKNOWN, S("a|b"), "c", S("k"), 0, 0);
  cs_str pipe2 = canon_id(CS_PROV_UNKNOWN, S("a"), "b|c", S("k"), 0, 0);
  cr_assert_not(cs_str_eq(pipe1, pipe2), "raw a|b name c vs raw a name b|c");
  cr_assert_not(cs_str_eq(canon_id(CS_PROV_UNKNOWN, CS_NULL_STR, "f", S("k"), 0, 0),
                          canon_id(CS_PROV_UNKNOWN, S(""), "f", S("k"), 0, 0)),
                "null vs empty raw ID");
  cr_assert_not(cs_str_eq(canon_id(CS_PROV_UNKNOWN, S("~"), "f", S("k"), 0, 0),
                          canon_id(CS_PROV_UNKNOWN, CS_NULL_STR, "f", S("k"), 0, 0)),
                "a raw \"~\" vs null");
  cr_assert_not(cs_str_eq(canon_id(CS_PROV_UNKNOWN, S("a"), "f", CS_NULL_STR, 0, 0),
                          canon_id(CS_PROV_UNKNOWN, S("a"), "f", S(""), 0, 0)),
                "null vs empty turn key");
  /* A field that spells out the netstring of the next field. */
  cr_assert_not(cs_str_eq(canon_id(CS_PROV_UNKNOWN, S("a,1:f"), "x", S("k"), 0, 0),
                          canon_id(CS_PROV_UNKNOWN, S("a"), "f,1:x", S("k"), 0, 0)));
  cr_assert_not(cs_str_eq(canon_id(CS_PROV_UNKNOWN, S("a"), "f", S("k,1:0"), 0, 0),
                          canon_id(CS_PROV_UNKNOWN, S("a"), "f", S("k"), 0, 0)));
  /* Index, attempt and provider each matter; attempt 1 is not index 1. */
  cs_str base = canon_id(CS_PROV_UNKNOWN, S("a"), "f", S("k"), 1, 0);
  cr_assert_not(cs_str_eq(base, canon_id(CS_PROV_UNKNOWN, S("a"), "f", S("k"), 11, 0)));
  cr_assert_not(cs_str_eq(base, canon_id(CS_PROV_UNKNOWN, S("a"), "f", S("k"), 1, 1)));
  cr_assert_not(cs_str_eq(canon_id(CS_PROV_UNKNOWN, S("a"), "f", S("k"), 0, 1), base));
  cr_assert_not(cs_str_eq(base, canon_id(CS_PROV_ADK, S("a"), "f", S("k"), 1, 0)));
  cr_assert_not(cs_str_eq(canon_id(CS_PROV_OPENAI_CHAT, S("a"), "f", S("k"), 1, 0),
                          canon_id(CS_PROV_OPENAI_RESPONSES, S("a"), "f", S("k"), 1, 0)));
  /* Deterministic and well shaped. */
  cr_assert(cs_str_eq(base, canon_id(CS_PROV_UNKNOWN, S("a"), "f", S("k"), 1, 0)));
  cr_assert(canonical_shape(base));
  cr_assert_eq(base.ptr[base.len], '\0');
}

/* ---- whole histories ---- */

static cs_history parse(const char *json) {
  cs_history h;
  cs_err err;
  cr_assert_eq(cs_history_parse(cs_str_c(json), NULL, &A, &h, &err), 0, "%s", err.msg);
  return h;
}

typedef struct {
  cs_history h;
  cs_history_index ix;
  cs_answer ans;
} canon_run;

static canon_run canonicalize(cs_history h) {
  canon_run r = {.h = h};
  cs_history_index_build(&r.h, &A, &r.ix);
  r.ans = cs_canonicalize(&r.h, &r.ix, &D, &A);
  return r;
}

/* The contract of every canonical answer: shape, uniqueness, pairing, orphans null. */
static void check_answer(const canon_run *r) {
  cr_assert_eq(r->ans.ncalls, r->ix.ncalls);
  cr_assert_eq(r->ans.nresults, r->ix.nresults);
  for (uint32_t c = 0; c < r->ans.ncalls; c++) {
    cr_assert(canonical_shape(r->ans.calls[c]), "call %u: %.*s", c, (int)r->ans.calls[c].len, r->ans.calls[c].ptr);
    for (uint32_t k = 0; k < c; k++)
      cr_assert_not(cs_str_eq(r->ans.calls[c], r->ans.calls[k]), "calls %u and %u share an ID", k, c);
  }
  for (uint32_t i = 0; i < r->ans.nresults; i++) {
    if (r->ix.pair[i] < 0)
      cr_assert(cs_str_is_null(r->ans.results[i]), "orphan result %u must be null", i);
    else
      cr_assert(cs_str_eq(r->ans.results[i], r->ans.calls[r->ix.pair[i]]), "result %u", i);
  }
}

/* PROTOCOL.md re-ingestion: calls take their canonical IDs, orphan results are removed, the other
 * results take their canonical IDs. */
static cs_history reingest(const canon_run *r) {
  cs_history out = cs_history_clone(&r->h, &A);
  uint32_t ci = 0, ri = 0;
  for (uint32_t t = 0; t < out.nturns; t++) {
    cs_turn *turn = &out.turns[t];
    for (uint32_t k = 0; k < turn->ncalls; k++)
      turn->calls[k].id = r->ans.calls[ci++];
    uint32_t kept = 0;
    for (uint32_t k = 0; k < turn->nresults; k++, ri++) {
      if (cs_str_is_null(r->ans.results[ri]))
        continue;
      turn->results[kept] = turn->results[k];
      turn->results[kept++].call_id = r->ans.results[ri];
    }
    turn->nresults = kept;
  }
  return out;
}

static void check_idempotent(const canon_run *r) {
  canon_run again = canonicalize(reingest(r));
  check_answer(&again);
  cr_assert_eq(again.ans.ncalls, r->ans.ncalls);
  for (uint32_t c = 0; c < r->ans.ncalls; c++)
    cr_assert(cs_str_eq(again.ans.calls[c], r->ans.calls[c]), "call %u changed on re-canonicalization", c);
  uint32_t k = 0;
  for (uint32_t i = 0; i < r->ans.nresults; i++) {
    if (cs_str_is_null(r->ans.results[i]))
      continue;
    cr_assert(cs_str_eq(again.ans.results[k], r->ans.results[i]), "result %u changed", i);
    k++;
  }
  cr_assert_eq(k, again.ans.nresults);
}

static const char *MIXED =
    "{\"turns\":["
    "{\"role\":\"user\",\"text\":\"go\"},"
    "{\"role\":\"assistant\",\"provider\":\"anthropic\",\"turn_key\":\"k1\",\"calls\":["
    "{\"id\":\"toolu_01A\",\"name\":\"read_file\"},{\"id\":null,\"name\":\"glob\"},"
    "{\"id\":\"srvtoolu_01X\",\"name\":\"web_search\",\"server\":true}]},"
    "{\"role\":\"tool\",\"turn_key\":\"k1r\",\"results\":[{\"call_id\":\"toolu_01A\",\"name\":\"read_file\"},"
    "{\"call_id\":null,\"name\":\"glob\"},{\"call_id\":\"ghost\",\"name\":\"x\"}]},"
    "{\"role\":\"assistant\",\"provider\":\"kimi\",\"turn_key\":\"k2\",\"calls\":["
    "{\"id\":\"functions.glob:3\",\"name\":\"glob\"},{\"id\":\"\",\"name\":\"read_file\"}]},"
    "{\"role\":\"tool\",\"results\":[{\"call_id\":\"\",\"name\":\"read_file\"},"
    "{\"call_id\":\"functions.glob:3\",\"name\":\"glob\"},{\"call_id\":\"functions.glob:3\",\"name\":\"glob\"}]}"
    "]}";

Test(canonical, history_contract_and_tuple) {
  canon_run r = canonicalize(parse(MIXED));
  check_answer(&r);
  cr_assert_eq(r.ans.ncalls, 5);
  cr_assert_eq(r.ans.nresults, 6);
  /* Each call's ID is the hash of its own tuple (provider, raw, name, turn key, position in turn). */
  cr_assert(cs_str_eq(r.ans.calls[0], canon_id(CS_PROV_ANTHROPIC, S("toolu_01A"), "read_file", S("k1"), 0, 0)));
  cr_assert(cs_str_eq(r.ans.calls[0], S("hist_tool_ragQiIRkg6Pg4Rm4N1aPd8EN")), "golden value in context");
  cr_assert(cs_str_eq(r.ans.calls[1], canon_id(CS_PROV_ANTHROPIC, CS_NULL_STR, "glob", S("k1"), 1, 0)));
  cr_assert(cs_str_eq(r.ans.calls[3], canon_id(CS_PROV_KIMI, S("functions.glob:3"), "glob", S("k2"), 0, 0)));
  cr_assert(cs_str_eq(r.ans.calls[4], canon_id(CS_PROV_KIMI, S(""), "read_file", S("k2"), 1, 0)));
  /* Results: paired by PROTOCOL.md, orphans (unknown ID, duplicate result) null. */
  cr_assert(cs_str_eq(r.ans.results[0], r.ans.calls[0]));
  cr_assert(cs_str_eq(r.ans.results[1], r.ans.calls[1]));
  cr_assert(cs_str_is_null(r.ans.results[2]));
  cr_assert(cs_str_eq(r.ans.results[3], r.ans.calls[4]));
  cr_assert(cs_str_eq(r.ans.results[4], r.ans.calls[3]));
  cr_assert(cs_str_is_null(r.ans.results[5]));
  check_idempotent(&r);
}

Test(canonical, deterministic) {
  canon_run a = canonicalize(parse(MIXED));
  cs_arena other = {0};
  cs_digest d2 = {.hasher = cs_hasher_new()};
  cs_history h2;
  cs_err err;
  cr_assert_eq(cs_history_parse(cs_str_c(MIXED), NULL, &other, &h2, &err), 0);
  cs_history_index ix2;
  cs_history_index_build(&h2, &other, &ix2);
  cs_answer b = cs_canonicalize(&h2, &ix2, &d2, &other);
  cr_assert(cs_answer_eq(&a.ans, &b));
  cs_hasher_free(d2.hasher);
  cs_arena_free(&other);
}

Test(canonical, duplicates_of_the_same_tuple_get_distinct_ids) {
  /* call_0 every turn with no turn key: the tuple repeats; each repeat takes the next attempt. */
  canon_run r = canonicalize(
      parse("{\"turns\":["
            "{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"calls\":[{\"id\":\"call_0\",\"name\":\"f\"}]},"
            "{\"role\":\"tool\",\"results\":[{\"call_id\":\"call_0\",\"name\":\"f\"}]},"
            "{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"calls\":[{\"id\":\"call_0\",\"name\":\"f\"}]},"
            "{\"role\":\"tool\",\"results\":[{\"call_id\":\"call_0\",\"name\":\"f\"}]},"
            "{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"calls\":[{\"id\":\"call_0\",\"name\":\"f\"}]},"
            "{\"role\":\"tool\",\"results\":[{\"call_id\":\"call_0\",\"name\":\"f\"}]}"
            "]}"));
  check_answer(&r);
  /* python3 (see golden_values): attempt 0 and attempt 1 of ("openai_chat", "call_0", "f", None, 0) */
  cr_assert(cs_str_eq_c(r.ans.calls[0], "hist_tool_m9OCtuCyOliNw5OglWJSnk98"));
  cr_assert(cs_str_eq_c(r.ans.calls[1], "hist_tool_qeaMGwKKZg478CDveqgqEqak"));
  cr_assert(cs_str_eq(r.ans.calls[2], canon_id(CS_PROV_OPENAI_CHAT, S("call_0"), "f", CS_NULL_STR, 0, 2)));
  for (uint32_t i = 0; i < 3; i++)
    cr_assert(cs_str_eq(r.ans.results[i], r.ans.calls[i]), "each result follows its own turn's call");
  check_idempotent(&r);
}

Test(canonical, look_alikes_are_kept_unless_taken) {
  cs_str derived0 = canon_id(CS_PROV_UNKNOWN, S("a"), "f", S("t1"), 0, 0);
  char json[2048];
  snprintf(json, sizeof json,
           "{\"turns\":[{\"role\":\"assistant\",\"turn_key\":\"t1\",\"calls\":["
           "{\"id\":\"a\",\"name\":\"f\"},"                                   /* derives derived0 */
           "{\"id\":\"%.*s\",\"name\":\"g\"},"                                /* planted twin of call 0 */
           "{\"id\":\"hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA\",\"name\":\"h\"},"  /* a free look-alike: kept */
           "{\"id\":\"hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA\",\"name\":\"h\"},"  /* its duplicate: derived */
           "{\"id\":\"hist_tool_AAAAAAAAAAAAAAAAAAAAAAA\",\"name\":\"h\"}]}," /* 23 chars: not canonical */
           "{\"role\":\"tool\",\"results\":["
           "{\"call_id\":\"hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA\",\"name\":\"h\"},"
           "{\"call_id\":\"%.*s\",\"name\":\"g\"},"
           "{\"call_id\":\"hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA\",\"name\":\"h\"},"
           "{\"call_id\":\"a\",\"name\":\"f\"}]}]}",
           (int)derived0.len, derived0.ptr, (int)derived0.len, derived0.ptr);
  canon_run r = canonicalize(parse(json));
  check_answer(&r);
  cr_assert(cs_str_eq(r.ans.calls[0], derived0));
  cr_assert(cs_str_eq(r.ans.calls[1], canon_id(CS_PROV_UNKNOWN, derived0, "g", S("t1"), 1, 0)),
            "a twin of an earlier call's canonical ID is re-derived from its own tuple");
  cr_assert(cs_str_eq_c(r.ans.calls[2], "hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA"), "an already canonical ID is kept");
  cr_assert(cs_str_eq(r.ans.calls[3],
                      canon_id(CS_PROV_UNKNOWN, S("hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA"), "h", S("t1"), 3, 0)));
  cr_assert(
      cs_str_eq(r.ans.calls[4], canon_id(CS_PROV_UNKNOWN, S("hist_tool_AAAAAAAAAAAAAAAAAAAAAAA"), "h", S("t1"), 4, 0)));
  cr_assert(cs_str_eq(r.ans.results[0], r.ans.calls[2]));
  cr_assert(cs_str_eq(r.ans.results[1], r.ans.calls[1]), "the twin's result follows the twin, not call 0");
  cr_assert(cs_str_eq(r.ans.results[2], r.ans.calls[3]));
  cr_assert(cs_str_eq(r.ans.results[3], r.ans.calls[0]));
  check_idempotent(&r);
}

Test(canonical, a_later_look_alike_of_an_earlier_derived_id) {
  /* Call 1's raw ID is exactly what call 0 derives: call 0 keeps it (it came first), call 1 is
   * re-derived. Then a third call derives an ID that collides with nothing. */
  cs_str d0 = canon_id(CS_PROV_GEMINI, S("x"), "f", S("k"), 0, 0);
  char json[1024];
  snprintf(json, sizeof json,
           "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"gemini\",\"turn_key\":\"k\",\"calls\":["
           "{\"id\":\"x\",\"name\":\"f\"},{\"id\":\"%.*s\",\"name\":\"f\"},{\"id\":null,\"name\":\"f\"}]},"
           "{\"role\":\"tool\",\"results\":[{\"call_id\":null,\"name\":\"f\"},{\"call_id\":null,\"name\":\"f\"},"
           "{\"call_id\":null,\"name\":\"f\"},{\"call_id\":null,\"name\":\"f\"}]}]}",
           (int)d0.len, d0.ptr);
  canon_run r = canonicalize(parse(json));
  check_answer(&r);
  cr_assert(cs_str_eq(r.ans.calls[0], d0));
  cr_assert_not(cs_str_eq(r.ans.calls[1], d0));
  cr_assert(cs_str_eq(r.ans.results[0], r.ans.calls[0]), "positional pairing");
  cr_assert(cs_str_eq(r.ans.results[2], r.ans.calls[2]));
  cr_assert(cs_str_is_null(r.ans.results[3]), "a fourth positional result is an orphan");
  check_idempotent(&r);
}

Test(canonical, canonical_input_is_a_fixed_point) {
  canon_run r = canonicalize(parse(MIXED));
  canon_run once = canonicalize(reingest(&r));
  canon_run twice = canonicalize(reingest(&once));
  cr_assert(cs_answer_eq(&once.ans, &twice.ans));
}

Test(canonical, server_calls_and_empty_history) {
  canon_run r =
      canonicalize(parse("{\"turns\":[{\"role\":\"assistant\",\"provider\":\"anthropic\",\"calls\":["
                         "{\"id\":\"srvtoolu_01\",\"name\":\"web\",\"server\":true},"
                         "{\"id\":\"srvtoolu_01\",\"name\":\"web\",\"server\":true}]},"
                         "{\"role\":\"tool\",\"results\":[{\"call_id\":\"srvtoolu_01\",\"name\":\"web\"}]}]}"));
  check_answer(&r);
  cr_assert(cs_str_is_null(r.ans.results[0]), "server calls take no results");
  check_idempotent(&r);
  canon_run e = canonicalize(parse("{\"turns\":[]}"));
  cr_assert_eq(e.ans.ncalls, 0);
  cr_assert_eq(e.ans.nresults, 0);
}

Test(canonical, huge_and_hostile_ids) {
  size_t n = 65536;
  char *json = malloc(n + 512);
  int k = snprintf(json, 512, "{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"");
  memset(json + k, 'z', n);
  snprintf(
      json + k + n, 512,
      "\",\"name\":\"f\"},{\"id\":\"\\u0001\\u2028\xf0\x9f\x98\x80|:./+= \",\"name\":\"\\u0001\"}]},"
      "{\"role\":\"tool\",\"results\":[{\"call_id\":\"\\u0001\\u2028\xf0\x9f\x98\x80|:./+= \",\"name\":\"x\"}]}]}");
  canon_run r = canonicalize(parse(json));
  check_answer(&r);
  cr_assert(cs_str_eq(r.ans.results[0], r.ans.calls[1]));
  check_idempotent(&r);
  free(json);
}

/* ---- collision resolution: the same IDs as the plain algorithm, in linear work ---- */

typedef struct {
  cs_hasher *hasher;
  unsigned long calls;
} counting_digest;

static void count_run(void *user, const void *data, size_t len, uint8_t out[32]) {
  counting_digest *c = user;
  c->calls++;
  cs_sha256(c->hasher, data, len, out);
}

/* canonical v1 as providers/canonical.h states it, attempt after attempt from 0 for every call,
 * written without the code under test's shortcuts. */
static cs_answer plain_canonicalize(const cs_history *h, const cs_history_index *ix) {
  cs_answer ans = cs_answer_new(ix->ncalls, ix->nresults, &A);
  cs_strset used;
  cs_strset_init(&used, ix->ncalls, &A);
  for (uint32_t c = 0; c < ix->ncalls; c++) {
    const cs_call *call = ix->calls[c];
    const cs_turn *turn = &h->turns[ix->call_turn[c]];
    cs_str id = call->id;
    if (!canonical_shape(id) || !cs_strset_add(&used, id)) {
      uint32_t attempt = 0;
      do
        id = cs_canonical_id(&D, turn->provider, call->id, call->name, turn->turn_key, ix->call_pos[c], attempt++, &A);
      while (!cs_strset_add(&used, id));
    }
    ans.calls[c] = id;
  }
  cs_answer_pair_results(&ans, ix);
  return ans;
}

/* Canonicalizes the history in `json` (freed: the history lives in the arena) through a digest that
 * counts its calls; checks the answer against the plain algorithm's and returns the count. */
static unsigned long canonicalize_counting(cs_buf *json, canon_run *out) {
  cs_history h;
  cs_err err;
  int rc = cs_history_parse(cs_buf_view(json), NULL, &A, &h, &err);
  cs_buf_free(json);
  cr_assert_eq(rc, 0, "%s", err.msg);
  counting_digest cd = {.hasher = D.hasher};
  cs_digest d = {.digest = count_run, .digest_user = &cd};
  canon_run r = {.h = h};
  cs_history_index_build(&r.h, &A, &r.ix);
  r.ans = cs_canonicalize(&r.h, &r.ix, &d, &A);
  check_answer(&r);
  cs_answer want = plain_canonicalize(&r.h, &r.ix);
  for (uint32_t c = 0; c < r.ix.ncalls; c++)
    cr_assert(cs_str_eq(r.ans.calls[c], want.calls[c]), "call %u: %.*s, the plain algorithm gives %.*s", c,
              (int)r.ans.calls[c].len, r.ans.calls[c].ptr, (int)want.calls[c].len, want.calls[c].ptr);
  cr_assert(cs_answer_eq(&r.ans, &want));
  *out = r;
  return cd.calls;
}

/* The k-th repeat of a tuple takes attempt k. Re-trying attempts 0..k-1 each time would hash
 * n(n+1)/2 messages; each repeat hashes its taken attempt 0 and then the one it takes. */
Test(canonical, repeats_of_one_tuple_take_linear_work) {
  enum { N = 400 };
  cs_buf b = {0};
  cs_buf_puts(&b, "{\"turns\":[");
  for (int i = 0; i < N; i++)
    cs_buf_printf(&b,
                  "%s{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"turn_key\":\"k\",\"calls\":["
                  "{\"id\":\"call_0\",\"name\":\"glob\"}]},{\"role\":\"tool\",\"results\":[{\"call_id\":\"call_0\","
                  "\"name\":\"glob\"}]}",
                  i ? "," : "");
  cs_buf_puts(&b, "]}");
  canon_run r;
  unsigned long digests = canonicalize_counting(&b, &r);
  cr_assert_eq(r.ix.ncalls, N);
  cr_assert_eq(digests, 2 * N - 1, "%lu digests for %d repeats", digests, N);
  cr_assert(cs_str_eq(r.ans.calls[N - 1], canon_id(CS_PROV_OPENAI_CHAT, S("call_0"), "glob", S("k"), 0, N - 1)));
}

/* Repeated tuples that differ from each other in one field only (provider, null or empty raw ID,
 * tool name, null or empty turn key, position), with planted canonical IDs taking some of their
 * attempts ahead of them and look-alikes of attempts already taken: the same IDs as the plain
 * algorithm, and at most three digests a call (every taken attempt is an ID some call holds, plus
 * a taken attempt 0 per call). */
Test(canonical, repeats_with_near_twins_and_planted_attempts) {
  enum { ROUNDS = 60 };
  static const char *const keys[] = {"\"turn_key\":\"k\",", "", "\"turn_key\":\"\","};
  static const char *const provs[] = {"openai_chat", "anthropic"};
  static const char *const calls = "{\"id\":\"call_0\",\"name\":\"glob\"},{\"id\":null,\"name\":\"glob\"},"
                                   "{\"id\":\"\",\"name\":\"glob\"},{\"id\":\"call_0\",\"name\":\"read\"},"
                                   "{\"id\":\"call_0\",\"name\":\"glob\"}";
  /* Attempts 3, 7 and 8 of the first tuple, planted before any repeat reaches them. */
  cs_str planted[3];
  const uint32_t planted_at[3] = {3, 7, 8};
  for (int i = 0; i < 3; i++)
    planted[i] = canon_id(CS_PROV_OPENAI_CHAT, S("call_0"), "glob", S("k"), 0, planted_at[i]);
  cs_buf b = {0};
  cs_buf_printf(&b,
                "{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"%.*s\",\"name\":\"x\"},"
                "{\"id\":\"%.*s\",\"name\":\"x\"}]}",
                (int)planted[0].len, planted[0].ptr, (int)planted[1].len, planted[1].ptr);
  for (int round = 0; round < ROUNDS; round++) {
    for (size_t p = 0; p < 2; p++)
      for (size_t k = 0; k < 3; k++)
        cs_buf_printf(&b, ",{\"role\":\"assistant\",\"provider\":\"%s\",%s\"calls\":[%s]}", provs[p], keys[k], calls);
    if (round == 2 || round == 30) /* the third planted attempt, then a look-alike of one long taken */
      cs_buf_printf(&b, ",{\"role\":\"assistant\",\"calls\":[{\"id\":\"%.*s\",\"name\":\"x\"}]}",
                    (int)planted[round == 2 ? 2 : 0].len, planted[round == 2 ? 2 : 0].ptr);
  }
  cs_buf_puts(&b, "]}");
  canon_run r;
  unsigned long digests = canonicalize_counting(&b, &r);
  cr_assert_eq(r.ix.ncalls, 2 + ROUNDS * 30 + 2);
  cr_assert(cs_str_eq(r.ans.calls[0], planted[0]) && cs_str_eq(r.ans.calls[1], planted[1]), "planted IDs are kept");
  cr_assert_leq(digests, 3ul * r.ix.ncalls, "%lu digests for %u calls", digests, r.ix.ncalls);
  check_idempotent(&r);
}
