/* tests/unit/test_rule.c: providers/rule.c and the target table: default rules of every target,
 * overrides, profile files, and that a refused override leaves the rule as it was. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "providers/rule.h"

static cs_ruleset *RS;
static void setup(void) {
  cs_err err = {{0}};
  RS = cs_ruleset_new(&err);
  cr_assert_not_null(RS, "%s", err.msg);
}
static void teardown(void) {
  cs_ruleset_free(RS);
}
TestSuite(rule, .init = setup, .fini = teardown);

static bool ok_at(cs_target_id t, const char *id, uint32_t index) {
  return cs_rule_check(RS, t, cs_str_c(id), index, false, NULL, 0);
}
static bool ok(cs_target_id t, const char *id) {
  return ok_at(t, id, 0);
}
static bool ok_server(cs_target_id t, const char *id) {
  return cs_rule_check(RS, t, cs_str_c(id), 0, true, NULL, 0);
}
static const char *why(cs_target_id t, cs_str id, uint32_t index, bool server) {
  static char buf[256];
  buf[0] = 0;
  cr_assert_not(cs_rule_check(RS, t, id, index, server, buf, sizeof buf), "expected a rejection");
  cr_assert_gt(strlen(buf), 0);
  return buf;
}
static char *repeat(const char *unit, size_t n) {
  size_t u = strlen(unit);
  char *s = malloc(u * n + 1);
  for (size_t i = 0; i < n; i++)
    memcpy(s + i * u, unit, u);
  s[u * n] = 0;
  return s;
}

Test(rule, target_table) {
  const char *names[] = {"anthropic", "openai_chat", "openai_responses", "mistral", "kimi", "gemini", "bedrock"};
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    const cs_target *tg = cs_target_get((cs_target_id)t);
    cr_assert_not_null(tg);
    cr_assert_str_eq(tg->name, names[t]);
    cr_assert_eq(tg->id, (cs_target_id)t);
    cr_assert_not_null(tg->mapper);
    cr_assert_not_null(tg->summary);
    cr_assert_eq(cs_target_parse(names[t]), t);
  }
  cr_assert_null(cs_target_get(CS_PROV_ADK), "adk is a provider, not a target");
  cr_assert_eq(cs_target_parse("adk"), -1);
  cr_assert_eq(cs_target_parse("Anthropic"), -1);
  cr_assert_eq(cs_target_parse(""), -1);
  cr_assert_eq(cs_target_parse(NULL), -1);
}

Test(rule, utf8_length_counts_code_points) {
  cr_assert_eq(cs_utf8_length(cs_str_c("")), 0);
  cr_assert_eq(cs_utf8_length(cs_str_c("abc")), 3);
  cr_assert_eq(cs_utf8_length(cs_str_c("a\xc3\xa9")), 2);
  cr_assert_eq(cs_utf8_length(cs_str_c("\xf0\x9f\x98\x80\xe2\x80\xa8")), 2);
}

Test(rule, null_is_never_valid) {
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    cr_assert_not(cs_rule_check(RS, (cs_target_id)t, CS_NULL_STR, 0, false, NULL, 0));
    cr_assert_not(cs_rule_check(RS, (cs_target_id)t, CS_NULL_STR, 0, true, NULL, 0));
  }
  cr_assert_str_eq(why(CS_PROV_GEMINI, CS_NULL_STR, 0, false), "is null");
}

Test(rule, anthropic_defaults) {
  cr_assert(ok(CS_PROV_ANTHROPIC, "toolu_01A-b_c"));
  cr_assert(ok(CS_PROV_ANTHROPIC, "call_1"), "any prefix is accepted");
  cr_assert(ok(CS_PROV_ANTHROPIC, "x"));
  cr_assert_not(ok(CS_PROV_ANTHROPIC, "a.b"));
  cr_assert_not(ok(CS_PROV_ANTHROPIC, ""));
  cr_assert_not(ok(CS_PROV_ANTHROPIC, "a b"));
  cr_assert_not(ok(CS_PROV_ANTHROPIC, "a|b"));
  cr_assert_not(ok(CS_PROV_ANTHROPIC, "\xc3\xa9"));
  cr_assert_not(ok(CS_PROV_ANTHROPIC, "toolu_x\n"), "'$' must not match before a final newline");
  char *s64 = repeat("a", 64), *s65 = repeat("a", 65);
  cr_assert(ok(CS_PROV_ANTHROPIC, s64));
  cr_assert_not(ok(CS_PROV_ANTHROPIC, s65));
  cr_assert_str_eq(why(CS_PROV_ANTHROPIC, cs_str_c(s65), 0, false), "is 65 characters, the maximum is 64");
  cr_assert_str_eq(why(CS_PROV_ANTHROPIC, cs_str_c(""), 0, false), "is 0 characters, the minimum is 1");
  cr_assert_not_null(strstr(why(CS_PROV_ANTHROPIC, cs_str_c("a.b"), 0, false), "^[a-zA-Z0-9_-]+$"));
  free(s64);
  free(s65);
}

Test(rule, anthropic_server_calls) {
  cr_assert(ok_server(CS_PROV_ANTHROPIC, "srvtoolu_01AbC"));
  cr_assert(ok_server(CS_PROV_ANTHROPIC, "srvtoolu_a_b"));
  cr_assert_not(ok_server(CS_PROV_ANTHROPIC, "srvtoolu_01-b"), "the server pattern admits no '-'");
  cr_assert_not(ok_server(CS_PROV_ANTHROPIC, "srvtoolu_"));
  cr_assert_not(ok_server(CS_PROV_ANTHROPIC, "toolu_01AbC"), "a server call needs srvtoolu_");
  cr_assert_not(ok_server(CS_PROV_ANTHROPIC, "srvtoolu_ab\n"));
  cr_assert_not_null(strstr(why(CS_PROV_ANTHROPIC, cs_str_c("toolu_1"), 0, true), "srvtoolu"));
  /* Long server IDs pass: only the server pattern applies. */
  char *long_srv = repeat("b", 100);
  char id[128];
  snprintf(id, sizeof id, "srvtoolu_%s", long_srv);
  cr_assert(ok_server(CS_PROV_ANTHROPIC, id));
  free(long_srv);
  /* A non-server call may carry a srvtoolu_ ID under the normal rule. */
  cr_assert(ok(CS_PROV_ANTHROPIC, "srvtoolu_01AbC"));
  cr_assert(cs_rule_server_ok(RS, CS_PROV_ANTHROPIC, cs_str_c("srvtoolu_01AbC"), NULL, 0) == CS_RULE_MET);
  cr_assert(cs_rule_server_ok(RS, CS_PROV_ANTHROPIC, cs_str_c("toolu_01"), NULL, 0) == CS_RULE_BROKEN);
  cr_assert(cs_rule_server_ok(RS, CS_PROV_ANTHROPIC, CS_NULL_STR, NULL, 0) == CS_RULE_BROKEN);
  cr_assert(cs_rule_server_ok(RS, CS_PROV_OPENAI_CHAT, cs_str_c("srvtoolu_01AbC"), NULL, 0) == CS_RULE_BROKEN,
            "no server pattern");
  /* Targets without a server pattern check server calls by their normal rule. */
  cr_assert(ok_server(CS_PROV_OPENAI_CHAT, "anything goes"));
  cr_assert_not(ok_server(CS_PROV_MISTRAL, "srvtoolu_01AbC"));
}

