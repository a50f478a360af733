/* tests/unit/test_history_json.c: core/history_json.c: strict reading (every malformed input gives
 * -1 and one line naming the place), compact writing, and byte-exact round trips. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/history_json.h"

static cs_arena A;
static void setup(void) {
  memset(&A, 0, sizeof A);
}
static void teardown(void) {
  cs_arena_free(&A);
}
TestSuite(history_json, .init = setup, .fini = teardown);

static int parse_n(const char *json, size_t n, cs_history *h, cs_err *err) {
  memset(err, 0, sizeof *err);
  return cs_history_parse(cs_str_n(json, n), NULL, &A, h, err);
}
static int parse(const char *json, cs_history *h, cs_err *err) {
  return parse_n(json, strlen(json), h, err);
}

/* Asserts that `json` (n bytes) is rejected with a one-line message containing each of `parts`. */
static void rejects_n(const char *json, size_t n, const char *const *parts) {
  cs_history h;
  cs_err err;
  int rc = parse_n(json, n, &h, &err);
  cr_assert_eq(rc, -1, "accepted: %.80s", json);
  cr_assert_gt(strlen(err.msg), 0, "empty message for %.80s", json);
  cr_assert_null(strchr(err.msg, '\n'), "message spans lines: %s", err.msg);
  cr_assert_null(strchr(err.msg, '\r'), "message spans lines: %s", err.msg);
  for (; *parts; parts++)
    cr_assert_not_null(strstr(err.msg, *parts), "message \"%s\" lacks \"%s\"", err.msg, *parts);
}
#define REJECTS(json, ...) rejects_n((json), strlen(json), (const char *const[]){__VA_ARGS__, NULL})
#define REJECTS_N(json, n, ...) rejects_n((json), (n), (const char *const[]){__VA_ARGS__, NULL})

static cs_str write_history(const cs_history *h) {
  cs_buf b = {0};
  cs_history_write(&b, h);
  cs_str s = cs_arena_str(&A, cs_buf_view(&b));
  cs_buf_free(&b);
  return s;
}

/* parse -> write -> parse -> write: both writes must be byte-identical; returns the second parse. */
static cs_history round_trip(const char *json) {
  cs_history h1, h2;
  cs_err err;
  cr_assert_eq(parse(json, &h1, &err), 0, "%s", err.msg);
  cs_str w1 = write_history(&h1);
  cr_assert_eq(parse_n(w1.ptr, w1.len, &h2, &err), 0, "re-reading our own output: %s", err.msg);
  cs_str w2 = write_history(&h2);
  cr_assert(cs_str_eq(w1, w2), "round trip changed bytes:\n%s\n%s", w1.ptr, w2.ptr);
  cr_assert_null(memchr(w1.ptr, '\n', w1.len), "the writer emits one line");
  return h2;
}

static const char *RICH =
    "{\"turns\":[\n"
    "  {\"role\":\"system\",\"text\":\"be brief\"},\n"
    "  {\"role\":\"user\",\"text\":\"list files\"},\n"
    "  {\"role\":\"assistant\",\"provider\":\"kimi\",\"turn_key\":\"k2\",\"text\":null,\n"
    "   \"calls\":[{\"id\":\"functions.glob:0\",\"name\":\"glob\",\"args\":{\"p\":\"*.c\",\"n\":[1,2.5,true,null]}},\n"
    "             {\"id\":null,\"name\":\"read_file\",\"args\":{}},\n"
    "             {\"id\":\"\",\"name\":\"empty\"},\n"
    "             {\"id\":\"srvtoolu_01AbC\",\"name\":\"web_search\",\"server\":true},\n"
    "             {\"id\":\"x\",\"name\":\"n\",\"server\":false}]},\n"
    "  {\"role\":\"tool\",\"turn_key\":\"k3\",\n"
    "   \"results\":[{\"call_id\":\"functions.glob:0\",\"name\":\"glob\",\"content\":\"a.c\"},\n"
    "                {\"call_id\":null,\"name\":\"read_file\",\"content\":{\"lines\":3}},\n"
    "                {\"call_id\":\"\",\"name\":\"empty\"}]},\n"
    "  {\"role\":\"assistant\",\"calls\":[]}\n"
    "]}\n";

