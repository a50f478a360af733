/* tests/unit/test_mappers.c: the reference mappers (one per providers/ file) through cs_reference_emit and
 * cs_reference_normalize: every emitted ID valid for its target, unique per request, results equal
 * to their call's ID, Kimi round trip, server and native passthrough, rule overrides, and forced
 * collisions through an injected digest. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/history_json.h"
#include "core/strset.h"
#include "providers/canonical.h"

static cs_arena A;
static cs_digest D;
static cs_ruleset *RS;
static void setup(void) {
  cs_err err = {{0}};
  memset(&A, 0, sizeof A);
  D = (cs_digest){.hasher = cs_hasher_new()};
  cr_assert_not_null(D.hasher);
  RS = cs_ruleset_new(&err);
  cr_assert_not_null(RS, "%s", err.msg);
}
static void teardown(void) {
  cs_ruleset_free(RS);
  cs_hasher_free(D.hasher);
  cs_arena_free(&A);
}
TestSuite(mappers, .init = setup, .fini = teardown);

/* ---- injected digests ---- */

typedef struct {
  cs_hasher *hasher;
  unsigned calls;                                 /* every invocation */
  unsigned rehashes;                              /* invocations for a re-derivation (input ends in "#<attempt>") */
  unsigned max_attempt;                           /* highest attempt seen */
  enum { REAL, COLLIDE_FIRST, COLLIDE_ALL } mode; /* SHA-256 always; constant for first attempts; constant */
} fake_digest;

static unsigned attempt_of(const char *p, size_t n) {
  size_t k = n;
  while (k > 0 && p[k - 1] >= '0' && p[k - 1] <= '9')
    k--;
  if (k == n || k == 0 || p[k - 1] != '#')
    return 0;
  return (unsigned)strtoul(p + k, NULL, 10);
}

static void fake_run(void *user, const void *data, size_t len, uint8_t out[32]) {
  fake_digest *f = user;
  f->calls++;
  unsigned at = attempt_of(data, len);
  if (at) {
    f->rehashes++;
    if (at > f->max_attempt)
      f->max_attempt = at;
  }
  if (f->mode == COLLIDE_ALL || (f->mode == COLLIDE_FIRST && at == 0))
    memset(out, 0xA5, 32);
  else
    cs_sha256(f->hasher, data, len, out);
}

/* ---- running and checking ---- */

static cs_history parse(const char *json) {
  cs_history h;
  cs_err err;
  cr_assert_eq(cs_history_parse(cs_str_c(json), NULL, &A, &h, &err), 0, "%s", err.msg);
  return h;
}

typedef struct {
  cs_history h;
  cs_history_index ix;
  cs_answer canon;
} prepared;

static prepared prepare(cs_history h) {
  prepared p = {.h = h};
  cs_history_index_build(&p.h, &A, &p.ix);
  p.canon = cs_canonicalize(&p.h, &p.ix, &D, &A);
  return p;
}

static cs_answer emit(const prepared *p, cs_target_id t, const cs_digest *d) {
  return cs_reference_emit(&p->h, &p->ix, &p->canon, RS, t, d, &A);
}

/* The emit contract: valid, unique, paired, orphans dropped. */
static void check_emit(const prepared *p, const cs_answer *ans, cs_target_id t, const char *label) {
  const char *tn = cs_target_get(t)->name;
  cr_assert_eq(ans->ncalls, p->ix.ncalls);
  cr_assert_eq(ans->nresults, p->ix.nresults);
  cs_strset used;
  cs_strset_init(&used, ans->ncalls, &A);
  for (uint32_t c = 0; c < ans->ncalls; c++) {
    char why[256] = "";
    cs_str id = ans->calls[c];
    cr_assert(cs_rule_check(RS, t, id, c, p->ix.calls[c]->server, why, sizeof why) == CS_RULE_MET,
              "%s/%s call %u: '%.*s' %s", label, tn, c, (int)(id.len > 80 ? 80 : id.len), id.ptr ? id.ptr : "(null)",
              why);
    cr_assert(cs_strset_add(&used, id), "%s/%s call %u: duplicate '%.*s'", label, tn, c, (int)id.len, id.ptr);
  }
  for (uint32_t r = 0; r < ans->nresults; r++) {
    if (p->ix.pair[r] < 0)
      cr_assert(cs_str_is_null(ans->results[r]), "%s/%s orphan result %u must be dropped", label, tn, r);
    else
      cr_assert(cs_str_eq(ans->results[r], ans->calls[p->ix.pair[r]]), "%s/%s result %u", label, tn, r);
  }
}

static char *huge_id(char fill, size_t n) {
  char *s = cs_arena_alloc(&A, n + 1);
  memset(s, fill, n);
  s[n] = 0;
  return s;
}