Test(rule, openai_chat_counts_code_points) {
  char *s40 = repeat("c", 40), *s41 = repeat("c", 41);
  char *e40 = repeat("\xf0\x9f\x98\x80", 40), *e41 = repeat("\xf0\x9f\x98\x80", 41);
  cr_assert(ok(CS_PROV_OPENAI_CHAT, s40));
  cr_assert_not(ok(CS_PROV_OPENAI_CHAT, s41));
  cr_assert(ok(CS_PROV_OPENAI_CHAT, e40), "40 emoji are 160 bytes but 40 characters");
  cr_assert_not(ok(CS_PROV_OPENAI_CHAT, e41));
  cr_assert_str_eq(why(CS_PROV_OPENAI_CHAT, cs_str_c(e41), 0, false), "is 41 characters, the maximum is 40");
  cr_assert_not(ok(CS_PROV_OPENAI_CHAT, ""));
  cr_assert(ok(CS_PROV_OPENAI_CHAT, "a|b:c.d/e+f=g h"), "no character set");
  cr_assert(ok(CS_PROV_OPENAI_CHAT, "\x01\xe2\x80\xa8"));
  free(s40);
  free(s41);
  free(e40);
  free(e41);
}

/* The reason gives the exact length of an ID far above the maximum too (a count from its bytes alone
 * said a quarter of it), whatever its characters take. */
Test(rule, a_long_id_gets_its_exact_length) {
  char *a1000 = repeat("a", 1000), *mixed = repeat("a\xc3\xa9\xf0\x9f\x98\x80", 100);
  cr_assert_str_eq(why(CS_PROV_BEDROCK, cs_str_c(a1000), 0, false), "is 1000 characters, the maximum is 64");
  cr_assert_str_eq(why(CS_PROV_OPENAI_CHAT, cs_str_c(mixed), 0, false), "is 300 characters, the maximum is 40");
  cr_assert_not(ok(CS_PROV_BEDROCK, a1000), "without a reason asked for, the verdict is the same");
  free(a1000);
  free(mixed);
}