Test(history_json, reads_every_field) {
  cs_history h;
  cs_err err;
  cr_assert_eq(parse(RICH, &h, &err), 0, "%s", err.msg);
  cr_assert_eq(h.nturns, 5);
  cr_assert_eq(h.turns[0].role, CS_ROLE_SYSTEM);
  cr_assert(cs_str_eq_c(h.turns[0].text, "be brief"));
  cr_assert_eq(h.turns[1].role, CS_ROLE_USER);
  const cs_turn *t = &h.turns[2];
  cr_assert_eq(t->role, CS_ROLE_ASSISTANT);
  cr_assert_eq(t->provider, CS_PROV_KIMI);
  cr_assert(cs_str_eq_c(t->turn_key, "k2"));
  cr_assert(cs_str_is_null(t->text));
  cr_assert_eq(t->ncalls, 5);
  cr_assert(cs_str_eq_c(t->calls[0].id, "functions.glob:0"));
  cr_assert(cs_str_eq_c(t->calls[0].name, "glob"));
  cr_assert(cs_str_eq_c(t->calls[0].args, "{\"p\":\"*.c\",\"n\":[1,2.5,true,null]}"));
  cr_assert(cs_str_is_null(t->calls[1].id), "null id stays null");
  cr_assert(cs_str_eq_c(t->calls[1].args, "{}"));
  cr_assert(cs_str_eq_c(t->calls[2].id, ""), "empty id stays empty");
  cr_assert(cs_str_is_null(t->calls[2].args), "absent args are null");
  cr_assert(t->calls[3].server);
  cr_assert_not(t->calls[4].server);
  cr_assert_not(t->calls[0].server);
  const cs_turn *r = &h.turns[3];
  cr_assert_eq(r->role, CS_ROLE_TOOL);
  cr_assert_eq(r->nresults, 3);
  cr_assert_eq(r->ncalls, 0);
  cr_assert(cs_str_eq_c(r->results[0].call_id, "functions.glob:0"));
  cr_assert(cs_str_eq_c(r->results[0].content, "a.c"));
  cr_assert(cs_str_is_null(r->results[1].call_id));
  cr_assert(cs_str_eq_c(r->results[1].content, "{\"lines\":3}"), "non-string content kept as JSON text");
  cr_assert(cs_str_eq_c(r->results[2].call_id, ""));
  cr_assert(cs_str_is_null(r->results[2].content));
  cr_assert_eq(h.turns[4].provider, CS_PROV_UNKNOWN, "absent provider is unknown");
  cr_assert_eq(h.turns[4].ncalls, 0);
  cr_assert_eq(h.turns[0].provider, CS_PROV_UNKNOWN);
}

Test(history_json, round_trip_is_byte_exact) {
  round_trip(RICH);
  round_trip("{\"turns\":[]}");
  round_trip("  {\"turns\":[{\"role\":\"user\"}], \"extra\":1}  \n");
  /* A number past a double prints as null: read as that null, the second writing is the first. */
  round_trip("{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"a\",\"name\":\"f\",\"args\":1e400}]},"
             "{\"role\":\"tool\",\"results\":[{\"call_id\":\"a\",\"name\":\"f\",\"content\":-1e999}]}]}");
  /* Every provider name survives. */
  const char *provs[] = {"anthropic", "openai_chat", "openai_responses", "mistral", "kimi", "gemini", "bedrock",
                         "adk",       "aisdk",       "unknown"};
  for (size_t i = 0; i < sizeof provs / sizeof *provs; i++) {
    char buf[200];
    snprintf(buf, sizeof buf, "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"%s\",\"calls\":[]}]}", provs[i]);
    cs_history h = round_trip(buf);
    cr_assert_eq(h.turns[0].provider, (cs_provider)i);
  }
}

Test(history_json, hostile_ids_survive_round_trip_exactly) {
  const char *json =
      "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"unknown\",\"calls\":["
      "{\"id\":\"\xf0\x9f\x98\x80\xf0\x9f\x94\xa7\",\"name\":\"emoji\"},"
      "{\"id\":\"\\u0001ctl\\u001f\\n\\t\",\"name\":\"control\"},"
      "{\"id\":\"a\xe2\x80\xa8z\\u2029\",\"name\":\"separators\"},"
      "{\"id\":\"q\\\"b\\\\s/|:.+= \",\"name\":\"punct\"},"
      "{\"id\":\"\\ud83d\\ude00\",\"name\":\"escaped-pair\"},"
      "{\"id\":\"\\\\u0000\",\"name\":\"escaped-backslash\"}"
      "]},{\"role\":\"tool\",\"results\":[{\"call_id\":\"\\u0001ctl\\u001f\\n\\t\",\"name\":\"control\"}]}]}";
  cs_history h = round_trip(json);
  const cs_call *c = h.turns[0].calls;
  cr_assert(cs_str_eq_c(c[0].id, "\xf0\x9f\x98\x80\xf0\x9f\x94\xa7"));
  cr_assert(cs_str_eq_c(c[1].id, "\x01"
                                 "ctl\x1f\n\t"));
  cr_assert(cs_str_eq_c(c[2].id, "a\xe2\x80\xa8z\xe2\x80\xa9"));
  cr_assert(cs_str_eq_c(c[3].id, "q\"b\\s/|:.+= "));
  cr_assert(cs_str_eq_c(c[4].id, "\xf0\x9f\x98\x80"), "a surrogate pair escape is one code point");
  cr_assert(cs_str_eq_c(c[5].id, "\\u0000"), "an escaped backslash then u0000 is literal text");
  cr_assert(cs_str_eq_c(h.turns[1].results[0].call_id, "\x01"
                                                       "ctl\x1f\n\t"));
}