/* Hostile hand-made histories. */
static const char *HOSTILE[] = {
    /* 0: structure: server calls, null/empty IDs, duplicates in a turn and across turns, orphans,
     * unanswered calls, provider switch. */
    "{\"turns\":[{\"role\":\"user\",\"text\":\"go\"},"
    "{\"role\":\"assistant\",\"provider\":\"anthropic\",\"turn_key\":\"k1\",\"calls\":["
    "{\"id\":\"toolu_01A\",\"name\":\"read\"},{\"id\":\"toolu_01A\",\"name\":\"read\"},{\"id\":null,\"name\":\"glob\"},"
    "{\"id\":\"\",\"name\":\"glob\"},{\"id\":\"srvtoolu_01X\",\"name\":\"web\",\"server\":true},"
    "{\"id\":\"srvtoolu_01X\",\"name\":\"web\",\"server\":true},{\"id\":\"srvtoolu_a-b\",\"name\":\"web\",\"server\":"
    "true},"
    "{\"id\":null,\"name\":\"web\",\"server\":true}]},"
    "{\"role\":\"tool\",\"results\":[{\"call_id\":\"toolu_01A\",\"name\":\"read\"},{\"call_id\":null,\"name\":\"glob\"}"
    ","
    "{\"call_id\":\"toolu_01A\",\"name\":\"read\"},{\"call_id\":\"toolu_01A\",\"name\":\"read\"},"
    "{\"call_id\":\"nope\",\"name\":\"x\"},{\"call_id\":\"srvtoolu_01X\",\"name\":\"web\"}]},"
    "{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"calls\":[{\"id\":\"call_0\",\"name\":\"f\"}]},"
    "{\"role\":\"tool\",\"results\":[{\"call_id\":\"call_0\",\"name\":\"f\"}]},"
    "{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"calls\":[{\"id\":\"call_0\",\"name\":\"f\"}]},"
    "{\"role\":\"tool\",\"results\":[{\"call_id\":\"call_0\",\"name\":\"f\"}]},"
    "{\"role\":\"assistant\",\"provider\":\"mistral\",\"calls\":[{\"id\":\"call_0\",\"name\":\"f\"}]}]}",
    /* 1: native formats of every provider, turn by turn. */
    "{\"turns\":["
    "{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"calls\":[{\"id\":\"call_abc123\",\"name\":\"a\"}]},"
    "{\"role\":\"assistant\",\"provider\":\"anthropic\",\"calls\":[{\"id\":\"toolu_01AbC\",\"name\":\"a\"},"
    "{\"id\":\"toolu_vrtx_01AbC\",\"name\":\"a\"},{\"id\":\"srvtoolu_01AbC\",\"name\":\"a\"}]},"
    "{\"role\":\"assistant\",\"provider\":\"openai_responses\",\"calls\":[{\"id\":\"fc_1|call_2\",\"name\":\"a\"}]},"
    "{\"role\":\"assistant\",\"provider\":\"kimi\",\"calls\":[{\"id\":\"functions.glob:0\",\"name\":\"glob\"},"
    "{\"id\":\"glob:0\",\"name\":\"glob\"}]},"
    "{\"role\":\"assistant\",\"provider\":\"mistral\",\"calls\":[{\"id\":\"abcDEF123\",\"name\":\"a\"},"
    "{\"id\":\"abcDEF123\",\"name\":\"a\"}]},"
    "{\"role\":\"assistant\",\"provider\":\"adk\",\"calls\":[{\"id\":\"adk-6f1c2a44-59a8-4b43-9b1e-3c1f4d2c9a77\","
    "\"name\":\"a\"}]},"
    "{\"role\":\"assistant\",\"provider\":\"bedrock\",\"calls\":[{\"id\":\"tooluse_Ab9\",\"name\":\"a\"}]},"
    "{\"role\":\"assistant\",\"provider\":\"gemini\",\"calls\":[{\"id\":\"\",\"name\":\"a\"},{\"id\":\"x "
    "y\",\"name\":\"a\"}]},"
    "{\"role\":\"assistant\",\"provider\":\"aisdk\",\"calls\":[{\"id\":\"call_abc123\",\"name\":\"a\"}]}]}",
    /* 2: twins: equal after sanitizing, case folding, prefix stripping, truncation at 9/40/64. */
    "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"unknown\",\"calls\":["
    "{\"id\":\"a|b\",\"name\":\"f\"},{\"id\":\"a_b\",\"name\":\"f\"},{\"id\":\"a.b\",\"name\":\"f\"},{\"id\":\"a:b\","
    "\"name\":\"f\"},"
    "{\"id\":\"ABC\",\"name\":\"f\"},{\"id\":\"abc\",\"name\":\"f\"},{\"id\":\"call_abc\",\"name\":\"f\"},"
    "{\"id\":\"toolu_abc\",\"name\":\"f\"},{\"id\":\"123456789A\",\"name\":\"f\"},{\"id\":\"123456789B\",\"name\":"
    "\"f\"},"
    "{\"id\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1\",\"name\":\"f\"},"
    "{\"id\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2\",\"name\":\"f\"},"
    "{\"id\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1\",\"name\":\"f\"},"
    "{\"id\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2\",\"name\":\"f\"},"
    "{\"id\":\"hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA\",\"name\":\"f\"},{\"id\":\"hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA\","
    "\"name\":\"f\"}]},"
    "{\"role\":\"tool\",\"results\":[{\"call_id\":\"a_b\",\"name\":\"f\"},{\"call_id\":\"a|b\",\"name\":\"f\"},"
    "{\"call_id\":\"abc\",\"name\":\"f\"},{\"call_id\":\"ABC\",\"name\":\"f\"},"
    "{\"call_id\":\"hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA\",\"name\":\"f\"},{\"call_id\":\"hist_tool_"
    "AAAAAAAAAAAAAAAAAAAAAAAA\",\"name\":\"f\"}]}]}",
    /* 3: illegal characters, control, non-ASCII, odd tool names, positional results reordered. */
    "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"gemini\",\"turn_key\":\"\\u2028\",\"calls\":["
    "{\"id\":\"\\u0001\\u001f\",\"name\":\"my tool/\xc3\xbc\"},{\"id\":\"\xf0\x9f\x98\x80\",\"name\":\"\"},"
    "{\"id\":\"a b+c=d/e\",\"name\":\"f:g\"},{\"id\":null,\"name\":\"same\"},{\"id\":null,\"name\":\"same\"},"
    "{\"id\":null,\"name\":\"same\"}]},"
    "{\"role\":\"tool\",\"results\":[{\"call_id\":null,\"name\":\"same\"},{\"call_id\":\"\xf0\x9f\x98\x80\",\"name\":"
    "\"\"},"
    "{\"call_id\":\"\",\"name\":\"same\"},{\"call_id\":\"\\u0001\\u001f\",\"name\":\"my tool/\xc3\xbc\"}]}]}",
    /* 4: Kimi-looking IDs with wrong indices from other providers, and an empty history part. */
    "{\"turns\":[{\"role\":\"system\",\"text\":\"s\"},"
    "{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"calls\":[{\"id\":\"functions.read:5\",\"name\":\"read\"},"
    "{\"id\":\"functions.read:0\",\"name\":\"read\"}]},"
    "{\"role\":\"assistant\",\"provider\":\"kimi\",\"calls\":[]},"
    "{\"role\":\"assistant\",\"provider\":\"kimi\",\"calls\":[{\"id\":\"functions.read:0\",\"name\":\"read\"}]},"
    "{\"role\":\"tool\",\"results\":[{\"call_id\":\"functions.read:0\",\"name\":\"read\"}]}]}",
};