Test(rule, openai_responses_and_bedrock_and_gemini) {
  char *s64 = repeat("r", 64), *s65 = repeat("r", 65);
  cr_assert(ok(CS_PROV_OPENAI_RESPONSES, s64));
  cr_assert_not(ok(CS_PROV_OPENAI_RESPONSES, s65));
  cr_assert_not(ok(CS_PROV_OPENAI_RESPONSES, ""));
  cr_assert(ok(CS_PROV_OPENAI_RESPONSES, "fc_1|call_2"));
  cr_assert(ok(CS_PROV_BEDROCK, "tooluse_Ab-9_"));
  cr_assert(ok(CS_PROV_BEDROCK, s64));
  cr_assert_not(ok(CS_PROV_BEDROCK, s65));
  cr_assert_not(ok(CS_PROV_BEDROCK, "a:b"));
  cr_assert_not(ok(CS_PROV_BEDROCK, ""));
  cr_assert(ok(CS_PROV_GEMINI, "x"));
  cr_assert(ok(CS_PROV_GEMINI, s65));
  cr_assert(ok(CS_PROV_GEMINI, "adk-1234 with spaces|"));
  cr_assert_not(ok(CS_PROV_GEMINI, ""));
  free(s64);
  free(s65);
}

Test(rule, mistral_exactly_nine_alphanumerics) {
  cr_assert(ok(CS_PROV_MISTRAL, "abcDEF123"));
  cr_assert(ok(CS_PROV_MISTRAL, "000000000"));
  cr_assert_not(ok(CS_PROV_MISTRAL, "abcDEF12"));
  cr_assert_not(ok(CS_PROV_MISTRAL, "abcDEF1234"));
  cr_assert_not(ok(CS_PROV_MISTRAL, "abcDEF12_"));
  cr_assert_not(ok(CS_PROV_MISTRAL, "abcDEF12-"));
  cr_assert_not(ok(CS_PROV_MISTRAL, "abcDEF12\xc3\xa9"), "9 characters but not alphanumeric");
  cr_assert_not(ok(CS_PROV_MISTRAL, "abcdefgh\n"));
  cr_assert_not(ok(CS_PROV_MISTRAL, ""));
}

Test(rule, kimi_global_index) {
  cr_assert(ok_at(CS_PROV_KIMI, "functions.read_file:3", 3));
  cr_assert_not(ok_at(CS_PROV_KIMI, "functions.read_file:3", 2));
  cr_assert_not(ok_at(CS_PROV_KIMI, "functions.read_file:3", 0));
  cr_assert_not(ok_at(CS_PROV_KIMI, "functions.read_file:3", 13));
  cr_assert(ok_at(CS_PROV_KIMI, "functions.glob:0", 0));
  cr_assert(ok_at(CS_PROV_KIMI, "functions.a.b-c:12", 12));
  cr_assert(ok_at(CS_PROV_KIMI, "functions.x:4294967295", 4294967295u));
  cr_assert_not(ok_at(CS_PROV_KIMI, "functions.x:4294967296", 0), "no wrap-around to index 0");
  cr_assert_not(ok_at(CS_PROV_KIMI, "functions.x:99999999999", 1215752191), "no wrap-around");
  cr_assert_not(ok_at(CS_PROV_KIMI, "read_file:3", 3), "the hosted {name}:{idx} form is not the model format");
  cr_assert_not(ok_at(CS_PROV_KIMI, "functions.read_file", 0));
  cr_assert_not(ok_at(CS_PROV_KIMI, "functions.:0", 0));
  cr_assert_not(ok_at(CS_PROV_KIMI, "functions.a b:0", 0));
  cr_assert_not(ok_at(CS_PROV_KIMI, "functions.x:0\n", 0), "'$' must not match before a final newline");
  cr_assert_not(ok_at(CS_PROV_KIMI, "functions.x:", 0));
  cr_assert_not(ok_at(CS_PROV_KIMI, "functions.x:00", 0), "the model writes no leading zero");
  cr_assert_not(ok_at(CS_PROV_KIMI, "functions.x:01", 1));
  cr_assert(ok_at(CS_PROV_KIMI, "functions.x:10", 10));
  cr_assert_str_eq(why(CS_PROV_KIMI, cs_str_c("functions.read_file:3"), 2, false),
                   "index is not the call's global index 2");
}

Test(rule, kimi_index_must_be_digits_even_with_a_loose_pattern) {
  cs_err err;
  cr_assert_eq(cs_ruleset_override(RS, "kimi.pattern=", &err), 0, "%s", err.msg);
  cr_assert_null(cs_ruleset_rule(RS, CS_PROV_KIMI)->pattern);
  /* "1a" would read as 1*10 + ('a' - '0') = 59 if letters were taken as digits. */
  cr_assert_not(ok_at(CS_PROV_KIMI, "functions.x:1a", 59));
  cr_assert_not(ok_at(CS_PROV_KIMI, "x:-1", 0));
  cr_assert(ok_at(CS_PROV_KIMI, "any thing:7", 7));
  cr_assert_not(ok_at(CS_PROV_KIMI, "no colon", 0));
}