Test(history_json, writer_output_shape) {
  cs_history h;
  cs_err err;
  cr_assert_eq(parse("{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":null,\"name\":\"f\"}]},"
                     "{\"role\":\"tool\",\"results\":[{\"name\":\"f\"}]},{\"role\":\"user\",\"text\":\"x\"}]}",
                     &h, &err),
               0, "%s", err.msg);
  cs_str w = write_history(&h);
  cr_assert_str_eq(w.ptr, "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"unknown\",\"calls\":[{\"id\":null,"
                          "\"name\":\"f\"}]},{\"role\":\"tool\",\"results\":[{\"call_id\":null,\"name\":\"f\"}]},"
                          "{\"role\":\"user\",\"text\":\"x\"}]}");
}

/* A payload is the tool's own JSON (PROTOCOL.md): an object, array, number or boolean `content` or
 * `text` is written back as that value, as `args` is, not turned into a string holding its text;
 * a string payload stays a string, even one that reads like JSON. A clone keeps them as they are. */
Test(history_json, non_string_payloads_are_written_as_read) {
  static const char *json =
      "{\"turns\":[{\"role\":\"user\",\"text\":[\"a\",{\"b\":1}]},"
      "{\"role\":\"assistant\",\"text\":\"{\\\"c\\\":2}\",\"calls\":[{\"id\":\"x\",\"name\":\"f\"},"
      "{\"id\":\"y\",\"name\":\"g\"},{\"id\":\"z\",\"name\":\"h\"}]},"
      "{\"role\":\"tool\",\"results\":[{\"call_id\":\"x\",\"name\":\"f\",\"content\":{\"lines\":3}},"
      "{\"call_id\":\"y\",\"name\":\"g\",\"content\":[1,true]},"
      "{\"call_id\":\"z\",\"name\":\"h\",\"content\":\"[1]\"}]}]}";
  static const char *want =
      "{\"turns\":[{\"role\":\"user\",\"text\":[\"a\",{\"b\":1}]},"
      "{\"role\":\"assistant\",\"provider\":\"unknown\",\"text\":\"{\\\"c\\\":2}\",\"calls\":["
      "{\"id\":\"x\",\"name\":\"f\"},{\"id\":\"y\",\"name\":\"g\"},{\"id\":\"z\",\"name\":\"h\"}]},"
      "{\"role\":\"tool\",\"results\":[{\"call_id\":\"x\",\"name\":\"f\",\"content\":{\"lines\":3}},"
      "{\"call_id\":\"y\",\"name\":\"g\",\"content\":[1,true]},"
      "{\"call_id\":\"z\",\"name\":\"h\",\"content\":\"[1]\"}]}]}";
  cs_history h;
  cs_err err;
  cr_assert_eq(parse(json, &h, &err), 0, "%s", err.msg);
  cr_assert_str_eq(write_history(&h).ptr, want);
  cs_history c = cs_history_clone(&h, &A);
  cr_assert_str_eq(write_history(&c).ptr, want);
  round_trip(json);
}

/* ---- malformed input: every one is -1 and one line naming the place ---- */

Test(history_json, truncated_json_names_line_and_column) {
  REJECTS("{\"turns\":[{\"role\":\"us", "1:22", "ends early");
  REJECTS("{\"turns\":[", "1:11", "ends early");
  REJECTS("{\n  \"turns\": [\n    {\"role\": \"user\"}", "3:21", "ends early");
  REJECTS("{\"turns\":[{\"role\":\"user\"}]", "ends early");
  REJECTS("{\"turns\":[{\"role\":\"user\",\"text\":\"\\ud83d", "ends early");
  REJECTS("{\"turns\":[{\"role\":\"user\",\"text\":tru", "1:36", "ends early");
  REJECTS("{\"turns\":[{\"role\":\"user\",\"x\":12.", "ends early");
  REJECTS("{\"turns\"", "ends early");
}

Test(history_json, syntax_errors_name_line_and_column) {
  REJECTS("{\"turns\":[{\"role\":\"user\"},]}", "1:27");
  REJECTS("{\"turns\" [] }", "1:10", "':'");
  REJECTS("{turns:[]}", "1:2", "key");
  REJECTS("{\"turns\":[]\n,\"x\":tru e}", "2:9", "literal");
  REJECTS("{\"turns\":[{\"role\":'user'}]}", "1:19");
  REJECTS("{\"turns\":[],\"t\":\"bad \\x escape\"}", "1:22", "escape");
}