/* History 5: 300 calls with the same raw ID in one turn (many duplicates for 9-character IDs). */
static cs_history many_duplicates(void) {
  cs_buf b = {0};
  cs_buf_puts(&b, "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"mistral\",\"calls\":[");
  for (int i = 0; i < 300; i++)
    cs_buf_printf(&b, "%s{\"id\":\"x\",\"name\":\"f\"}", i ? "," : "");
  cs_buf_puts(&b, "]},{\"role\":\"tool\",\"results\":[");
  for (int i = 0; i < 300; i++)
    cs_buf_printf(&b, "%s{\"call_id\":\"x\",\"name\":\"f\"}", i ? "," : "");
  cs_buf_puts(&b, "]}]}");
  cs_history h = parse(b.data);
  cs_buf_free(&b);
  return h;
}

/* History 6: huge IDs (65..1000 characters and 64 KiB). */
static cs_history huge_ids(void) {
  cs_buf b = {0};
  cs_buf_printf(&b,
                "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"openai_responses\",\"calls\":["
                "{\"id\":\"%s\",\"name\":\"f\"},{\"id\":\"%s\",\"name\":\"f\"},{\"id\":\"%s\",\"name\":\"f\"}]},"
                "{\"role\":\"tool\",\"results\":[{\"call_id\":\"%s\",\"name\":\"f\"}]}]}",
                huge_id('a', 65), huge_id('b', 1000), huge_id('c', 65536), huge_id('c', 65536));
  cs_history h = parse(b.data);
  cs_buf_free(&b);
  return h;
}

static prepared hostile(size_t i) {
  size_t n = sizeof HOSTILE / sizeof *HOSTILE;
  if (i < n)
    return prepare(parse(HOSTILE[i]));
  return prepare(i == n ? many_duplicates() : huge_ids());
}
#define NHOSTILE (sizeof HOSTILE / sizeof *HOSTILE + 2)

Test(mappers, every_target_on_hostile_histories) {
  for (size_t i = 0; i < NHOSTILE; i++) {
    prepared p = hostile(i);
    char label[32];
    snprintf(label, sizeof label, "history %zu", i);
    for (int t = 0; t < CS_TARGET_COUNT; t++) {
      cs_answer a = emit(&p, (cs_target_id)t, &D);
      check_emit(&p, &a, (cs_target_id)t, label);
      cs_answer again = emit(&p, (cs_target_id)t, &D);
      cr_assert(cs_answer_eq(&a, &again), "%s/%d: emit is not deterministic", label, t);
    }
  }
}