Test(rule, invalid_utf8_is_rejected_without_crashing) {
  const char *bad[] = {"\xff", "ab\xc3", "\xed\xa0\x80", "toolu_\xc0\xaf"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    for (int t = 0; t < CS_TARGET_COUNT; t++) {
      cr_assert_not(cs_rule_check(RS, (cs_target_id)t, cs_str_c(bad[i]), 0, false, NULL, 0), "case %zu target %d", i,
                    t);
      cr_assert_not(cs_rule_check(RS, (cs_target_id)t, cs_str_c(bad[i]), 0, true, NULL, 0));
    }
  cr_assert_not(cs_rule_check(RS, CS_PROV_GEMINI, cs_str_n("a\0b", 3), 0, false, NULL, 0), "NUL byte");
  cr_assert(cs_rule_server_ok(RS, CS_PROV_ANTHROPIC, cs_str_c("srvtoolu_\xff"), NULL, 0) == CS_RULE_BROKEN);
  cr_assert_not_null(strstr(why(CS_PROV_OPENAI_CHAT, cs_str_c("\xff"), 0, false), "UTF-8"));
}

Test(rule, why_is_truncated_to_its_buffer) {
  char small[8];
  memset(small, 'Z', sizeof small);
  cr_assert_not(cs_rule_check(RS, CS_PROV_ANTHROPIC, cs_str_c("a.b"), 0, false, small, sizeof small));
  cr_assert_eq(strlen(small), 7);
}

Test(rule, override_max_len) {
  cs_err err;
  char *s64 = repeat("c", 64), *s65 = repeat("c", 65);
  cr_assert_not(ok(CS_PROV_OPENAI_CHAT, s64));
  cr_assert_eq(cs_ruleset_override(RS, "openai_chat.max_len=64", &err), 0, "%s", err.msg);
  cr_assert_eq(cs_ruleset_rule(RS, CS_PROV_OPENAI_CHAT)->max_len, 64);
  cr_assert(ok(CS_PROV_OPENAI_CHAT, s64));
  cr_assert_not(ok(CS_PROV_OPENAI_CHAT, s65));
  cr_assert_eq(cs_target_get(CS_PROV_OPENAI_CHAT)->rule.max_len, 40, "the table default is untouched");
  cr_assert_eq(cs_ruleset_override(RS, "openai_chat.max_len=0", &err), 0, "%s", err.msg);
  cr_assert(ok(CS_PROV_OPENAI_CHAT, s65), "0: no limit");
  cr_assert_eq(cs_ruleset_override(RS, "openai_chat.min_len=3", &err), 0, "%s", err.msg);
  cr_assert_not(ok(CS_PROV_OPENAI_CHAT, "ab"));
  cr_assert(ok(CS_PROV_OPENAI_CHAT, "abc"));
  free(s64);
  free(s65);
}

/* Overrides apply one at a time, so a minimum above the maximum is only refused once all are in. */
Test(rule, check_refuses_rules_that_cannot_be_met) {
  cs_err err;
  cr_assert_eq(cs_ruleset_check(RS, &err), 0, "the defaults pass: %s", err.msg);
  cr_assert_eq(cs_ruleset_override(RS, "openai_chat.min_len=50", &err), 0, "%s", err.msg);
  cr_assert_eq(cs_ruleset_check(RS, &err), -1);
  cr_assert_str_eq(err.msg, "rule for openai_chat: min_len 50 is above max_len 40");
  cr_assert_eq(cs_ruleset_override(RS, "openai_chat.max_len=64", &err), 0, "%s", err.msg);
  cr_assert_eq(cs_ruleset_check(RS, &err), 0, "%s", err.msg);
  cr_assert_eq(cs_ruleset_override(RS, "gemini.min_len=65536", &err), 0, "%s", err.msg);
  cr_assert_eq(cs_ruleset_check(RS, &err), 0, "%s", err.msg);
  cr_assert_eq(cs_ruleset_override(RS, "gemini.min_len=65537", &err), 0, "%s", err.msg);
  cr_assert_eq(cs_ruleset_check(RS, &err), -1);
  cr_assert(strstr(err.msg, "rule for gemini: min_len 65537 is above 65536"), "%s", err.msg);
}

Test(rule, rulesets_are_independent) {
  cs_err err;
  cs_ruleset *other = cs_ruleset_new(&err);
  cr_assert_not_null(other);
  cr_assert_eq(cs_ruleset_override(RS, "mistral.max_len=12", &err), 0);
  cr_assert_eq(cs_ruleset_override(RS, "anthropic.pattern=^[a-z]+$", &err), 0);
  cr_assert_eq(cs_ruleset_rule(other, CS_PROV_MISTRAL)->max_len, 9);
  cr_assert(cs_rule_check(other, CS_PROV_ANTHROPIC, cs_str_c("toolu_1"), 0, false, NULL, 0));
  cs_ruleset_free(other);
}

Test(rule, override_pattern) {
  cs_err err;
  cr_assert_eq(cs_ruleset_override(RS, "anthropic.pattern=^[a-z]+$", &err), 0, "%s", err.msg);
  cr_assert_str_eq(cs_ruleset_rule(RS, CS_PROV_ANTHROPIC)->pattern, "^[a-z]+$");
  cr_assert(ok(CS_PROV_ANTHROPIC, "abc"));
  cr_assert_not(ok(CS_PROV_ANTHROPIC, "toolu_01"));
  cr_assert_not(ok(CS_PROV_ANTHROPIC, "abc\n"));
  cr_assert_not_null(strstr(why(CS_PROV_ANTHROPIC, cs_str_c("ABC"), 0, false), "^[a-z]+$"));
  /* The server pattern survives a change of the call pattern. */
  cr_assert(ok_server(CS_PROV_ANTHROPIC, "srvtoolu_01AbC"));
  /* A second override replaces the first (no leak of the old copy under ASan). */
  cr_assert_eq(cs_ruleset_override(RS, "anthropic.pattern=^[0-9]+$", &err), 0, "%s", err.msg);
  cr_assert(ok(CS_PROV_ANTHROPIC, "123"));
  cr_assert_not(ok(CS_PROV_ANTHROPIC, "abc"));
  /* A value holding '=' and '.' is kept whole. */
  cr_assert_eq(cs_ruleset_override(RS, "gemini.pattern=^a=b\\.c$", &err), 0, "%s", err.msg);
  cr_assert(ok(CS_PROV_GEMINI, "a=b.c"));
  cr_assert_not(ok(CS_PROV_GEMINI, "a=bxc"));
  cr_assert_eq(cs_ruleset_override(RS, "anthropic.server_pattern=^srv_[0-9]+$", &err), 0, "%s", err.msg);
  cr_assert(ok_server(CS_PROV_ANTHROPIC, "srv_12"));
  cr_assert_not(ok_server(CS_PROV_ANTHROPIC, "srvtoolu_01AbC"));
  cr_assert_eq(cs_ruleset_override(RS, "anthropic.server_pattern=", &err), 0, "%s", err.msg);
  cr_assert(cs_rule_server_ok(RS, CS_PROV_ANTHROPIC, cs_str_c("srv_12"), NULL, 0) == CS_RULE_BROKEN,
            "no server pattern left");
  cr_assert(ok_server(CS_PROV_ANTHROPIC, "123"), "server calls fall back to the normal rule");
}

/* Every refused override leaves the whole rule exactly as it was. */
static void refused(const char *spec, const char *needle) {
  cs_err err = {{0}};
  cs_rule before[CS_TARGET_COUNT];
  for (int t = 0; t < CS_TARGET_COUNT; t++)
    before[t] = *cs_ruleset_rule(RS, (cs_target_id)t);
  cr_assert_eq(cs_ruleset_override(RS, spec, &err), -1, "accepted: %s", spec);
  cr_assert_gt(strlen(err.msg), 0);
  cr_assert_null(strchr(err.msg, '\n'));
  if (needle)
    cr_assert_not_null(strstr(err.msg, needle), "\"%s\" lacks \"%s\"", err.msg, needle);
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    const cs_rule *now = cs_ruleset_rule(RS, (cs_target_id)t);
    cr_assert_eq(now->pattern, before[t].pattern, "%s changed target %d", spec, t);
    cr_assert_eq(now->server_pattern, before[t].server_pattern);
    cr_assert_eq(now->min_len, before[t].min_len);
    cr_assert_eq(now->max_len, before[t].max_len);
    cr_assert_eq(now->global_index, before[t].global_index);
  }
  /* The compiled patterns still work as before. */
  cr_assert(ok(CS_PROV_ANTHROPIC, "toolu_01A-b_c"));
  cr_assert_not(ok(CS_PROV_ANTHROPIC, "a.b"));
  cr_assert(ok_server(CS_PROV_ANTHROPIC, "srvtoolu_01AbC"));
  cr_assert(ok(CS_PROV_MISTRAL, "abcDEF123"));
}