Test(history_json, number_where_a_string_belongs_names_the_path) {
  REJECTS("{\"turns\":[{\"role\":\"user\"},{\"role\":\"assistant\",\"calls\":[{\"id\":5,\"name\":\"f\"}]}]}",
          "history.turns[1].calls[0].id", "expected a string, got a number");
  REJECTS("{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"a\",\"name\":\"f\"},{\"id\":\"b\",\"name\":7}]}]}",
          "history.turns[0].calls[1].name", "got a number");
  REJECTS("{\"turns\":[{\"role\":\"tool\",\"results\":[{\"call_id\":[1],\"name\":\"f\"}]}]}",
          "history.turns[0].results[0].call_id", "got an array");
  REJECTS("{\"turns\":[{\"role\":3}]}", "history.turns[0].role", "got a number");
  REJECTS("{\"turns\":[{\"role\":\"assistant\",\"turn_key\":{},\"calls\":[]}]}", "history.turns[0].turn_key",
          "got an object");
  REJECTS("{\"turns\":[{\"role\":\"assistant\",\"provider\":1}]}", "history.turns[0].provider");
  REJECTS("{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"a\",\"name\":\"f\",\"server\":\"yes\"}]}]}",
          "history.turns[0].calls[0].server", "boolean");
  REJECTS("{\"turns\":[{\"role\":\"assistant\",\"calls\":{}}]}", "history.turns[0].calls", "expected an array");
  REJECTS("{\"turns\":[{\"role\":\"assistant\",\"calls\":[\"a\"]}]}", "history.turns[0].calls[0]",
          "expected an object");
  REJECTS("{\"turns\":[7]}", "history.turns[0]", "expected an object");
  REJECTS("{\"turns\":{}}", "history.turns", "expected an array");
  REJECTS("{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"a\",\"name\":null}]}]}",
          "history.turns[0].calls[0].name", "got null");
}

Test(history_json, missing_fields_name_the_path) {
  REJECTS("{}", "history", "missing \"turns\"");
  REJECTS("{\"turns\":[{}]}", "history.turns[0]", "missing \"role\"");
  REJECTS("{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"a\"}]}]}", "history.turns[0].calls[0]",
          "missing \"name\"");
  REJECTS("{\"turns\":[{\"role\":\"tool\",\"results\":[{\"call_id\":\"a\"}]}]}", "history.turns[0].results[0]",
          "missing \"name\"");
}

Test(history_json, unknown_role_and_provider) {
  REJECTS("{\"turns\":[{\"role\":\"user\"},{\"role\":\"robot\"}]}", "history.turns[1].role", "unknown role", "robot");
  REJECTS("{\"turns\":[{\"role\":\"Assistant\"}]}", "unknown role");
  REJECTS("{\"turns\":[{\"role\":\"assistant\",\"provider\":\"openai\",\"calls\":[]}]}", "history.turns[0].provider",
          "unknown provider", "openai");
  /* A role holding a newline still gives one line. */
  REJECTS("{\"turns\":[{\"role\":\"a\\nb\"}]}", "unknown role");
}

Test(history_json, calls_and_results_on_the_wrong_turn) {
  REJECTS("{\"turns\":[{\"role\":\"user\",\"calls\":[{\"id\":\"a\",\"name\":\"f\"}]}]}", "history.turns[0].calls",
          "only assistant turns carry calls");
  REJECTS("{\"turns\":[{\"role\":\"tool\",\"calls\":[]}]}", "history.turns[0].calls");
  REJECTS("{\"turns\":[{\"role\":\"assistant\",\"results\":[]}]}", "history.turns[0].results",
          "only tool turns carry results");
  /* after calls were read, the path is the turn's again, not its last call's */
  REJECTS("{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"a\",\"name\":\"x\"}],\"results\":[]}]}",
          "history.turns[0].results: only tool turns carry results");
}

Test(history_json, ten_mib_id_hits_the_limit) {
  size_t n = 10u << 20;
  const char *head = "{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"name\":\"f\",\"id\":\"";
  const char *tail = "\"}]}]}";
  size_t hl = strlen(head), tl = strlen(tail);
  char *json = malloc(hl + n + tl + 1);
  cr_assert_not_null(json);
  memcpy(json, head, hl);
  memset(json + hl, 'x', n);
  memcpy(json + hl + n, tail, tl + 1);
  REJECTS(json, "history.turns[0].calls[0].id", "10485760 bytes", "limit is 1048576");
  /* The same shape within a raised limit is read. */
  cs_history_limits lim = {.max_id_bytes = 11u << 20};
  cs_history h;
  cs_err err;
  cr_assert_eq(cs_history_parse(cs_str_c(json), &lim, &A, &h, &err), 0, "%s", err.msg);
  cr_assert_eq(h.turns[0].calls[0].id.len, n);
  /* By default an ID as long as the generators may make (--max-id-len at most 1 MiB) is read, so
   * every history callsign writes can be read back; one byte more is not. */
  for (size_t len = CS_DEFAULT_MAX_ID_BYTES; len <= CS_DEFAULT_MAX_ID_BYTES + 1; len++) {
    memcpy(json + hl + len, tail, tl + 1);
    int rc = cs_history_parse(cs_str_c(json), NULL, &A, &h, &err);
    cr_assert_eq(rc, len == CS_DEFAULT_MAX_ID_BYTES ? 0 : -1, "%zu bytes: %s", len, err.msg);
  }
  free(json);
}