Test(mappers, kimi_history_comes_back_unchanged) {
  prepared p = prepare(parse(
      "{\"turns\":[{\"role\":\"user\",\"text\":\"q\"},"
      "{\"role\":\"assistant\",\"provider\":\"kimi\",\"turn_key\":\"a\",\"calls\":["
      "{\"id\":\"functions.glob:0\",\"name\":\"glob\"},{\"id\":\"functions.read_file:1\",\"name\":\"read_file\"}]},"
      "{\"role\":\"tool\",\"results\":[{\"call_id\":\"functions.read_file:1\",\"name\":\"read_file\"},"
      "{\"call_id\":\"functions.glob:0\",\"name\":\"glob\"}]},"
      "{\"role\":\"assistant\",\"provider\":\"kimi\",\"turn_key\":\"b\",\"calls\":["
      "{\"id\":\"functions.read_file:2\",\"name\":\"read_file\"},{\"id\":\"functions.a.b-c:3\",\"name\":\"a.b-c\"}]},"
      "{\"role\":\"tool\",\"results\":[{\"call_id\":\"functions.read_file:2\",\"name\":\"read_file\"},"
      "{\"call_id\":\"functions.a.b-c:3\",\"name\":\"a.b-c\"}]}]}"));
  cs_answer a = emit(&p, CS_PROV_KIMI, &D);
  check_emit(&p, &a, CS_PROV_KIMI, "kimi");
  for (uint32_t c = 0; c < p.ix.ncalls; c++)
    cr_assert(cs_str_eq(a.calls[c], p.ix.calls[c]->id), "call %u changed to %.*s", c, (int)a.calls[c].len,
              a.calls[c].ptr);
  for (uint32_t r = 0; r < p.ix.nresults; r++)
    cr_assert(cs_str_eq(a.results[r], p.ix.results[r]->call_id), "result %u changed", r);
}

Test(mappers, kimi_indices_are_global_from_zero) {
  prepared p = hostile(0);
  cs_answer a = emit(&p, CS_PROV_KIMI, &D);
  for (uint32_t c = 0; c < a.ncalls; c++) {
    const char *colon = NULL;
    for (size_t k = 0; k < a.calls[c].len; k++)
      if (a.calls[c].ptr[k] == ':')
        colon = a.calls[c].ptr + k;
    cr_assert_not_null(colon);
    cr_assert_eq(strtoul(colon + 1, NULL, 10), c);
    cr_assert(cs_str_starts(a.calls[c], "functions."));
  }
  /* Names are cleaned into the Kimi character set, one '_' per non-ASCII character. */
  prepared q = hostile(3);
  cs_answer b = emit(&q, CS_PROV_KIMI, &D);
  cr_assert(cs_str_eq_c(b.calls[0], "functions.my_tool__:0"), "%.*s", (int)b.calls[0].len, b.calls[0].ptr);
  cr_assert(cs_str_eq_c(b.calls[1], "functions._:1"), "an empty name still gives a valid ID");
  cr_assert(cs_str_eq_c(b.calls[2], "functions.f_g:2"));
}

Test(mappers, anthropic_server_calls_pass_unchanged) {
  prepared p = hostile(0);
  cs_answer a = emit(&p, CS_PROV_ANTHROPIC, &D);
  check_emit(&p, &a, CS_PROV_ANTHROPIC, "server");
  cr_assert(cs_str_eq_c(a.calls[4], "srvtoolu_01X"), "a valid server ID reaches anthropic unchanged");
  /* Its duplicate, the invalid one and the null one get fresh srvtoolu_ IDs. */
  for (int c = 5; c <= 7; c++) {
    cr_assert(cs_str_starts(a.calls[c], "srvtoolu_"));
    cr_assert(cs_rule_server_ok(RS, CS_PROV_ANTHROPIC, a.calls[c], NULL, 0) == CS_RULE_MET);
  }
  cr_assert_not(cs_str_eq_c(a.calls[5], "srvtoolu_01X"));
  /* A server call recorded under another provider is still passed through. */
  prepared q = prepare(parse("{\"turns\":[{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"calls\":["
                             "{\"id\":\"srvtoolu_01AbC_x\",\"name\":\"web\",\"server\":true}]}]}"));
  cs_answer b = emit(&q, CS_PROV_ANTHROPIC, &D);
  cr_assert(cs_str_eq_c(b.calls[0], "srvtoolu_01AbC_x"));
  /* Other targets treat server calls as ordinary calls. */
  cs_answer c = emit(&q, CS_PROV_MISTRAL, &D);
  check_emit(&q, &c, CS_PROV_MISTRAL, "server->mistral");
}

Test(mappers, native_passthrough) {
  static const struct {
    cs_target_id t;
    const char *id;
  } native[] = {
      {CS_PROV_ANTHROPIC, "toolu_01AbC-x_y"},
      {CS_PROV_OPENAI_CHAT, "call_sS3HejVTEiGEJGwTW7bxHKh8"},
      {CS_PROV_OPENAI_RESPONSES, "fc_1|call_2 with anything"},
      {CS_PROV_MISTRAL, "abcDEF123"},
      {CS_PROV_GEMINI, "any \xf0\x9f\x98\x80 text"},
      {CS_PROV_BEDROCK, "tooluse_Ab9-x"},
  };
  for (size_t i = 0; i < sizeof native / sizeof *native; i++) {
    const char *tn = cs_target_get(native[i].t)->name;
    char json[512];
    snprintf(json, sizeof json,
             "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"%s\",\"calls\":[{\"id\":\"%s\",\"name\":\"f\"}]},"
             "{\"role\":\"tool\",\"results\":[{\"call_id\":\"%s\",\"name\":\"f\"}]}]}",
             tn, native[i].id, native[i].id);
    prepared p = prepare(parse(json));
    cs_answer a = emit(&p, native[i].t, &D);
    check_emit(&p, &a, native[i].t, "native");
    cr_assert(cs_str_eq_c(a.calls[0], native[i].id), "%s: native ID changed to %.*s", tn, (int)a.calls[0].len,
              a.calls[0].ptr);
    cr_assert(cs_str_eq_c(a.results[0], native[i].id));
    /* The same ID from another provider is mapped, not passed through. */
    snprintf(json, sizeof json,
             "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"%s\",\"calls\":[{\"id\":\"%s\",\"name\":\"f\"}]}]}",
             native[i].t == CS_PROV_ADK ? "unknown" : "adk", native[i].id);
    prepared q = prepare(parse(json));
    cs_answer b = emit(&q, native[i].t, &D);
    check_emit(&q, &b, native[i].t, "foreign");
    cr_assert_not(cs_str_eq_c(b.calls[0], native[i].id), "%s: foreign ID passed through", tn);
  }
  /* A native but invalid ID is mapped. */
  prepared m = prepare(parse("{\"turns\":[{\"role\":\"assistant\",\"provider\":\"mistral\",\"calls\":["
                             "{\"id\":\"abcDEF12\",\"name\":\"f\"}]}]}"));
  cs_answer c = emit(&m, CS_PROV_MISTRAL, &D);
  check_emit(&m, &c, CS_PROV_MISTRAL, "invalid native");
  cr_assert_not(cs_str_eq_c(c.calls[0], "abcDEF12"));
}