Test(rule, bad_overrides_are_refused_and_change_nothing) {
  refused("anthropic.pattern=(", "pattern '('");
  refused("anthropic.pattern=(", "does not compile");
  refused("anthropic.server_pattern=[a-", "pattern '[a-'");
  refused("openai_chat.max_len=abc", "whole number");
  refused("openai_chat.max_len=-1", "max_len");
  refused("openai_chat.max_len=", NULL);
  refused("openai_chat.max_len=12x", NULL);
  refused("openai_chat.max_len=99999999999", NULL);
  refused("openai_chat.min_len=1.5", "min_len");
  refused("openai_chat.max_len", "TARGET.KEY=VALUE");
  refused("openai_chat=3", "TARGET.KEY=VALUE");
  refused("max_len=3.x", "TARGET.KEY=VALUE");
  refused("", NULL);
  refused("nosuch.max_len=3", "nosuch");
  refused("openai.max_len=3", "unknown target");
  refused("openai_chat.colour=3", "colour");
  refused("adk.max_len=3", "unknown target");
  refused("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.max_len=3", NULL);
  refused("openai_chat.max_lenxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx=3", NULL);
  refused("anthropic.pattern=\xff", NULL);
  /* A refused pattern after an accepted one keeps the accepted one. */
  cs_err err;
  cr_assert_eq(cs_ruleset_override(RS, "gemini.pattern=^g+$", &err), 0);
  cr_assert_eq(cs_ruleset_override(RS, "gemini.pattern=(", &err), -1);
  cr_assert_str_eq(cs_ruleset_rule(RS, CS_PROV_GEMINI)->pattern, "^g+$");
  cr_assert(ok(CS_PROV_GEMINI, "ggg"));
  cr_assert_not(ok(CS_PROV_GEMINI, "h"));
}