Test(history_json, other_limits) {
  cs_history h;
  cs_err err;
  const char *two = "{\"turns\":[{\"role\":\"user\"},{\"role\":\"user\"}]}";
  cs_history_limits turns = {.max_turns = 1};
  cr_assert_eq(cs_history_parse(cs_str_c(two), &turns, &A, &h, &err), -1);
  cr_assert_not_null(strstr(err.msg, "history.turns"), "%s", err.msg);
  cr_assert_not_null(strstr(err.msg, "limit is 1"), "%s", err.msg);
  cs_history_limits bytes = {.max_input_bytes = 10};
  cr_assert_eq(cs_history_parse(cs_str_c(two), &bytes, &A, &h, &err), -1);
  cr_assert_not_null(strstr(err.msg, "limit is 10"), "%s", err.msg);
  cs_history_limits id = {.max_id_bytes = 3};
  const char *ids = "{\"turns\":[{\"role\":\"tool\",\"results\":[{\"call_id\":\"abc\",\"name\":\"f\"},"
                    "{\"call_id\":\"abcd\",\"name\":\"f\"}]}]}";
  cr_assert_eq(cs_history_parse(cs_str_c(ids), &id, &A, &h, &err), -1);
  cr_assert_not_null(strstr(err.msg, "history.turns[0].results[1].call_id"), "%s", err.msg);
  /* The ID limit counts bytes: a 2-character emoji ID is 8 bytes. */
  cs_history_limits id7 = {.max_id_bytes = 7};
  const char *emoji = "{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"\xf0\x9f\x98\x80\xf0\x9f\x98\x80\","
                      "\"name\":\"f\"}]}]}";
  cr_assert_eq(cs_history_parse(cs_str_c(emoji), &id7, &A, &h, &err), -1);
  cs_history_limits id8 = {.max_id_bytes = 8};
  cr_assert_eq(cs_history_parse(cs_str_c(emoji), &id8, &A, &h, &err), 0, "%s", err.msg);
}

Test(history_json, invalid_utf8_raw_bytes) {
  REJECTS("{\"turns\":[{\"role\":\"user\",\"text\":\"a\xff\"}]}", "1:35", "invalid UTF-8");
  REJECTS("{\"turns\":[],\n\"x\":\"\xc0\xaf\"}", "2:6", "invalid UTF-8");
  REJECTS("{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"\xed\xa0\x80\",\"name\":\"f\"}]}]}",
          "invalid UTF-8");
  REJECTS("{\"turns\":[]}\xe2\x80", "invalid UTF-8");
}

Test(history_json, lone_surrogate_escapes) {
  REJECTS("{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"\\ud800\",\"name\":\"f\"}]}]}", "1:47",
          "surrogate");
  REJECTS("{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"x\\udc00\",\"name\":\"f\"}]}]}", "surrogate");
  REJECTS("{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"\\ud800\\u0041\",\"name\":\"f\"}]}]}", "surrogate");
  REJECTS("{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"\\udbff\\udbff\",\"name\":\"f\"}]}]}", "surrogate");
}

Test(history_json, nul_escape_and_nul_byte) {
  REJECTS("{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"a\\u0000b\",\"name\":\"f\"}]}]}", "1:48",
          "\\u0000");
  REJECTS("{\"turns\":[{\"role\":\"user\",\"text\":\"\\\\\\u0000\"}]}", "\\u0000"); /* \\ then \u0000 */
  REJECTS("{\"turns\":[{\"role\":\"user\",\"text\":\"\\u0000\"}]}", "\\u0000");
  static const char nul[] = "{\"turns\":[{\"role\":\"user\",\"text\":\"a\0b\"}]}";
  REJECTS_N(nul, sizeof nul - 1, "1:35", "NUL");
  static const char nul_end[] = "{\"turns\":[]}\0";
  REJECTS_N(nul_end, sizeof nul_end - 1, "NUL");
  /* Escaped backslashes before "u0000" are literal text: accepted, and kept as such. */
  cs_history h;
  cs_err err;
  cr_assert_eq(parse("{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"\\\\u0000\",\"name\":\"f\"},"
                     "{\"id\":\"\\\\\\\\u0000\",\"name\":\"g\"}]}]}",
                     &h, &err),
               0, "%s", err.msg);
  cr_assert(cs_str_eq_c(h.turns[0].calls[0].id, "\\u0000"));
  cr_assert(cs_str_eq_c(h.turns[0].calls[1].id, "\\\\u0000"));
}