Test(mappers, mapped_shapes) {
  prepared p = prepare(parse("{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"x\",\"name\":\"f\"}]}]}"));
  cs_str canon = p.canon.calls[0];
  cs_str suffix = {canon.ptr + 10, 24};
  struct {
    cs_target_id t;
    const char *prefix;
  } shapes[] = {{CS_PROV_ANTHROPIC, "toolu_"},
                {CS_PROV_OPENAI_CHAT, "call_"},
                {CS_PROV_OPENAI_RESPONSES, "call_"},
                {CS_PROV_BEDROCK, "tooluse_"},
                {CS_PROV_GEMINI, "hist_tool_"}};
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    cs_answer a = emit(&p, shapes[i].t, &D);
    size_t pl = strlen(shapes[i].prefix);
    cr_assert(cs_str_starts(a.calls[0], shapes[i].prefix));
    cr_assert_eq(a.calls[0].len, pl + 24);
    cr_assert_eq(memcmp(a.calls[0].ptr + pl, suffix.ptr, 24), 0, "the canonical suffix is reused");
  }
  cs_answer g = emit(&p, CS_PROV_GEMINI, &D);
  cr_assert(cs_str_eq(g.calls[0], canon), "gemini gets the canonical ID itself");
  cs_answer m = emit(&p, CS_PROV_MISTRAL, &D);
  cr_assert_eq(m.calls[0].len, 9);
}

/* Each entry: overrides separated by spaces, all on the target named first. */
Test(mappers, rule_overrides_still_give_valid_ids) {
  static const char *const overrides[] = {
      "openai_chat.max_len=20",
      "openai_chat.max_len=12",
      "openai_chat.max_len=5",
      "openai_chat.min_len=35",
      "openai_chat.max_len=64 openai_chat.min_len=50",
      "openai_responses.max_len=20",
      "anthropic.max_len=10",
      "anthropic.max_len=30",
      "anthropic.max_len=0 anthropic.min_len=200",
      "anthropic.server_pattern= anthropic.max_len=20",
      "bedrock.max_len=16",
      "bedrock.min_len=50",
      "gemini.max_len=20",
      "gemini.max_len=8",
      "gemini.min_len=60",
      "mistral.pattern=^[a-zA-Z0-9]+$ mistral.max_len=8 mistral.min_len=1",
      "mistral.pattern=^[a-zA-Z0-9]+$ mistral.max_len=0 mistral.min_len=95",
      "kimi.max_len=16", /* up to 999 calls: functions.X:999 */
      "kimi.min_len=40",
  };
  for (size_t o = 0; o < sizeof overrides / sizeof *overrides; o++) {
    cs_err err;
    cs_ruleset_free(RS);
    RS = cs_ruleset_new(&err);
    char *specs = strcpy(cs_arena_alloc(&A, strlen(overrides[o]) + 1), overrides[o]);
    for (char *save = NULL, *spec = strtok_r(specs, " ", &save); spec; spec = strtok_r(NULL, " ", &save))
      cr_assert_eq(cs_ruleset_override(RS, spec, &err), 0, "%s", err.msg);
    cr_assert_eq(cs_ruleset_check(RS, &err), 0, "%s", err.msg);
    cs_target_id t = (cs_target_id)cs_target_parse(strtok(strcpy(cs_arena_alloc(&A, 64), overrides[o]), "."));
    for (size_t i = 0; i < NHOSTILE; i++) {
      prepared p = hostile(i);
      cs_answer a = emit(&p, t, &D);
      check_emit(&p, &a, t, overrides[o]);
    }
    for (int k = 0; k < 200 && t != CS_PROV_KIMI; k++) { /* no stateless normalize for kimi's index */
      char in[32];
      snprintf(in, sizeof in, "id-%d", k);
      cs_str n = cs_reference_normalize(RS, t, cs_str_c(in), &D, &A);
      cr_assert(cs_rule_check(RS, t, n, 0, false, NULL, 0) == CS_RULE_MET, "%s: normalize gave %.*s", overrides[o],
                (int)n.len, n.ptr);
    }
  }
}