/* A long override is echoed as a short excerpt: the reason and the error offset after it always
 * fit in the one-line message, which a whole 1100-byte pattern used to push out. */
Test(rule, a_long_override_keeps_its_reason) {
  char spec[1200], *p = spec + sprintf(spec, "openai_chat.pattern=");
  memset(p, 'b', 1100);
  strcpy(p + 1100, "(");
  refused(spec, "does not compile at offset 1101: missing closing parenthesis");
  refused(spec, "pattern 'bbbbbbbbbb");
  memcpy(spec, "openai_chat.max_len=", 20);
  memset(spec + 20, '9', 1100);
  strcpy(spec + 1120, "x");
  refused(spec, "...': max_len must be a whole number");
  memset(spec, 'a', 1100);
  strcpy(spec + 1100, ".max_len");
  refused(spec, "...': expected TARGET.KEY=VALUE");
  /* Two-byte characters: the excerpt ends on a whole one. */
  char utf[1200] = "anthropic.pattern=(";
  for (int i = 0; i < 500; i++)
    strcat(utf, "\xc3\xa9");
  cs_err err = {{0}};
  cr_assert_eq(cs_ruleset_override(RS, utf, &err), -1);
  const char *dots = strstr(err.msg, "...'");
  cr_assert_not_null(dots, "%s", err.msg);
  cr_assert_eq((unsigned char)dots[-2], 0xc3, "a character was cut: %s", err.msg);
  cr_assert_not_null(strstr(err.msg, "missing closing parenthesis"), "%s", err.msg);
}

/* A pattern that backtracks too much makes PCRE2 give up (its match limit): that is no verdict on
 * the ID, and must not read as "does not match", which blamed the implementation. */
Test(rule, a_match_pcre2_gives_up_on_is_undecided) {
  cs_err err = {{0}};
  cr_assert_eq(cs_ruleset_override(RS, "anthropic.pattern=^([\\w-]|[\\w-])*_[\\w-]*$", &err), 0, "%s", err.msg);
  char why[CS_RULE_WHY_MAX];
  cs_str id = cs_str_c("toolu_pQKuH6wGZeJ3R2NkM7iK7TPL");
  cr_assert_eq(cs_rule_check(RS, CS_PROV_ANTHROPIC, id, 0, false, why, sizeof why), CS_RULE_UNDECIDED, "%s", why);
  cr_assert_str_eq(why, "rule anthropic.pattern: PCRE2 match limit exceeded on ID \"toolu_pQKuH6wGZeJ3R2NkM7iK7TPL\": "
                        "the pattern backtracks too much");
  /* Short IDs still get verdicts both ways; length limits come before the pattern. */
  cr_assert_eq(cs_rule_check(RS, CS_PROV_ANTHROPIC, cs_str_c("toolu_x"), 0, false, NULL, 0), CS_RULE_MET);
  cr_assert_eq(cs_rule_check(RS, CS_PROV_ANTHROPIC, cs_str_c("toolux"), 0, false, why, sizeof why), CS_RULE_BROKEN);
  cr_assert(strstr(why, "does not match") != NULL, "%s", why);
  /* A long ID is shown cut, and control bytes as '?', so the message stays one short line. */
  char longid[65];
  memset(longid, 'a', 64);
  longid[30] = '\x01';
  longid[63] = '_'; /* PCRE2 finds no match at once without the '_' the pattern requires */
  longid[64] = 0;
  cr_assert_eq(cs_rule_check(RS, CS_PROV_ANTHROPIC, cs_str_c(longid), 0, false, why, sizeof why), CS_RULE_UNDECIDED);
  cr_assert(strstr(why, "on ID \"aaaa") && strstr(why, "aaa?aaa") && strstr(why, "aaa...\": the pattern"), "%s", why);
  /* The server pattern likewise, through both entry points. */
  cr_assert_eq(cs_ruleset_override(RS, "anthropic.server_pattern=^([\\w-]|[\\w-])*_[\\w-]*$", &err), 0, "%s", err.msg);
  cr_assert_eq(cs_rule_server_ok(RS, CS_PROV_ANTHROPIC, id, why, sizeof why), CS_RULE_UNDECIDED);
  cr_assert(strstr(why, "rule anthropic.server_pattern: PCRE2 match limit exceeded") == why, "%s", why);
  cr_assert_eq(cs_rule_check(RS, CS_PROV_ANTHROPIC, id, 0, true, NULL, 0), CS_RULE_UNDECIDED);
}