/* The strict parser under cs_history_parse, for any JSON value: a vector file, a case, a summary. */
Test(history_json, parse_strict_any_value) {
  cs_err err = {{0}};
  cJSON *v = cs_json_parse_strict(cs_str_c("[1, {\"a\": \"b\"}]\n"), 0, "the vector file", &err);
  cr_assert(cJSON_IsArray(v), "%s", err.msg);
  cr_assert_eq(cJSON_GetArraySize(v), 2);
  cJSON_Delete(v);
  cr_assert_null(cs_json_parse_strict(cs_str_c("{} {}"), 0, "the vector file", &err));
  cr_assert_str_eq(err.msg, "1:4: unexpected data after the vector file");
  cr_assert_null(cs_json_parse_strict(cs_str_c("{\"a\":"), 0, "x", &err));
  cr_assert(strstr(err.msg, "1:6") && strstr(err.msg, "ends early"), "%s", err.msg);
  cr_assert_null(cs_json_parse_strict(cs_str_c("\"\\u0000\""), 0, "x", &err));
  cr_assert(strstr(err.msg, "\\u0000"), "%s", err.msg);
  cr_assert_null(cs_json_parse_strict(cs_str_c("[1,2,3]"), 4, "x", &err), "over max_bytes");
}

Test(history_json, trailing_garbage) {
  REJECTS("{\"turns\":[]} x", "1:14", "after the history object");
  REJECTS("{\"turns\":[]}\n\n{\"turns\":[]}", "3:1", "after the history object");
  REJECTS("{\"turns\":[]}]", "1:13");
  /* Trailing white space is fine. */
  cs_history h;
  cs_err err;
  cr_assert_eq(parse("{\"turns\":[]} \t\r\n\n", &h, &err), 0, "%s", err.msg);
}

Test(history_json, deeply_nested_args_do_not_crash) {
  size_t depth = 10000;
  const char *head = "{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"a\",\"name\":\"f\",\"args\":";
  const char *tail = "}]}]}";
  size_t hl = strlen(head), tl = strlen(tail);
  char *json = malloc(hl + 2 * depth + tl + 1);
  memcpy(json, head, hl);
  memset(json + hl, '[', depth);
  memset(json + hl + depth, ']', depth);
  memcpy(json + hl + 2 * depth, tail, tl + 1);
  REJECTS(json, "nested");
  free(json);
  /* Objects too, and a truncated deep document. */
  size_t per = 5; /* {"a": */
  char *obj = malloc(hl + per * depth + 1 + depth + tl + 1);
  size_t o = 0;
  memcpy(obj, head, hl);
  o = hl;
  for (size_t i = 0; i < depth; i++, o += per)
    memcpy(obj + o, "{\"a\":", per);
  obj[o++] = '1';
  memset(obj + o, '}', depth);
  o += depth;
  memcpy(obj + o, tail, tl + 1);
  REJECTS(obj, "nested");
  obj[hl + per * 500] = 0; /* cut at a depth within the limit */
  REJECTS(obj, "ends early");
  free(obj);
}

Test(history_json, moderate_nesting_is_read) {
  size_t depth = 500;
  const char *head = "{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"a\",\"name\":\"f\",\"args\":";
  const char *tail = "}]}]}";
  size_t hl = strlen(head), tl = strlen(tail);
  char *json = malloc(hl + 2 * depth + tl + 1);
  memcpy(json, head, hl);
  memset(json + hl, '[', depth);
  memset(json + hl + depth, ']', depth);
  memcpy(json + hl + 2 * depth, tail, tl + 1);
  round_trip(json);
  free(json);
}

Test(history_json, empty_null_and_wrong_top_level) {
  REJECTS("", "1:1", "ends early");
  REJECTS("   \n", "2:1", "ends early");
  REJECTS_N(NULL, 0, "ends early");
  REJECTS("null", "history", "expected an object, got null");
  REJECTS("[]", "history", "expected an object, got an array");
  REJECTS("[{\"turns\":[]}]", "history", "got an array");
  REJECTS("\"turns\"", "got a string");
  REJECTS("42", "got a number");
  REJECTS("true", "got a boolean");
}

Test(history_json, binary_input) {
  unsigned char bin[256];
  for (int i = 0; i < 256; i++)
    bin[i] = (unsigned char)(255 - i);
  REJECTS_N((const char *)bin, sizeof bin, "1:1");
  /* Bytes that are valid UTF-8 but not JSON. */
  REJECTS("\x01\x02\x03", "1:1");
  /* A UTF-8 byte-order mark is skipped (as cJSON does); errors after it are placed past it. */
  cs_history h;
  cs_err err;
  cr_assert_eq(parse("\xef\xbb\xbf{\"turns\":[]}", &h, &err), 0, "%s", err.msg);
  REJECTS("\xef\xbb\xbf{\"turns\":[}", "1:12");
}

Test(history_json, message_is_one_line_even_near_control_bytes) {
  REJECTS("{\"turns\":[]\n\x01\x02\n\n]", "2:1");
  REJECTS("{\"turns\":[],\"a\":\"\n\"x\n\n\n}", "2:2");
}

