/* tests/unit/test_mistral_hash9.c: the built-in `mistral-hash9`: 9 base62 characters of SHA-256 of
 * the raw ID (recomputed here), for every ID, with no collision handling. */
#include <criterion/criterion.h>
#include <openssl/sha.h>
#include <string.h>

#include "core/history_json.h"
#include "impls/impl.h"

static cs_impl *open_hash9(cs_ruleset **rs) {
  cs_err err = {{0}};
  *rs = cs_ruleset_new(&err);
  cr_assert_not_null(*rs);
  const cs_builtin *b = cs_builtin_find("mistral-hash9");
  cr_assert_not_null(b, "mistral-hash9 is in the registry");
  cs_impl_env env = {*rs, 1};
  cs_impl *impl = b->create(&env, &err);
  cr_assert_not_null(impl, "%s", err.msg);
  return impl;
}

static void expected(const char *id, char out[10]) {
  static const char b62[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  unsigned char d[32];
  SHA256((const unsigned char *)id, strlen(id), d);
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v = v << 8 | d[i];
  for (int i = 0; i < 9; i++, v /= 62)
    out[i] = b62[v % 62];
  out[9] = 0;
}

Test(mistral_hash9, normalize_is_nine_base62_of_sha256) {
  cs_ruleset *rs;
  cs_impl *impl = open_hash9(&rs);
  cr_assert_eq(impl->info.normalize_targets, 1u << CS_PROV_MISTRAL);
  cs_str ids[3] = {cs_str_c("call_abc"), cs_str_c("toolu_01|x"), cs_str_c("abcDEF123")};
  cs_request rq = {.op = CS_OP_NORMALIZE, .target = CS_PROV_MISTRAL, .ids = ids, .nids = 3};
  cs_reply rp;
  cs_arena a = {0};
  cs_err err = {{0}};
  cr_assert_eq(cs_impl_exec(impl, &rq, &rp, 1, &a, &err), 0);
  cr_assert_eq(rp.status, CS_REPLY_OK);
  for (int i = 0; i < 3; i++) {
    char want[10];
    expected(ids[i].ptr, want);
    cr_assert_eq(rp.ids[i].len, 9);
    cr_assert_str_eq(rp.ids[i].ptr, want);
  }
  cs_request other = {.op = CS_OP_NORMALIZE, .target = CS_PROV_ANTHROPIC, .ids = ids, .nids = 1};
  cr_assert_eq(cs_impl_exec(impl, &other, &rp, 1, &a, &err), 0);
  cr_assert_eq(rp.status, CS_REPLY_REJECTED, "only mistral");
  cs_arena_free(&a);
  cs_impl_destroy(impl);
  cs_ruleset_free(rs);
}

Test(mistral_hash9, emit_has_no_collision_handling) {
  cs_ruleset *rs;
  cs_impl *impl = open_hash9(&rs);
  cs_arena a = {0};
  cs_err err = {{0}};
  cs_history h;
  const char *json =
      "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"calls\":["
      "{\"id\":\"dup\",\"name\":\"a\"},{\"id\":\"dup\",\"name\":\"b\"},{\"id\":null,\"name\":\"c\"}]},"
      "{\"role\":\"tool\",\"results\":[{\"call_id\":\"dup\",\"name\":\"a\"},{\"call_id\":null,\"name\":\"c\"}]}]}";
  cr_assert_eq(cs_history_parse(cs_str_c(json), NULL, &a, &h, &err), 0, "%s", err.msg);
  cs_request rq = {.op = CS_OP_EMIT, .target = CS_PROV_MISTRAL, .history = &h};
  cs_reply rp;
  cr_assert_eq(cs_impl_exec(impl, &rq, &rp, 1, &a, &err), 0);
  cr_assert_eq(rp.status, CS_REPLY_OK);
  char want[10];
  expected("dup", want);
  cr_assert_str_eq(rp.answer.calls[0].ptr, want);
  cr_assert_str_eq(rp.answer.calls[1].ptr, want, "duplicated raw IDs stay duplicated");
  expected("0:2", want);
  cr_assert_str_eq(rp.answer.calls[2].ptr, want, "a missing ID is hashed from its place");
  cr_assert_str_eq(rp.answer.results[0].ptr, rp.answer.calls[0].ptr);
  cr_assert_str_eq(rp.answer.results[1].ptr, rp.answer.calls[2].ptr, "results take their call's ID");
  cs_arena_free(&a);
  cs_impl_destroy(impl);
  cs_ruleset_free(rs);
}