static char *write_temp(const char *text) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/callsign-profile-XXXXXX");
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

Test(rule, profile_file_with_comments) {
  cs_err err = {{0}};
  char *path = write_temp("# callsign profile for an Azure gateway\n"
                          "\n"
                          "   # indented comment\n"
                          "openai_chat.max_len=64\r\n"
                          "  \tmistral.max_len=12\n"
                          "anthropic.pattern=^[a-z_]+$\n"
                          "gemini.min_len=2"); /* no final newline */
  cr_assert_eq(cs_ruleset_load_profile(RS, path, &err), 0, "%s", err.msg);
  cr_assert_eq(cs_ruleset_rule(RS, CS_PROV_OPENAI_CHAT)->max_len, 64);
  cr_assert_eq(cs_ruleset_rule(RS, CS_PROV_MISTRAL)->max_len, 12);
  cr_assert_str_eq(cs_ruleset_rule(RS, CS_PROV_ANTHROPIC)->pattern, "^[a-z_]+$");
  cr_assert(ok(CS_PROV_ANTHROPIC, "toolu_x"));
  cr_assert_not(ok(CS_PROV_ANTHROPIC, "toolu_1"));
  cr_assert_eq(cs_ruleset_rule(RS, CS_PROV_GEMINI)->min_len, 2);
  unlink(path);
}

Test(rule, profile_errors_name_file_and_line) {
  cs_err err = {{0}};
  char *path = write_temp("# ok\nopenai_chat.max_len=64\nanthropic.pattern=(\nmistral.max_len=12\n");
  cr_assert_eq(cs_ruleset_load_profile(RS, path, &err), -1);
  char place[96];
  snprintf(place, sizeof place, "%s:3: ", path);
  cr_assert_eq(strncmp(err.msg, place, strlen(place)), 0, "message \"%s\" should start with \"%s\"", err.msg, place);
  cr_assert_not_null(strstr(err.msg, "("));
  cr_assert_null(strchr(err.msg, '\n'));
  /* Lines before the bad one were applied, the bad one and after were not. */
  cr_assert_eq(cs_ruleset_rule(RS, CS_PROV_OPENAI_CHAT)->max_len, 64);
  cr_assert_str_eq(cs_ruleset_rule(RS, CS_PROV_ANTHROPIC)->pattern, "^[a-zA-Z0-9_-]+$");
  cr_assert_eq(cs_ruleset_rule(RS, CS_PROV_MISTRAL)->max_len, 9);
  unlink(path);

  cr_assert_eq(cs_ruleset_load_profile(RS, "/nonexistent/callsign.profile", &err), -1);
  cr_assert_not_null(strstr(err.msg, "/nonexistent/callsign.profile"), "%s", err.msg);
}

/* A value ending in a space or tab: stripped, a pattern would differ from the same --rule; kept, an
 * invisible character would change it. Refused, naming the line; a CRLF end is no such space. */
Test(rule, profile_line_ending_in_a_space_is_refused) {
  const char *texts[] = {"anthropic.pattern=^x[0-9] \n", "mistral.max_len=12\t\r\n", "# ok\nopenai_chat.max_len=9 "};
  const int lines[] = {1, 1, 2};
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
    cs_err err = {{0}};
    char *path = write_temp(texts[i]);
    cr_assert_eq(cs_ruleset_load_profile(RS, path, &err), -1, "%s was taken", texts[i]);
    char want[128];
    snprintf(want, sizeof want, "%s:%d: the line ends in a space or tab", path, lines[i]);
    cr_assert_str_eq(strstr(err.msg, path), err.msg, "%s", err.msg);
    cr_assert(!strncmp(err.msg, want, strlen(want)), "%s", err.msg);
    unlink(path);
  }
  cr_assert_str_eq(cs_ruleset_rule(RS, CS_PROV_ANTHROPIC)->pattern, "^[a-zA-Z0-9_-]+$");
}