Test(history_json, from_cjson_uses_the_given_path) {
  cJSON *v = cJSON_Parse("{\"turns\":[{\"role\":\"tool\",\"results\":[{\"call_id\":1,\"name\":\"f\"}]}]}");
  cs_history h;
  cs_err err;
  cr_assert_eq(cs_history_from_cjson(v, "request.history", NULL, &A, &h, &err), -1);
  cr_assert_str_eq(err.msg, "request.history.turns[0].results[0].call_id: expected a string, got a number");
  cr_assert_eq(cs_history_from_cjson(v, NULL, NULL, &A, &h, &err), -1);
  cr_assert_not_null(strstr(err.msg, "history.turns[0]"), "%s", err.msg);
  cJSON_Delete(v);
  /* A long path prefix is cut, not overflowed. */
  char longpath[400];
  memset(longpath, 'p', sizeof longpath - 1);
  longpath[sizeof longpath - 1] = 0;
  v = cJSON_Parse("{\"turns\":[{\"role\":\"robot\"}]}");
  cr_assert_eq(cs_history_from_cjson(v, longpath, NULL, &A, &h, &err), -1);
  cr_assert_null(strchr(err.msg, '\n'));
  cJSON_Delete(v);
}

/* A member named twice in a history object says two things (cJSON finds the first, another
 * reader the last): refused at its path. Payloads are the tool's own JSON and keep theirs. */