/* Past one digest's worth of characters the text keeps drawing from the digest's stream: no
 * character position settles on one value. */
Test(mappers, long_ids_stay_hash_text) {
  cs_rule rule = {.min_len = 140};
  const size_t n = 140;
  char first[2][140];
  bool varies[2][140] = {{false}};
  for (int k = 0; k < 64; k++) {
    char canon[40];
    snprintf(canon, sizeof canon, "hist_tool_%024d", k);
    cs_map_input in = {.canonical = cs_str_c(canon)};
    cs_str b62 = cs_map_base62(&D, &in, n, &A), b64 = cs_map_prefixed(&rule, &D, &in, "call_", &A);
    cr_assert_eq(b62.len, n);
    cr_assert_eq(b64.len, n);
    const char *text[2] = {b62.ptr, b64.ptr};
    for (int s = 0; s < 2; s++)
      for (size_t i = 0; i < n; i++) {
        if (k == 0)
          first[s][i] = text[s][i];
        else if (text[s][i] != first[s][i])
          varies[s][i] = true;
      }
  }
  for (size_t i = 0; i < n; i++) {
    cr_assert(varies[0][i], "base62 character %zu is the same for 64 inputs", i);
    cr_assert(i < 5 || varies[1][i], "prefixed ID character %zu is the same for 64 inputs", i);
  }
}

/* Mistral's 9 characters collide for real only by chance; an injected digest forces it. */
static void mistral_forced_collision(bool collide_all) {
  fake_digest f = {.hasher = D.hasher, .mode = collide_all ? COLLIDE_ALL : COLLIDE_FIRST};
  cs_digest fake = {.digest = fake_run, .digest_user = &f};
  prepared p = hostile(0);
  cs_answer a = emit(&p, CS_PROV_MISTRAL, &fake);
  check_emit(&p, &a, CS_PROV_MISTRAL, collide_all ? "constant digest" : "first attempt collides");
  cr_assert_gt(f.calls, 0, "the injected digest is used");
  cr_assert_gt(f.rehashes, 0, "collisions went through the resolution path");
  cr_assert_gt(f.max_attempt, 0);
  /* Calls that were not passed through all drew from the same digest: n calls need attempts up to
   * at least n - 1 when every digest is the same. */
  if (collide_all)
    cr_assert_geq(f.max_attempt, p.ix.ncalls - 1);
  unsigned calls_first = f.calls;
  cs_answer b = emit(&p, CS_PROV_MISTRAL, &fake);
  cr_assert(cs_answer_eq(&a, &b), "resolution is deterministic");
  cr_assert_eq(f.calls, 2 * calls_first, "the second run takes the same path");
  /* And it scales: 300 calls from one raw ID. */
  prepared q = hostile(NHOSTILE - 2);
  cs_answer c = emit(&q, CS_PROV_MISTRAL, &fake);
  check_emit(&q, &c, CS_PROV_MISTRAL, "300 calls");
}

Test(mappers, mistral_collision_with_constant_digest) {
  mistral_forced_collision(true);
}
Test(mappers, mistral_collision_on_first_attempt_only) {
  mistral_forced_collision(false);
}

/* Implementation-aware twins: map call "b" (from another provider, so it is mapped) alone, then
 * plant its wire ID as the native raw ID of an earlier call: that call passes through and "b"
 * collides with it. Works with the real and with a constant digest. */
Test(mappers, planted_twin_forces_resolution_for_every_target) {
  for (int collide = 0; collide < 2; collide++)
    for (int t = 0; t < CS_TARGET_COUNT; t++) {
      if (!cs_target_get((cs_target_id)t)->native_passthrough)
        continue;
      const char *tn = cs_target_get((cs_target_id)t)->name;
      char json[1024];
      snprintf(json, sizeof json,
               "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"adk\",\"turn_key\":\"k2\","
               "\"calls\":[{\"id\":\"b\",\"name\":\"g\"}]}]}");
      prepared p = prepare(parse(json));
      fake_digest f = {.hasher = D.hasher, .mode = collide ? COLLIDE_ALL : REAL};
      cs_digest d = {.digest = fake_run, .digest_user = &f};
      cs_str twin = emit(&p, (cs_target_id)t, &d).calls[0]; /* what call "b" alone maps to */
      f.calls = f.rehashes = f.max_attempt = 0;
      snprintf(json, sizeof json,
               "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"%s\",\"turn_key\":\"k\",\"calls\":["
               "{\"id\":\"%.*s\",\"name\":\"f\"}]},{\"role\":\"assistant\",\"provider\":\"adk\",\"turn_key\":\"k2\","
               "\"calls\":[{\"id\":\"b\",\"name\":\"g\"}]},"
               "{\"role\":\"tool\",\"results\":[{\"call_id\":\"b\",\"name\":\"g\"},{\"call_id\":\"%.*s\",\"name\":"
               "\"f\"}]}]}",
               tn, (int)twin.len, twin.ptr, (int)twin.len, twin.ptr);
      prepared q = prepare(parse(json));
      cs_answer a = emit(&q, (cs_target_id)t, &d);
      check_emit(&q, &a, (cs_target_id)t, collide ? "twin, constant digest" : "twin");
      cr_assert(cs_str_eq(a.calls[0], twin), "%s: the planted native ID passes", tn);
      cr_assert_not(cs_str_eq(a.calls[1], twin), "%s", tn);
      /* Gemini's wire ID is the canonical ID: the planted look-alike is already resolved while
       * canonicalizing (call 1 takes attempt 1 there), so the mapper sees no collision. */
      if (t != CS_PROV_GEMINI)
        cr_assert_gt(f.rehashes, 0, "%s: resolution path taken", tn);
      else
        cr_assert(cs_str_eq(q.canon.calls[0], twin));
      cs_answer again = emit(&q, (cs_target_id)t, &d);
      cr_assert(cs_answer_eq(&a, &again), "%s: deterministic", tn);
    }
}