/* Numbers are digits: strtoul also took " 5", "+5" and " -0", which lifted the cap silently. */
Test(rule, numbers_are_digits_only) {
  refused("anthropic.max_len= -0", "max_len must be a whole number");
  refused("anthropic.max_len= 5", "max_len must be a whole number");
  refused("anthropic.max_len=+5", "max_len must be a whole number");
  refused("anthropic.min_len=-0", "min_len");
  cr_assert_eq(cs_ruleset_rule(RS, CS_PROV_ANTHROPIC)->max_len, 64);
}

/* JIT code recurses on a 32 KiB stack a repeated group fills on a long ID; the match is then run
 * by the interpreter, and gets its verdict, instead of "backtracks too much". */
Test(rule, a_long_id_past_the_jit_stack_gets_a_verdict) {
  cs_err err = {{0}};
  cr_assert_eq(cs_ruleset_override(RS, "gemini.pattern=^([a-zA-Z0-9_-])+$", &err), 0, "%s", err.msg);
  size_t n = 65536;
  char *id = malloc(n + 2);
  cr_assert_not_null(id);
  memset(id, 'a', n);
  id[n] = 0;
  char why[CS_RULE_WHY_MAX] = "";
  cr_assert_eq(cs_rule_check(RS, CS_PROV_GEMINI, (cs_str){id, n}, 0, false, why, sizeof why), CS_RULE_MET, "%s", why);
  id[n] = '!';
  id[n + 1] = 0;
  cr_assert_eq(cs_rule_check(RS, CS_PROV_GEMINI, (cs_str){id, n + 1}, 0, false, why, sizeof why), CS_RULE_BROKEN, "%s",
               why);
  free(id);
}

Test(rule, profile_line_too_long_is_an_error) {
  cs_err err = {{0}};
  char *pat = repeat("a", 1500);
  char *text = malloc(1600);
  snprintf(text, 1600, "gemini.pattern=^%s$\n", pat);
  char *path = write_temp(text);
  cr_assert_eq(cs_ruleset_load_profile(RS, path, &err), -1);
  cr_assert_not_null(strstr(err.msg, ":1: line longer"), "%s", err.msg);
  cr_assert_null(cs_ruleset_rule(RS, CS_PROV_GEMINI)->pattern, "nothing of the long line was applied");
  unlink(path);
  /* A line of exactly the buffer size at the end of the file is fine. */
  char exact[1100];
  int n = snprintf(exact, sizeof exact, "gemini.pattern=^");
  memset(exact + n, 'a', 1023 - (size_t)n - 1);
  exact[1022] = '$';
  exact[1023] = 0;
  path = write_temp(exact);
  cr_assert_eq(cs_ruleset_load_profile(RS, path, &err), 0, "%s", err.msg);
  cr_assert_not_null(cs_ruleset_rule(RS, CS_PROV_GEMINI)->pattern);
  unlink(path);
  free(pat);
  free(text);
}

/* The overrides that make a ruleset, given to a fresh one, make it again; defaults give none. */
Test(rule, overrides_remake_the_ruleset) {
  cs_buf text = {0};
  cr_assert_eq(cs_ruleset_overrides(RS, &text), 0);
  cs_err err = {{0}};
  const char *set[] = {"anthropic.pattern=^x[0-9] ", "mistral.max_len=12", "gemini.min_len=3",
                       "kimi.pattern=", "anthropic.server_pattern=^srv_[a-z]+$"};
  for (size_t i = 0; i < sizeof set / sizeof *set; i++)
    cr_assert_eq(cs_ruleset_override(RS, set[i], &err), 0, "%s", err.msg);
  cr_assert_eq(cs_ruleset_override(RS, "openai_chat.max_len=40", &err), 0, "%s", err.msg); /* the default */
  size_t n = cs_ruleset_overrides(RS, &text);
  cr_assert_eq(n, 5);
  cs_ruleset *again = cs_ruleset_new(&err);
  cr_assert_not_null(again, "%s", err.msg);
  const char *p = text.data;
  for (size_t i = 0; i < n; i++, p += strlen(p) + 1)
    cr_assert_eq(cs_ruleset_override(again, p, &err), 0, "%s: %s", p, err.msg);
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    const cs_rule *a = cs_ruleset_rule(RS, (cs_target_id)t), *b = cs_ruleset_rule(again, (cs_target_id)t);
    cr_assert_eq(a->min_len, b->min_len, "target %d", t);
    cr_assert_eq(a->max_len, b->max_len, "target %d", t);
    cr_assert((!a->pattern && !b->pattern) || (a->pattern && b->pattern && !strcmp(a->pattern, b->pattern)),
              "target %d", t);
    cr_assert((!a->server_pattern && !b->server_pattern) ||
                  (a->server_pattern && b->server_pattern && !strcmp(a->server_pattern, b->server_pattern)),
              "target %d", t);
  }
  cs_ruleset_free(again);
  cs_buf_free(&text);
}