Test(history_json, repeated_member_names) {
  cs_history h;
  cs_err err;
  const struct {
    const char *json, *why;
  } bad[] = {
      {"{\"turns\":[],\"turns\":[]}", "history: the member \"turns\" occurs twice"},
      {"{\"turns\":[{\"role\":\"user\",\"role\":\"tool\"}]}", "history.turns[0]: the member \"role\" occurs twice"},
      {"{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"a\",\"name\":\"f\",\"id\":\"b\"}]}]}",
       "history.turns[0].calls[0]: the member \"id\" occurs twice"},
      {"{\"turns\":[{\"role\":\"tool\",\"results\":[{\"call_id\":\"a\",\"name\":\"f\",\"call_id\":\"b\"}]}]}",
       "history.turns[0].results[0]: the member \"call_id\" occurs twice"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    cr_assert_eq(cs_history_parse(cs_str_c(bad[i].json), NULL, &A, &h, &err), -1, "%s", bad[i].json);
    cr_assert_not_null(strstr(err.msg, bad[i].why), "%s: %s", bad[i].json, err.msg);
  }
  const char *ok =
      "{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"a\",\"name\":\"f\",\"args\":{\"x\":1,\"x\":2}}]}]}";
  cr_assert_eq(cs_history_parse(cs_str_c(ok), NULL, &A, &h, &err), 0, "%s", err.msg);
  cr_assert_str_eq(h.turns[0].calls[0].args.ptr, "{\"x\":1,\"x\":2}");
  /* Past 16 members the names are sorted: a repeat far apart is still found. */
  char big[2048];
  size_t n = (size_t)snprintf(big, sizeof big, "{\"turns\":[{\"role\":\"user\"");
  for (int k = 0; k < 40; k++)
    n += (size_t)snprintf(big + n, sizeof big - n, ",\"m%02d\":%d", k, k);
  snprintf(big + n, sizeof big - n, ",\"m03\":0}]}");
  cr_assert_eq(cs_history_parse(cs_str_c(big), NULL, &A, &h, &err), -1);
  cr_assert_not_null(strstr(err.msg, "history.turns[0]: the member \"m03\" occurs twice"), "%s", err.msg);
  cs_arena_free(&A);
}

/* The history reader is as strict as the protocol's answers: what cJSON lets through and RFC 8259
 * forbids is refused at its place. */
Test(history_json, history_text_is_strict) {
  cs_history h;
  cs_err err;
  const char *bad[] = {"{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":\"a\",\"name\":\"f\",\"args\":[05]}]}]}",
                       "{\"turns\":[{\"role\":\"user\",\"text\":\"a\x01\"}]}"};
  const char *why[] = {"1:69: number with a leading zero", "1:35: raw control character U+0001"};
  for (size_t i = 0; i < 2; i++) {
    cr_assert_eq(cs_history_parse(cs_str_c(bad[i]), NULL, &A, &h, &err), -1, "%s", bad[i]);
    cr_assert_not_null(strstr(err.msg, why[i]), "%s", err.msg);
  }
  cs_arena_free(&A);
}

/* cs_json_strict_tokens: what cJSON parses and RFC 8259 forbids, found at its place wherever it
 * sits in a string (strings are scanned eight bytes at a time). */
Test(history_json, strict_tokens) {
  cs_err err;
  for (size_t at = 0; at < 21; at++) {
    if (at == 10 || at == 11) /* the \" escape */
      continue;
    char s[40] = "[\"abcdefghij\\\"klmnopqrs\",1]";
    s[2 + at] = '\x1f';
    cr_assert_eq(cs_json_strict_tokens(cs_str_c(s), &err), -1, "at %zu", at);
    char want[60];
    snprintf(want, sizeof want, "1:%zu: raw control character U+001F in a string", 3 + at);
    cr_assert_not_null(strstr(err.msg, want), "at %zu: %s", at, err.msg);
  }
  const char *good[] = {"[\"abcdefghij\\\"klmnopqrs\",1]",
                        "{\"a\":[0,-0,10,0.5,-1.5e-05,2E+3,1e05],\"b\":\"\\\\\",\"c\":\"\\\"05\",\"d\":true}\t\r\n",
                        "\"\xc3\xa9\x7f\"",
                        "",
                        "\"unterminated \\",
                        "\"\\"};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++)
    cr_assert_eq(cs_json_strict_tokens(cs_str_c(good[i]), &err), 0, "%s: %s", good[i], err.msg);
  const struct {
    const char *json, *why;
  } bad[] = {
      {"[05]", "1:2: number with a leading zero"},
      {"[-00]", "1:2: number with a leading zero"},
      {"[5.]", "1:2: malformed number"},
      {"[-.5]", "1:2: malformed number"},
      {"[1.e5]", "1:2: malformed number"},
      {"[1,\x01 2]", "1:4: control character U+0001 outside"},
      {"\x0c[]", "1:1: control character U+000C"},
      {"{\"a\n\":1}", "1:4: raw control character U+000A"},
      {"\"\\\"\x02\"", "1:4: raw control character"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    cr_assert_eq(cs_json_strict_tokens(cs_str_c(bad[i].json), &err), -1, "%s", bad[i].json);
    cr_assert_not_null(strstr(err.msg, bad[i].why), "%s: %s", bad[i].json, err.msg);
  }
}

Test(history_json, precheck_and_line_col) {
  cs_err err;
  cr_assert_eq(cs_json_precheck(cs_str_c("{\"a\":\"\\\\u0000\"}"), 0, &err), 0);
  cr_assert_eq(cs_json_precheck(cs_str_c("{\"a\":\"\\\\\\u0000\"}"), 0, &err), -1);
  cr_assert_eq(cs_json_precheck(cs_str_c("\\u0000"), 0, &err), -1, "at the very end of the input");
  cr_assert_eq(cs_json_precheck(cs_str_c("\\u000"), 0, &err), 0, "not a full escape: left to the parser");
  cr_assert_eq(cs_json_precheck(cs_str_c("\\u0001"), 0, &err), 0);
  cr_assert_eq(cs_json_precheck(cs_str_c("12345"), 4, &err), -1);
  size_t line, col;
  cs_str j = cs_str_c("ab\ncd\xc3\xa9"
                      "f\n");
  cs_json_line_col(j, 0, &line, &col);
  cr_assert(line == 1 && col == 1);
  cs_json_line_col(j, 4, &line, &col);
  cr_assert(line == 2 && col == 2, "%zu:%zu", line, col);
  cs_json_line_col(j, 7, &line, &col); /* after the two-byte é: columns count characters */
  cr_assert(line == 2 && col == 4, "%zu:%zu", line, col);
  cs_json_line_col(j, 100, &line, &col);
  cr_assert(line == 3 && col == 1, "%zu:%zu", line, col);
}

/* A member named twice says two things (cJSON finds the first, another reader the last): refused
 * with its name, for the caller to prefix with the place. */
Test(history_json, names_once_names_the_member_named_twice) {
  cs_err err = {{0}};
  cJSON *once = cJSON_Parse("{\"a\":1,\"b\":2}"), *twice = cJSON_Parse("{\"a\":1,\"b\":2,\"a\":3}");
  cr_assert_not_null(once);
  cr_assert_not_null(twice);
  cr_assert_eq(cs_json_names_once(once, &err), 0);
  cr_assert_eq(cs_json_names_once(twice, &err), -1);
  cr_assert_str_eq(err.msg, "the member \"a\" occurs twice (a name may occur once)");
  cJSON_Delete(once);
  cJSON_Delete(twice);
}

/* An answer as PROTOCOL.md writes it: compact, null for a dropped entry, IDs as JSON strings. */
Test(history_json, answer_write_is_the_protocol_shape) {
  cs_arena a = {0};
  cs_answer ans = cs_answer_new(2, 1, &a);
  ans.calls[0] = cs_str_c("toolu_\"1\"\n");
  ans.results[0] = cs_str_c("toolu_\"1\"\n");
  cs_buf b = {0};
  cs_answer_write(&b, &ans);
  cr_assert_str_eq(b.data, "{\"calls\":[\"toolu_\\\"1\\\"\\u000a\",null],\"results\":[\"toolu_\\\"1\\\"\\u000a\"]}");
  cs_buf_free(&b);
  cs_arena_free(&a);
}