Test(mappers, normalize_valid_deterministic_injective) {
  enum { N = 3000 };
  const char *special[] = {
      "",         "a|b",       "a_b",          "\xf0\x9f\x98\x80", "\x01", "hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA",
      "call_abc", "abcDEF123", "functions.x:0"};
  size_t ns = sizeof special / sizeof *special;
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    if (t == CS_PROV_KIMI) {
      cr_assert(cs_str_is_null(cs_reference_normalize(RS, CS_PROV_KIMI, cs_str_c("x"), &D, &A)),
                "kimi has no stateless form");
      continue;
    }
    cs_strset seen;
    cs_strset_init(&seen, N + (uint32_t)ns, &A);
    for (size_t i = 0; i < N + ns; i++) {
      cs_str in = i < ns ? cs_str_c(special[i]) : cs_arena_printf(&A, "id-%zu", i);
      cs_str out = cs_reference_normalize(RS, (cs_target_id)t, in, &D, &A);
      cr_assert(cs_rule_check(RS, (cs_target_id)t, out, 0, false, NULL, 0) == CS_RULE_MET, "%d: %.*s", t, (int)out.len,
                out.ptr);
      cs_str again = cs_reference_normalize(RS, (cs_target_id)t, in, &D, &A);
      cr_assert(cs_str_eq(out, again), "deterministic");
      cr_assert(cs_strset_add(&seen, out), "target %d: inputs %zu and an earlier one share %.*s", t, i, (int)out.len,
                out.ptr);
    }
  }
  /* Null and "" are different inputs. */
  cs_str a = cs_reference_normalize(RS, CS_PROV_ANTHROPIC, CS_NULL_STR, &D, &A);
  cs_str b = cs_reference_normalize(RS, CS_PROV_ANTHROPIC, cs_str_c(""), &D, &A);
  cr_assert_not(cs_str_eq(a, b));
}

/* ---- work of collision resolution ---- */

/* The reference emitter as providers/canonical.h states it, attempt after attempt from 0 for every
 * call, counting the candidates it derives. */
static cs_answer plain_emit(const prepared *p, cs_target_id t, uint64_t *candidates) {
  const cs_target *tg = cs_target_get(t);
  const cs_rule *rule = cs_ruleset_rule(RS, t);
  cs_answer ans = cs_answer_new(p->ix.ncalls, p->ix.nresults, &A);
  cs_strset used;
  cs_strset_init(&used, p->ix.ncalls, &A);
  for (uint32_t c = 0; c < p->ix.ncalls; c++) {
    const cs_call *call = p->ix.calls[c];
    bool native = p->h.turns[p->ix.call_turn[c]].provider == t && tg->native_passthrough && !call->server;
    if (call->server && rule->server_pattern && cs_rule_server_ok(RS, t, call->id, NULL, 0) == CS_RULE_MET &&
        cs_strset_add(&used, call->id))
      ans.calls[c] = call->id;
    else if (native && cs_rule_check(RS, t, call->id, c, false, NULL, 0) == CS_RULE_MET &&
             cs_strset_add(&used, call->id))
      ans.calls[c] = call->id;
    else
      for (cs_map_input in = {p->canon.calls[c], call, c, 0}; in.attempt < 10000; in.attempt++) {
        ++*candidates;
        if (cs_strset_add(&used, ans.calls[c] = tg->mapper(rule, &D, &in, &A)))
          break;
      }
  }
  cs_answer_pair_results(&ans, &p->ix);
  return ans;
}

static void override(const char *spec) {
  cs_err err;
  cr_assert_eq(cs_ruleset_override(RS, spec, &err), 0, "%s", err.msg);
}

/* Kimi's attempt a is index c + a, so calls of one name share their candidates. With server IDs
 * planted on the indices M..2M-1 of tool f (kimi.server_pattern lets them through), each of the M
 * calls of f that follow would walk the whole planted run again: about M^2 candidates. The IDs stay
 * those of the plain algorithm, and each planted index is walked once. */
Test(mappers, kimi_calls_of_one_name_do_not_rewalk_taken_indices) {
  enum { M = 300 };
  override("kimi.server_pattern=^functions\\.");
  cs_buf b = {0};
  cs_buf_puts(&b, "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"anthropic\",\"calls\":[");
  for (int i = 0; i < M; i++)
    cs_buf_printf(&b, "%s{\"id\":\"functions.f:%d\",\"name\":\"f\",\"server\":true}", i ? "," : "", M + i);
  for (int i = 0; i < M; i++) /* a call of another name now and then: its own run */
    cs_buf_printf(&b, ",{\"id\":null,\"name\":\"%s\"}", i % 7 == 3 ? "g" : "f");
  cs_buf_puts(&b, "]}]}");
  prepared p = prepare(parse(b.data));
  cs_buf_free(&b);
  uint64_t plain_work = 0;
  cs_answer want = plain_emit(&p, CS_PROV_KIMI, &plain_work);
  cs_emit_check chk;
  cs_answer got = cs_reference_emit_checked(&p.h, &p.ix, &p.canon, RS, CS_PROV_KIMI, &D, &A, false, &chk);
  for (uint32_t c = 0; c < p.ix.ncalls; c++)
    cr_assert(cs_str_eq(got.calls[c], want.calls[c]), "call %u: %.*s, the plain algorithm gives %.*s", c,
              (int)got.calls[c].len, got.calls[c].ptr, (int)want.calls[c].len, want.calls[c].ptr);
  cs_answer all = emit(&p, CS_PROV_KIMI, &D);
  cr_assert(cs_answer_eq(&got, &all), "cs_reference_emit gives the same answer");
  cr_assert_gt(plain_work, (uint64_t)M * M / 2, "the case is one that costs the plain algorithm M^2");
  cr_assert_leq(chk.candidates, 3u * p.ix.ncalls, "%llu candidates for %u calls", (unsigned long long)chk.candidates,
                p.ix.ncalls);
  /* Call M takes index 2M: an ID that is unique but breaks Kimi's rule (the index is the call's). */
  cr_assert_eq(chk.bad, M);
  cr_assert_not(chk.repeated);
}

/* anthropic.max_len=1 admits 64 IDs. Of 200 calls, every one past the 64th finds all its 10000
 * attempts taken: cs_reference_emit keeps the last one (a duplicate), while the checked emit that
 * stops stops at the first such call. */
Test(mappers, a_rule_without_room_is_reported_at_the_first_stuck_call) {
  override("anthropic.max_len=1");
  cs_buf b = {0};
  cs_buf_puts(&b, "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"calls\":[");
  for (int i = 0; i < 200; i++)
    cs_buf_printf(&b, "%s{\"id\":\"x%d\",\"name\":\"f\"}", i ? "," : "", i);
  cs_buf_puts(&b, "]}]}");
  prepared p = prepare(parse(b.data));
  cs_buf_free(&b);
  cs_emit_check chk;
  cs_answer got = cs_reference_emit_checked(&p.h, &p.ix, &p.canon, RS, CS_PROV_ANTHROPIC, &D, &A, true, &chk);
  cr_assert_eq(chk.bad, 64, "call %u is the first without a free ID", chk.bad);
  cr_assert(chk.repeated);
  cr_assert_leq(chk.candidates, 20000, "one stuck call's 10000 attempts, not 136 calls' (%llu)",
                (unsigned long long)chk.candidates);
  cr_assert_not_null(got.calls[64].ptr);
  cr_assert_null(got.calls[65].ptr, "calls after the stuck one are left out");
  cs_answer all = emit(&p, CS_PROV_ANTHROPIC, &D);
  for (uint32_t c = 0; c <= 64; c++)
    cr_assert(cs_str_eq(all.calls[c], got.calls[c]), "call %u", c);
  cs_strset seen;
  cs_strset_init(&seen, all.ncalls, &A);
  uint32_t distinct = 0;
  for (uint32_t c = 0; c < all.ncalls; c++)
    distinct += cs_strset_add(&seen, all.calls[c]);
  cr_assert_eq(distinct, 64, "without stopping, the calls past the 64th repeat IDs");
  /* A history that fits: nothing bad, and the checked answer is the plain one. */
  prepared q = prepare(parse("{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"a\",\"name\":\"f\"},"
                             "{\"id\":\"b\",\"name\":\"f\"}]}]}"));
  cs_answer small = cs_reference_emit_checked(&q.h, &q.ix, &q.canon, RS, CS_PROV_ANTHROPIC, &D, &A, true, &chk);
  cr_assert_eq(chk.bad, q.ix.ncalls);
  cs_answer small_plain = emit(&q, CS_PROV_ANTHROPIC, &D);
  cr_assert(cs_answer_eq(&small, &small_plain));
}

/* The name part of a Kimi ID, shared by the mapper and the runner's Kimi-produced histories. */
Test(mappers, kimi_name_cleans_per_character_and_stops_at_room) {
  char out[32];
  size_t n = cs_kimi_name(cs_str_c("a.b-c_d9"), out, sizeof out);
  cr_assert_eq(n, 8);
  cr_assert(memcmp(out, "a.b-c_d9", 8) == 0);
  n = cs_kimi_name(cs_str_c("r\xc3\xa9"
                            "ad|x"),
                   out, sizeof out); /* é is one '_', not two */
  cr_assert_eq(n, 6);
  cr_assert(memcmp(out, "r_ad_x", 6) == 0, "%.*s", (int)n, out);
  cr_assert_eq(cs_kimi_name(cs_str_c("abcdef"), out, 3), 3);
  cr_assert(memcmp(out, "abc", 3) == 0);
  cr_assert_eq(cs_kimi_name(cs_str_c(""), out, sizeof out), 0);
}
