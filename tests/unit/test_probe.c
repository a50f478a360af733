/* tests/unit/test_probe.c: the live-probe pieces of providers/: each provider's request builder
 * (valid JSON, the IDs in the documented fields), each classifier on the error texts of
 * docs/PROVIDERS.md (also through OpenRouter, Vertex and Bedrock wrappers), envelope unwrapping,
 * fragment matching, the offline verdict, probe IDs and URLs, and the HTTP client's offline modes
 * (dry run, replay, budget, redaction). No test touches the network. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/hash.h"
#include "core/utf8.h"
#include "providers/http.h"
#include "providers/probe.h"
#include "providers/rule.h"

static cJSON *build(const cs_probe_spec *s, const cs_probe_pair *pairs, uint32_t n, unsigned endpoint) {
  cs_probe_request req = {"model-x", endpoint, pairs, n};
  cs_buf b = {0};
  s->build(&req, &b);
  cJSON *j = cJSON_ParseWithLength(b.data, b.len);
  cr_assert(j != NULL, "not JSON: %s", b.data);
  cs_buf_free(&b);
  return j;
}

static const char *str_at(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const cJSON *item(const cJSON *a, int i) {
  return cJSON_GetArrayItem(a, i);
}
static const cJSON *get(const cJSON *o, const char *k) {
  return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* One call "A1" answered, in the first message. */
static const cs_probe_pair one[] = {{.call_id = {"A1", 2}, .result_id = {"A1", 2}}};

Test(probe_build, anthropic_ids_in_tool_use_and_tool_result) {
  cJSON *j = build(&cs_probe_anthropic, one, 1, 0);
  cr_assert_str_eq(str_at(j, "model"), "model-x");
  cr_assert_null(get(j, "max_tokens"), "count_tokens takes no max_tokens");
  const cJSON *msgs = get(j, "messages");
  cr_assert_eq(cJSON_GetArraySize(msgs), 3);
  const cJSON *use = item(get(item(msgs, 1), "content"), 0);
  cr_assert_str_eq(str_at(use, "type"), "tool_use");
  cr_assert_str_eq(str_at(use, "id"), "A1");
  const cJSON *res = item(get(item(msgs, 2), "content"), 0);
  cr_assert_str_eq(str_at(res, "type"), "tool_result");
  cr_assert_str_eq(str_at(res, "tool_use_id"), "A1");
  cr_assert(cJSON_GetArraySize(get(j, "tools")) == 1, "tools must be defined with tool blocks");
  cJSON_Delete(j);
  j = build(&cs_probe_anthropic, one, 1, 1);
  cr_assert_eq(get(j, "max_tokens")->valueint, 1);
  cJSON_Delete(j);
}

Test(probe_build, chat_family_ids_in_tool_calls_and_tool_messages) {
  const cs_probe_spec *specs[] = {&cs_probe_openai_chat, &cs_probe_mistral, &cs_probe_kimi};
  for (size_t s = 0; s < 3; s++) {
    cJSON *j = build(specs[s], one, 1, 0);
    const cJSON *msgs = get(j, "messages");
    cr_assert_eq(cJSON_GetArraySize(msgs), 3);
    const cJSON *tc = item(get(item(msgs, 1), "tool_calls"), 0);
    cr_assert_str_eq(str_at(tc, "id"), "A1");
    cr_assert_str_eq(str_at(get(tc, "function"), "name"), CS_PROBE_TOOL);
    cr_assert_str_eq(str_at(item(msgs, 2), "role"), "tool");
    cr_assert_str_eq(str_at(item(msgs, 2), "tool_call_id"), "A1");
    /* OpenAI's reasoning models need room to answer an accepted probe; the others take 1. */
    const cJSON *budget = get(j, s == 0 ? "max_completion_tokens" : "max_tokens");
    cr_assert(budget != NULL);
    cr_assert_eq(budget->valueint, s == 0 ? 16 : 1);
    cJSON_Delete(j);
  }
}

Test(probe_build, responses_uses_call_id_and_no_item_id) {
  cJSON *j = build(&cs_probe_openai_responses, one, 1, 0);
  const cJSON *in = get(j, "input");
  cr_assert_eq(cJSON_GetArraySize(in), 3);
  cr_assert_str_eq(str_at(item(in, 1), "type"), "function_call");
  cr_assert_str_eq(str_at(item(in, 1), "call_id"), "A1");
  cr_assert_null(get(item(in, 1), "id"), "an fc_ item id would need its reasoning item");
  cr_assert_str_eq(str_at(item(in, 2), "type"), "function_call_output");
  cr_assert_str_eq(str_at(item(in, 2), "call_id"), "A1");
  cr_assert_geq(get(j, "max_output_tokens")->valueint, 16);
  cr_assert(cJSON_IsFalse(get(j, "store")));
  cJSON_Delete(j);
}

Test(probe_build, gemini_function_call_and_response_ids) {
  cJSON *j = build(&cs_probe_gemini, one, 1, 0);
  const cJSON *c = get(j, "contents");
  cr_assert_str_eq(str_at(item(c, 1), "role"), "model");
  const cJSON *part = item(get(item(c, 1), "parts"), 0);
  cr_assert_str_eq(str_at(get(part, "functionCall"), "id"), "A1");
  cr_assert_str_eq(str_at(part, "thoughtSignature"), "skip_thought_signature_validator");
  cr_assert_str_eq(str_at(get(item(get(item(c, 2), "parts"), 0), "functionResponse"), "id"), "A1");
  cr_assert_eq(get(get(j, "generationConfig"), "maxOutputTokens")->valueint, 1);
  cJSON_Delete(j);
  /* a null ID omits the field (Gemini 2.x) */
  cs_probe_pair none[] = {{.call_id = CS_NULL_STR, .result_id = CS_NULL_STR}};
  j = build(&cs_probe_gemini, none, 1, 0);
  cr_assert_null(get(get(item(get(item(get(j, "contents"), 1), "parts"), 0), "functionCall"), "id"));
  cJSON_Delete(j);
}

Test(probe_build, bedrock_tool_use_id_and_tool_config) {
  cJSON *j = build(&cs_probe_bedrock, one, 1, 0);
  const cJSON *m = get(j, "messages");
  cr_assert_str_eq(str_at(get(item(get(item(m, 1), "content"), 0), "toolUse"), "toolUseId"), "A1");
  cr_assert_str_eq(str_at(get(item(get(item(m, 2), "content"), 0), "toolResult"), "toolUseId"), "A1");
  cr_assert(get(j, "toolConfig") != NULL, "toolConfig is required with toolUse blocks");
  cr_assert_eq(get(get(j, "inferenceConfig"), "maxTokens")->valueint, 1);
  cJSON_Delete(j);
}

/* The values of the probe's IDs ("a" is the NUL-holding ID as cJSON reads it), in document order. */
static void id_sequence(const cJSON *j, char *out, size_t cap) {
  for (const cJSON *c = j ? j->child : NULL; c; c = c->next) {
    if (cJSON_IsString(c) &&
        (!strcmp(c->valuestring, "a") || !strcmp(c->valuestring, "R2") || !strcmp(c->valuestring, "C3"))) {
      size_t len = strlen(out);
      snprintf(out + len, cap - len, "%s ", c->valuestring);
    }
    id_sequence(c, out, cap);
  }
}

Test(probe_build, grouping_orphans_missing_and_hostile_ids) {
  /* message 0: a call answered, an orphan result; message 1: a call without result */
  const char nul_id[] = {'a', 0, 'b', '"', '\\'};
  cs_probe_pair p[] = {
      {.call_id = {nul_id, sizeof nul_id}, .result_id = {nul_id, sizeof nul_id}},
      {.result_id = {"R2", 2}, .orphan = true},
      {.call_id = {"C3", 2}, .message = 1, .unanswered = true},
  };
  const cs_probe_spec *all[] = {&cs_probe_anthropic, &cs_probe_openai_chat, &cs_probe_openai_responses,
                                &cs_probe_mistral,   &cs_probe_kimi,        &cs_probe_gemini,
                                &cs_probe_bedrock};
  /* Every provider's body carries, in document order: the first call, its result, the orphan result
   * (with the first message's results), then the unanswered call, alone. */
  for (size_t s = 0; s < 7; s++) {
    cJSON *j = build(all[s], p, 3, 0);
    char seq[64] = "";
    id_sequence(j, seq, sizeof seq);
    cr_assert_str_eq(seq, "a a R2 C3 ", "provider %zu: IDs in order: %s", s, seq);
    cJSON_Delete(j);
  }
  cJSON *j = build(&cs_probe_anthropic, p, 3, 0);
  const cJSON *msgs = get(j, "messages");
  cr_assert_eq(cJSON_GetArraySize(msgs), 5, "user, assistant, results, assistant, user");
  cr_assert_eq(cJSON_GetArraySize(get(item(msgs, 2), "content")), 2, "the orphan joins the first results");
  cr_assert_str_eq(str_at(item(get(item(msgs, 2), "content"), 1), "tool_use_id"), "R2");
  cr_assert_str_eq(str_at(item(get(item(msgs, 3), "content"), 0), "id"), "C3");
  cr_assert_str_eq(str_at(item(get(item(msgs, 4), "content"), 0), "type"), "text");
  cJSON_Delete(j);
}

/* ---- classifiers ---- */

typedef struct {
  const cs_probe_spec *spec;
  long status;
  const char *body;
  cs_probe_verdict want;
} classify_case;

static void check_classify(const classify_case *c, size_t n) {
  for (size_t i = 0; i < n; i++) {
    cs_probe_outcome out;
    c[i].spec->classify(c[i].status, cs_str_c(c[i].body), &out);
    cr_expect_eq(out.verdict, c[i].want, "case %zu: got %s, want %s (%s)", i, cs_probe_verdict_name(out.verdict),
                 cs_probe_verdict_name(c[i].want), out.message);
  }
}

Test(probe_classify, anthropic_documented_texts) {
  const classify_case c[] = {
      {&cs_probe_anthropic, 200, "{\"input_tokens\":12}", CS_PROBE_ACCEPTED},
      {&cs_probe_anthropic, 400,
       "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.92.content.0.tool_use."
       "id: "
       "String should match pattern '^[a-zA-Z0-9_-]+$'\"},\"request_id\":\"req_011C\"}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_anthropic, 400,
       "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.3.content.0.tool_"
       "result."
       "tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'\"}}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_anthropic, 400,
       "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.1.content.1: "
       "`tool_use` "
       "ids must be unique\"}}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_anthropic, 400,
       "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.1.content.1: tool_use "
       "ids must be unique\"}}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_anthropic, 400,
       "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.48.content.1: "
       "unexpected "
       "`tool_use_id` found in `tool_result` blocks: toolu_019ETtGZEhTBXgWPVsdVnXMh. Each `tool_result` block must "
       "have a corresponding `tool_use` block in the previous message.\"}}",
       CS_PROBE_REJECTED_PAIRING},
      {&cs_probe_anthropic, 400,
       "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.6: `tool_use` ids "
       "were "
       "found without `tool_result` blocks immediately after: toolu_01AbmHJypDhKqBF7NKdRPJ6d. Each `tool_use` block "
       "must have a corresponding `tool_result` block in the next message.\"}}",
       CS_PROBE_REJECTED_PAIRING},
      {&cs_probe_anthropic, 400,
       "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.27: Did not find 1 "
       "`tool_result` block(s) at the beginning of this message. Messages following `tool_use` blocks must begin "
       "with a matching number of `tool_result` blocks.\"}}",
       CS_PROBE_REJECTED_PAIRING},
      {&cs_probe_anthropic, 400,
       "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"tools.0.custom.name: String "
       "should match pattern '^[a-zA-Z0-9_-]{1,128}$'\"}}",
       CS_PROBE_REJECTED_OTHER},
      {&cs_probe_anthropic, 401,
       "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}",
       CS_PROBE_TRANSPORT} /* a wrong key: no verdict on IDs */,
      {&cs_probe_anthropic, 529, "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"x\"}}",
       CS_PROBE_TRANSPORT},
      {&cs_probe_anthropic, 0, "Failed to connect", CS_PROBE_TRANSPORT},
  };
  check_classify(c, sizeof c / sizeof *c);
}

Test(probe_classify, anthropic_through_gateways) {
  const classify_case c[] = {
      /* Vertex: Anthropic's body as the JSON-string message */
      {&cs_probe_anthropic, 400,
       "{\"error\":{\"code\":400,\"message\":\"{\\\"type\\\":\\\"error\\\",\\\"error\\\":{\\\"type\\\":\\\"invalid_"
       "request_error\\\",\\\"message\\\":\\\"messages.243: `tool_use` ids were found without `tool_result` blocks "
       "immediately after: bash-uOQIdN0O. …\\\"},\\\"request_id\\\":\\\"req_vrtx_011CX8\\\"}\",\"status\":\"INVALID_"
       "ARGUMENT\"}}",
       CS_PROBE_REJECTED_PAIRING},
      /* OpenRouter: metadata.raw */
      {&cs_probe_anthropic, 400,
       "{\"error\":{\"message\":\"Provider returned "
       "error\",\"code\":400,\"metadata\":{\"raw\":\"{\\\"type\\\":\\\"error\\\","
       "\\\"error\\\":{\\\"type\\\":\\\"invalid_request_error\\\",\\\"message\\\":\\\"messages.1.content.0.tool_use.id:"
       " "
       "String should match pattern '^[a-zA-Z0-9_-]+$'\\\"}}\",\"provider_name\":\"Anthropic\"}}}",
       CS_PROBE_REJECTED_RULE},
      /* Bedrock passing Claude's text through, read by Bedrock's classifier */
      {&cs_probe_bedrock, 400,
       "{\"message\":\"The model returned the following errors: messages.2: `tool_use` ids were found without "
       "`tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding "
       "`tool_result` block in the next message.\"}",
       CS_PROBE_REJECTED_PAIRING},
      /* the DeepSeek /anthropic endpoint copies the text and adds a code */
      {&cs_probe_anthropic, 400,
       "{\"error\":{\"message\":\"`tool_use` ids must be unique\",\"code\":\"invalid_request_error\"}}",
       CS_PROBE_REJECTED_RULE},
  };
  check_classify(c, sizeof c / sizeof *c);
}

Test(probe_classify, openai_chat_and_compatible_texts) {
  const classify_case c[] = {
      {&cs_probe_openai_chat, 200, "{\"id\":\"chatcmpl\"}", CS_PROBE_ACCEPTED},
      {&cs_probe_openai_chat, 400,
       "{\"error\":{\"message\":\"Invalid 'messages[2].tool_calls[0].id': string too long. Expected a string with "
       "maximum length 40, but got a string with length 43 instead.\",\"type\":\"invalid_request_error\",\"param\":"
       "\"messages[2].tool_calls[0].id\",\"code\":\"string_above_max_length\"}}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_openai_chat, 400,
       "{\"error\":{\"message\":\"Invalid 'messages[13].tool_call_id': string too long. Expected a string with maximum "
       "length 40, but got a string with length 45 instead.\",\"type\":\"invalid_request_error\"}}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_openai_chat, 400,
       "{\"message\":\"Invalid parameter: Duplicate value for 'tool_call_id' of 'call_gmd4tanjXcwOxfPawOnDmq6R', in "
       "messages[7] and messages[8].\",\"type\":\"invalid_request_error\",\"param\":\"messages.[8].tool_call_id\"}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_openai_chat, 400,
       "{\"error\":{\"message\":\"Invalid parameter: messages with role 'tool' must be a response to a preceeding "
       "message with "
       "'tool_calls'.\",\"type\":\"invalid_request_error\",\"param\":\"messages.[3].role\",\"code\":null}}",
       CS_PROBE_REJECTED_PAIRING},
      {&cs_probe_openai_chat, 400,
       "{\"error\":{\"message\":\"An assistant message with 'tool_calls' must be followed by tool messages responding "
       "to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_RTlWVuE5MqEb3WZJgT"
       "Il7Rsb\",\"type\":\"invalid_request_error\",\"param\":\"messages.[6].role\",\"code\":null}}",
       CS_PROBE_REJECTED_PAIRING},
      {&cs_probe_openai_chat, 400,
       "{\"error\":{\"message\":\"Invalid parameter: 'tool_call_id' of 'call_XXXXXXXXX' not found in 'tool_calls' of "
       "previous message.\"}}",
       CS_PROBE_REJECTED_PAIRING},
      /* DeepSeek's variants */
      {&cs_probe_openai_chat, 400,
       "{\"error\":{\"message\":\"Messages with role 'tool' must be a response to a preceding message with "
       "'tool_calls'\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_request_error\"}}",
       CS_PROBE_REJECTED_PAIRING},
      {&cs_probe_openai_chat, 400, "{\"error\":{\"message\":\"Duplicate value for 'tool_call_id' of in message[4]\"}}",
       CS_PROBE_REJECTED_RULE},
      /* Groq, through a proxy */
      {&cs_probe_openai_chat, 400,
       "{\"error\":{\"message\":\"'messages.3' : for 'role:tool' the following must be satisfied[('messages.3.tool_"
       "call_id' : property 'tool_call_id' is missing)]\",\"type\":\"invalid_request_error\"}}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_openai_chat, 401,
       "{\"error\":{\"message\":\"Incorrect API key provided.\",\"code\":\"invalid_api_key\"}}",
       CS_PROBE_TRANSPORT} /* a wrong key: no verdict on IDs */,
      {&cs_probe_openai_chat, 429, "{\"error\":{\"message\":\"Rate limit reached\"}}", CS_PROBE_TRANSPORT},
      /* Kimi: its own texts, then OpenAI's */
      {&cs_probe_kimi, 400, "{\"error\":{\"message\":\"Invalid request: tool call id feishu_doc:35 is duplicated\"}}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_kimi, 400,
       "{'error': {'message': \"an assistant message with 'tool_calls' must be followed by tool messages responding "
       "to each 'tool_call_id'. The following tool_call_ids did not have response messages: Shell:58\", 'type': "
       "'invalid_request_error'}}",
       CS_PROBE_REJECTED_PAIRING},
      {&cs_probe_kimi, 400,
       "{\"error\":{\"message\":\"an assistant message with 'tool_calls' must be followed by tool messages responding "
       "to each 'tool_call_id'. The following tool_call_ids did not have response messages: Shell:58\",\"type\":"
       "\"invalid_request_error\"}}",
       CS_PROBE_REJECTED_PAIRING},
  };
  check_classify(c, sizeof c / sizeof *c);
}

/* OpenAI's duplicate tool_call_id comes from repeated call IDs and from a call answered twice alike:
 * it is a rule rejection that may be a pairing one, which the probe decides by the request. */
Test(probe_classify, a_duplicate_tool_call_id_may_be_pairing) {
  static const char *dup = "{\"error\":{\"message\":\"Invalid parameter: Duplicate value for 'tool_call_id' of "
                           "'call_1', in messages[4] and messages[5].\"}}";
  const cs_probe_spec *specs[] = {&cs_probe_openai_chat, &cs_probe_kimi};
  for (size_t i = 0; i < 2; i++) {
    cs_probe_outcome out = {.or_pairing = false};
    specs[i]->classify(400, cs_str_c(dup), &out);
    cr_assert_eq(out.verdict, CS_PROBE_REJECTED_RULE);
    cr_assert(out.or_pairing, "spec %zu", i);
    out.or_pairing = true;
    specs[i]->classify(400,
                       cs_str_c("{\"error\":{\"message\":\"Invalid 'messages[2].tool_calls[0].id': string too "
                                "long.\"}}"),
                       &out);
    cr_assert_eq(out.verdict, CS_PROBE_REJECTED_RULE);
    cr_assert_not(out.or_pairing, "spec %zu: a length error is the rule's alone", i);
  }
}

Test(probe_classify, responses_mistral_gemini_bedrock_texts) {
  const classify_case c[] = {
      {&cs_probe_openai_responses, 400,
       "{\"error\":{\"message\":\"Invalid 'input[149].call_id': string too long. Expected a string with maximum length "
       "64, but got a string with length 86 "
       "instead.\",\"type\":\"invalid_request_error\",\"param\":\"input[149].call_id"
       "\",\"code\":\"string_above_max_length\"}}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_openai_responses, 400,
       "{\"error\":{\"message\":\"Invalid 'input[4].call_id': empty string. Expected a string with minimum length 1, "
       "but got an empty string instead.\",\"code\":\"empty_string\"}}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_openai_responses, 400,
       "{\"error\":{\"message\":\"Invalid 'input[274].id': 'item_c270'. Expected an ID that begins with "
       "'fc'.\",\"code\":"
       "\"invalid_id_prefix\"}}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_openai_responses, 400,
       "{\"error\":{\"message\":\"No tool call found for function call output with call_id call_TnakLSVsqtVt5cJssAhRwMo"
       "e.\",\"type\":\"invalid_request_error\",\"param\":\"input\",\"code\":null}}",
       CS_PROBE_REJECTED_PAIRING},
      {&cs_probe_openai_responses, 400,
       "{\"message\":\"No tool output found for function call call_uK3eDRSXx9p45csFRjvXDNPq.\",\"type\":\"invalid_"
       "request_error\",\"param\":\"input\",\"code\":null}",
       CS_PROBE_REJECTED_PAIRING},
      {&cs_probe_openai_responses, 400,
       "{\"error\":{\"message\":\"Item 'fc_1' of type 'function_call' was provided without its required 'reasoning' "
       "item: 'rs_1'.\"}}",
       CS_PROBE_REJECTED_OTHER},
      {&cs_probe_mistral, 400,
       "{\"object\":\"error\",\"message\":\"Tool call id was 38f04d9ea185424a8dc6ed9a88da5 but must be a-z, A-Z, 0-9, "
       "with a length of 9.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":null}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_mistral, 400,
       "{\"object\":\"error\",\"message\":\"Tool call id was call_5019f900a247472bacde0b82 but must be a-z, A-Z, 0-9, "
       "with a length of 9.\",\"type\":\"invalid_function_call\",\"param\":null,\"code\":\"3280\"}",
       CS_PROBE_REJECTED_RULE},
      /* an echoed ID holding U+0000 must not cut the message */
      {&cs_probe_mistral, 400,
       "{\"object\":\"error\",\"message\":\"Tool call id was ab\\u0000cd but must be a-z, A-Z, 0-9, with a length of "
       "9.\",\"type\":\"invalid_function_call\",\"code\":\"3280\"}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_mistral, 400,
       "{\"object\":\"error\",\"message\":\"Not the same number of function calls and responses\",\"type\":\"invalid_"
       "request_error\",\"param\":null,\"code\":null}",
       CS_PROBE_REJECTED_PAIRING},
      {&cs_probe_mistral, 400, "{\"message\":\"Tool call id has to be defined in serving mode.\"}",
       CS_PROBE_REJECTED_RULE},
      /* Mistral's text through OpenRouter */
      {&cs_probe_mistral, 400,
       "{\"error\":{\"message\":\"Provider returned "
       "error\",\"code\":400,\"metadata\":{\"raw\":\"{\\\"object\\\":\\\"error"
       "\\\",\\\"message\\\":\\\"Tool call id was call_5019f900a247472bacde0b82 but must be a-z, A-Z, 0-9, with a "
       "length of 9.\\\",\\\"type\\\":\\\"invalid_function_call\\\",\\\"code\\\":\\\"3280\\\"}\",\"provider_name\":"
       "\"Mistral\"}}}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_gemini, 400,
       "{\"error\":{\"code\":400,\"message\":\"Please ensure that the number of function response parts is equal to "
       "the "
       "number of function call parts of the function call turn.\",\"status\":\"INVALID_ARGUMENT\"}}",
       CS_PROBE_REJECTED_PAIRING},
      {&cs_probe_gemini, 400,
       "{\"error\":{\"code\":400,\"message\":\"Please ensure that function response turn comes immediately after a "
       "function call turn.\",\"status\":\"INVALID_ARGUMENT\"}}",
       CS_PROBE_REJECTED_PAIRING},
      {&cs_probe_gemini, 400,
       "{\"error\":{\"code\":400,\"message\":\"Invalid JSON payload received. Unknown name \\\"id\\\" at 'contents[1]."
       "parts[0].function_call': Cannot find field.\",\"status\":\"INVALID_ARGUMENT\",\"details\":[]}}",
       CS_PROBE_REJECTED_OTHER},
      {&cs_probe_gemini, 400,
       "{\"error\":{\"code\":400,\"message\":\"Function call is missing a thought_signature in functionCall parts.\","
       "\"status\":\"INVALID_ARGUMENT\"}}",
       CS_PROBE_REJECTED_OTHER},
      {&cs_probe_bedrock, 400,
       "{\"message\":\"Value at 'messages.2.member.content.1.member.toolUse.toolUseId' failed to satisfy constraint: "
       "Member must have length less than or equal to 64\"}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_bedrock, 400,
       "{\"message\":\"The toolUse blocks at messages.2.content contain duplicate Ids: http_request\"}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_bedrock, 400,
       "{\"message\":\"The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of "
       "previous turn.\"}",
       CS_PROBE_REJECTED_PAIRING},
      {&cs_probe_bedrock, 400,
       "{\"message\":\"Expected toolResult blocks at messages.2.content for the following Ids: tooluse_bRX9\"}",
       CS_PROBE_REJECTED_PAIRING},
      {&cs_probe_bedrock, 400,
       "{\"message\":\"The toolConfig field must be defined when using toolUse and toolResult content blocks.\"}",
       CS_PROBE_REJECTED_OTHER},
      {&cs_probe_bedrock, 403, "{\"message\":\"The security token included in the request is invalid.\"}",
       CS_PROBE_TRANSPORT} /* a wrong key: no verdict on IDs */,
  };
  check_classify(c, sizeof c / sizeof *c);
}

/* ---- shared pieces ---- */

Test(probe_shared, match_is_case_insensitive_with_wildcards) {
  cr_assert(cs_probe_match(cs_str_c("x Messages.12.content.3: `TOOL_USE` ids must be unique"),
                           "messages.#.content.#: *tool_use* ids must be unique"));
  cr_assert(!cs_probe_match(cs_str_c("messages.x.content"), "messages.#.content"));
  cr_assert(cs_probe_match(cs_str_c("abc"), ""));
  cr_assert(!cs_probe_match(cs_str_c(""), "a"));
  cr_assert(cs_probe_match(cs_str_c("aab"), "a*b"));
  cr_assert(!cs_probe_match(cs_str_c("ba"), "a*b"));
  /* a huge echoed ID stays fast and matches */
  static char big[200001];
  memset(big, 'a', sizeof big - 1);
  memcpy(big + sizeof big - 20, "but must be", 11);
  cr_assert(cs_probe_match(cs_str_c(big), "tool call id was * but must be") == false);
  cr_assert(cs_probe_match(cs_str_c(big), "a*but must be"));
}

Test(probe_shared, error_text_unwraps_layers) {
  cs_buf m = {0}, code = {0};
  cs_probe_error_text(cs_str_c("{\"error\":{\"code\":400,\"message\":\"{\\\"message\\\":\\\"The model returned the "
                               "following errors: inner\\\\ntext\\\"}\",\"status\":\"INVALID_ARGUMENT\"}}"),
                      &m, &code);
  cr_assert_str_eq(m.data, "inner text");
  cs_probe_error_text(cs_str_c("not json at all"), &m, &code);
  cr_assert_str_eq(m.data, "not json at all");
  cs_probe_error_text(cs_str_c("{\"code\":\"Client specified an invalid argument\",\"error\":\"Invalid request\"}"), &m,
                      &code);
  cr_assert_str_eq(m.data, "Invalid request");
  cs_probe_error_text(cs_str_c("{\"error\":{\"message\":\"m\",\"type\":\"t\",\"code\":\"c\"}}"), &m, &code);
  cr_assert_str_eq(code.data, "c t");
  cs_buf_free(&m);
  cs_buf_free(&code);
}

static cs_probe_verdict offline(cs_target_id t, const cs_probe_spec *s, const cs_probe_pair *p, uint32_t n) {
  cs_err err;
  cs_ruleset *rs = cs_ruleset_new(&err);
  cs_probe_request req = {"m", 0, p, n};
  char why[200];
  cs_probe_verdict v = cs_probe_offline(rs, t, s->pairing, &req, why, sizeof why);
  cs_ruleset_free(rs);
  return v;
}

Test(probe_shared, offline_verdict) {
  cs_str a = cs_str_c("toolu_a"), b = cs_str_c("toolu_b"), bad = cs_str_c("a|b");
  cs_probe_pair ok[] = {{.call_id = a, .result_id = a}};
  cr_assert_eq(offline(CS_PROV_ANTHROPIC, &cs_probe_anthropic, ok, 1), CS_PROBE_ACCEPTED);
  cs_probe_pair rule[] = {{.call_id = bad, .result_id = bad}};
  cr_assert_eq(offline(CS_PROV_ANTHROPIC, &cs_probe_anthropic, rule, 1), CS_PROBE_REJECTED_RULE);
  cs_probe_pair dup[] = {{.call_id = a, .result_id = a}, {.call_id = a, .result_id = a, .message = 1}};
  cr_assert_eq(offline(CS_PROV_ANTHROPIC, &cs_probe_anthropic, dup, 2), CS_PROBE_REJECTED_RULE);
  cs_probe_pair mismatch[] = {{.call_id = a, .result_id = b}};
  cr_assert_eq(offline(CS_PROV_ANTHROPIC, &cs_probe_anthropic, mismatch, 1), CS_PROBE_REJECTED_PAIRING);
  cs_probe_pair missing[] = {{.call_id = a, .result_id = a}, {.call_id = b, .unanswered = true}};
  cr_assert_eq(offline(CS_PROV_ANTHROPIC, &cs_probe_anthropic, missing, 2), CS_PROBE_REJECTED_PAIRING);
  cs_probe_pair orphan[] = {{.call_id = a, .result_id = a}, {.result_id = b, .orphan = true}};
  cr_assert_eq(offline(CS_PROV_ANTHROPIC, &cs_probe_anthropic, orphan, 2), CS_PROBE_REJECTED_PAIRING);
  /* Mistral and Gemini count: a mismatch with equal counts passes, a missing result does not */
  cs_str m1 = cs_str_c("abcDEF123"), m2 = cs_str_c("abcDEF124");
  cs_probe_pair mm[] = {{.call_id = m1, .result_id = m2}};
  cr_assert_eq(offline(CS_PROV_MISTRAL, &cs_probe_mistral, mm, 1), CS_PROBE_ACCEPTED);
  cs_probe_pair mmiss[] = {{.call_id = m1, .result_id = m1}, {.call_id = m2, .unanswered = true}};
  cr_assert_eq(offline(CS_PROV_MISTRAL, &cs_probe_mistral, mmiss, 2), CS_PROBE_REJECTED_PAIRING);
  /* Kimi: the index after ':' is the call's global index */
  cs_str k0 = cs_str_c("functions.get_x:0"), k5 = cs_str_c("functions.get_x:5");
  cs_probe_pair kok[] = {{.call_id = k0, .result_id = k0}};
  cr_assert_eq(offline(CS_PROV_KIMI, &cs_probe_kimi, kok, 1), CS_PROBE_ACCEPTED);
  cs_probe_pair kbad[] = {{.call_id = k5, .result_id = k5}};
  cr_assert_eq(offline(CS_PROV_KIMI, &cs_probe_kimi, kbad, 1), CS_PROBE_REJECTED_RULE);
  /* a server call left out before the second call kept its place in the global index */
  cs_str k2 = cs_str_c("functions.get_x:2");
  cs_probe_pair kgap[] = {{.call_id = k0, .result_id = k0},
                          {.call_id = k2, .result_id = k2, .message = 1, .skipped = 1}};
  cr_assert_eq(offline(CS_PROV_KIMI, &cs_probe_kimi, kgap, 2), CS_PROBE_ACCEPTED);
  kgap[1].skipped = 0;
  cr_assert_eq(offline(CS_PROV_KIMI, &cs_probe_kimi, kgap, 2), CS_PROBE_REJECTED_RULE);
}

/* An ID the rule cannot decide on (PCRE2 gave up) gives no offline verdict to compare with the
 * provider's, unless another ID surely breaks the rule. */
Test(probe_shared, offline_verdict_undecided) {
  cs_err err = {{0}};
  cs_ruleset *rs = cs_ruleset_new(&err);
  cr_assert_eq(cs_ruleset_override(rs, "anthropic.pattern=^([\\w-]|[\\w-])*_[\\w-]*$", &err), 0, "%s", err.msg);
  cs_str slow = cs_str_c("toolu_pQKuH6wGZeJ3R2NkM7iK7TPL"), bad = cs_str_c("a|b");
  cs_probe_pair single[] = {{.call_id = slow, .result_id = slow}};
  cs_probe_request req = {"m", 0, single, 1};
  char why[300];
  cr_assert_eq(cs_probe_offline(rs, CS_PROV_ANTHROPIC, CS_PROBE_PAIR_BY_ID, &req, why, sizeof why), CS_PROBE_UNDECIDED);
  cr_assert(strstr(why, "rule anthropic.pattern: PCRE2 match limit exceeded on ID") == why, "%s", why);
  cr_assert_str_eq(cs_probe_verdict_name(CS_PROBE_UNDECIDED), "undecided");
  cs_probe_pair two[] = {{.call_id = slow, .result_id = slow}, {.call_id = bad, .result_id = bad, .message = 1}};
  req.pairs = two;
  req.npairs = 2;
  cr_assert_eq(cs_probe_offline(rs, CS_PROV_ANTHROPIC, CS_PROBE_PAIR_BY_ID, &req, why, sizeof why),
               CS_PROBE_REJECTED_RULE, "%s", why);
  cs_ruleset_free(rs);
}

Test(probe_shared, make_id_and_url) {
  cs_arena a = {0};
  cs_str id = cs_probe_make_id(&cs_probe_anthropic, 24, 0, 1, &a);
  cr_assert_eq(id.len, 24);
  cr_assert(cs_str_starts(id, "toolu_01"));
  cr_assert(!cs_str_eq(id, cs_probe_make_id(&cs_probe_anthropic, 24, 1, 1, &a)), "indexes give distinct IDs");
  cs_str k = cs_probe_make_id(&cs_probe_kimi, 24, 3, 1, &a);
  cr_assert_eq(k.len, 24);
  cr_assert(cs_str_starts(k, "functions.get_x") && !memcmp(k.ptr + 22, ":3", 2), "%s", k.ptr);
  cr_assert_eq(cs_probe_make_id(&cs_probe_kimi, 3, 0, 1, &a).len, 3);
  cs_str native = cs_probe_make_id(&cs_probe_kimi, 17, 0, 1, &a);
  cr_assert(cs_str_eq(native, cs_str_c("functions.get_x:0")), "no room for filler: the native ID itself, %s",
            native.ptr);
  cr_assert_eq(cs_probe_make_id(&cs_probe_mistral, 4096, 0, 1, &a).len, 4096);
  cs_buf u = {0};
  cs_probe_url(&cs_probe_bedrock, cs_probe_bedrock.base_url, "eu-west-3", 0, "a.b-c:0", &u);
  cr_assert_str_eq(u.data, "https://bedrock-runtime.eu-west-3.amazonaws.com/model/a.b-c%3A0/converse");
  cs_probe_url(&cs_probe_gemini, "http://127.0.0.1:9/gemini/", NULL, 0, "gemini-3", &u);
  cr_assert_str_eq(u.data, "http://127.0.0.1:9/gemini/v1beta/models/gemini-3:generateContent");
  cs_probe_url(&cs_probe_anthropic, "http://h", NULL, 1, "m", &u);
  cr_assert_str_eq(u.data, "http://h/v1/messages");
  cs_buf_free(&u);
  cs_arena_free(&a);
}

Test(probe_shared, every_target_has_a_probe) {
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    const cs_probe_spec *s = cs_target_get((cs_target_id)t)->probe;
    cr_assert(s && s->build && s->classify && s->key_env[0] && s->model && s->nendpoints, "%s",
              cs_target_get((cs_target_id)t)->name);
  }
}

/* ---- the HTTP client's offline modes ---- */

Test(probe_http, dry_run_prints_without_secrets_and_keeps_the_budget) {
  char path[] = "/tmp/cs_probe_dryXXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  FILE *out = fdopen(fd, "w+");
  cs_err err;
  cs_http_config cfg = {.dry_run = true, .dry_out = out, .max_requests = 2};
  cs_http *h = cs_http_new(&cfg, &err);
  cr_assert(h);
  cs_http_header hd[] = {{"content-type", "application/json", false}, {"authorization", "Bearer sk-canary-9", true}};
  cs_http_request req = {"http://127.0.0.1:1/v1/x", hd, 2, cs_str_c("{\"echo\":\"sk-canary-9\"}"), NULL, NULL};
  cs_http_response r;
  cr_assert_eq(cs_http_send(h, &req, &r), CS_HTTP_DRY_RUN);
  cs_http_response_free(&r);
  cr_assert_eq(cs_http_send(h, &req, &r), CS_HTTP_DRY_RUN);
  cs_http_response_free(&r);
  cr_assert_eq(cs_http_send(h, &req, &r), CS_HTTP_BUDGET);
  cs_http_response_free(&r);
  cr_assert_eq(cs_http_sent(h), 0);
  fflush(out);
  rewind(out);
  char text[4096] = "";
  size_t n = fread(text, 1, sizeof text - 1, out);
  text[n] = 0;
  cr_assert(strstr(text, "POST http://127.0.0.1:1/v1/x") != NULL);
  cr_assert(strstr(text, "authorization: [redacted]") != NULL);
  cr_assert(strstr(text, "sk-canary-9") == NULL, "%s", text);
  fclose(out);
  unlink(path);
  cs_http_free(h);
}

/* The pause between requests is 1 / rate: a context refuses a rate whose pause would be endless
 * (or not a number), and takes the bounds and 0 (the default). */
Test(probe_http, rate_out_of_range_is_refused) {
  const double bad[] = {1e-300, 1e-9, 0.0099, 1000.5, -1, NAN, INFINITY};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    cs_err err = {{0}};
    cs_http_config cfg = {.dry_run = true, .rate = bad[i]};
    cs_http *h = cs_http_new(&cfg, &err);
    cr_assert_null(h, "rate %g was taken", bad[i]);
    cr_assert(strstr(err.msg, "is not 0.01 to 1000 requests per second") != NULL, "%s", err.msg);
  }
  const double good[] = {0, 0.01, 2, 1000};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    cs_err err = {{0}};
    cs_http_config cfg = {.dry_run = true, .rate = good[i]};
    cs_http *h = cs_http_new(&cfg, &err);
    cr_assert_not_null(h, "rate %g: %s", good[i], err.msg);
    cs_http_free(h);
  }
}

Test(probe_http, replay_without_an_entry_is_not_recorded) {
  char dir[] = "/tmp/cs_probe_replayXXXXXX";
  cr_assert(mkdtemp(dir));
  cs_err err;
  cs_http_config cfg = {.replay_dir = dir};
  cs_http *h = cs_http_new(&cfg, &err);
  cs_http_request req = {"http://x/v1/y", NULL, 0, cs_str_c("{}"), NULL, NULL};
  cs_http_response r;
  cr_assert_eq(cs_http_send(h, &req, &r), CS_HTTP_NOT_RECORDED);
  cr_assert(strstr(r.body.data, "no recorded answer") != NULL);
  cr_assert(strstr(r.body.data, "an implementation whose IDs change from run to run") != NULL, "%s", r.body.data);
  cs_http_response_free(&r);
  cs_http_free(h);
  rmdir(dir);
}

/* Sends `req` in a new session (the old one freed): the first occurrence of the request. */
static cs_http_outcome send_fresh(cs_http **h, const cs_http_config *cfg, const cs_http_request *req,
                                  cs_http_response *r) {
  cs_err err;
  cs_http_free(*h);
  *h = cs_http_new(cfg, &err);
  cr_assert_not_null(*h, "%s", err.msg);
  return cs_http_send(*h, req, r);
}

/* A cassette entry's status must be an HTTP status: one out of range makes the entry broken (an
 * input error, not a transport failure of the provider), not a number cast into a long. Each send
 * is a fresh session: a request sent again in one session reads an entry of its own. */
Test(probe_http, replay_reads_an_entry_and_refuses_a_status_out_of_range) {
  char dir[] = "/tmp/cs_probe_replayXXXXXX", path[128];
  cr_assert(mkdtemp(dir));
  cs_hasher *hs = cs_hasher_new();
  uint8_t d[32];
  char hex[65];
  const char msg[] = "POST\n/v1/y\n{}"; /* what names the entry: method, URL path, body */
  cs_sha256(hs, msg, sizeof msg - 1, d);
  cs_hex(d, 16, hex);
  cs_hasher_free(hs);
  snprintf(path, sizeof path, "%s/%s.json", dir, hex);
  cs_err err;
  cs_http_config cfg = {.replay_dir = dir};
  cs_http *h = cs_http_new(&cfg, &err);
  cs_http_request req = {"http://x/v1/y", NULL, 0, cs_str_c("{}"), NULL, NULL};
  const struct {
    const char *status;
    long want; /* -1: not a cassette entry */
  } rows[] = {{"400", 400},    {"200", 200},  {"1e999", -1},
              {"-1", -1},      {"200.5", -1}, {"1000", -1},
              {"\"200\"", -1}, {"999", 999},  {"0", -1 /* 0 is a failed exchange: error */}};
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "{\"response\": {\"status\": %s, \"body\": \"recorded\"}}\n", rows[i].status);
    fclose(f);
    cs_http_response r;
    cs_http_outcome got = send_fresh(&h, &cfg, &req, &r);
    if (rows[i].want < 0) {
      cr_assert_eq(got, CS_HTTP_BAD_CASSETTE, "status %s was taken", rows[i].status);
      cr_assert(strstr(r.body.data, "not a cassette entry") != NULL, "%s", r.body.data);
      cr_assert(strstr(r.body.data, path) != NULL, "the message names the entry: %s", r.body.data);
    } else {
      cr_assert_eq(got, CS_HTTP_ANSWERED, "status %s: %s", rows[i].status, r.body.data);
      cr_assert_eq(r.status, rows[i].want);
      cr_assert_str_eq(r.body.data, "recorded");
    }
    cs_http_response_free(&r);
  }
  /* A failed exchange replays as one, with what failed; its attempts are spent from the budget. */
  FILE *ff = fopen(path, "w");
  cr_assert_not_null(ff);
  fputs("{\"response\": {\"status\": 0, \"error\": \"Connection refused\"}, \"attempts\": 3}\n", ff);
  fclose(ff);
  cs_http_response fr;
  cr_assert_eq(send_fresh(&h, &cfg, &req, &fr), CS_HTTP_FAILED);
  cr_assert_str_eq(fr.body.data, "Connection refused");
  cr_assert_eq(cs_http_sent(h), 3, "attempts spent: %u", cs_http_sent(h));
  cs_http_response_free(&fr);
  /* An answer too large to read replays as one: its status, what failed, and no verdict. */
  ff = fopen(path, "w");
  cr_assert_not_null(ff);
  fputs("{\"response\": {\"status\": 400, \"error\": \"HTTP 400 with an answer larger than 4 MiB: not read\"}}\n", ff);
  fclose(ff);
  cr_assert_eq(send_fresh(&h, &cfg, &req, &fr), CS_HTTP_TOO_LARGE);
  cr_assert_eq(fr.status, 400);
  cr_assert_str_eq(fr.body.data, "HTTP 400 with an answer larger than 4 MiB: not read");
  cs_http_response_free(&fr);
  /* Text that is no JSON object, or not strict JSON, or no file at all: broken, named, with why. */
  const struct {
    const char *text, *why;
  } broken[] = {{"garbage", "1:1: "},
                {"{\"response\": {\"status\": 0200, \"body\": \"\"}}", "number with a leading zero"},
                {"{\"response\": {\"status\": 200, \"body\": \"\"}} x", "unexpected data after the cassette entry"}};
  for (size_t i = 0; i < sizeof broken / sizeof *broken; i++) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(broken[i].text, f);
    fclose(f);
    cs_http_response r;
    cr_assert_eq(send_fresh(&h, &cfg, &req, &r), CS_HTTP_BAD_CASSETTE, "%s was taken", broken[i].text);
    cr_assert(strstr(r.body.data, path) && strstr(r.body.data, broken[i].why), "%s", r.body.data);
    cs_http_response_free(&r);
  }
  unlink(path);
  cr_assert_eq(mkdir(path, 0700), 0);
  cs_http_response r;
  cr_assert_eq(send_fresh(&h, &cfg, &req, &r), CS_HTTP_BAD_CASSETTE, "a directory in the entry's place");
  cr_assert(strstr(r.body.data, "not a regular file") != NULL, "%s", r.body.data);
  cs_http_response_free(&r);
  rmdir(path);
  cs_http_free(h);
  rmdir(dir);
}

Test(probe_http, redact_replaces_every_secret) {
  cs_err err;
  cs_http_config cfg = {.dry_run = true};
  cs_http *h = cs_http_new(&cfg, &err);
  cs_http_add_secret(h, "sk-0123456789");
  cs_http_add_secret(h, "");
  cs_buf b = {0};
  cs_buf_puts(&b, "sk-0123456789 a sk-0123456789sk-0123456789");
  cs_http_redact(h, &b);
  cr_assert_str_eq(b.data, "[redacted] a [redacted][redacted]");
  cs_buf_free(&b);
  cs_http_free(h);
}

/* Every provider key in the environment is a secret, each in up to three forms: none is dropped for
 * want of room. */
Test(probe_http, redact_keeps_every_secret_however_many) {
  cs_err err;
  cs_http_config cfg = {.dry_run = true};
  cs_http *h = cs_http_new(&cfg, &err);
  char key[40];
  for (int i = 0; i < 40; i++) {
    snprintf(key, sizeof key, "sk-many/key-%02d", i); /* a '/' gives it a second JSON form */
    cs_http_add_secret(h, key);
  }
  cs_buf b = {0};
  cs_buf_puts(&b, "first sk-many/key-00, last sk-many/key-39, escaped sk-many\\/key-39");
  cs_http_redact(h, &b);
  cr_assert_str_eq(b.data, "first [redacted], last [redacted], escaped [redacted]");
  cs_buf_free(&b);
  cs_http_free(h);
}

/* A key shorter than 8 bytes is a placeholder: not redacted, so reports and cassettes stay intact
 * ("1" would otherwise turn every 1 into [redacted]). */
Test(probe_http, short_keys_are_placeholders) {
  cs_err err;
  cs_http_config cfg = {.dry_run = true};
  cs_http *h = cs_http_new(&cfg, &err);
  cs_http_add_secret(h, "1");
  cs_http_add_secret(h, "x");
  cs_buf b = {0};
  cs_buf_puts(&b, "{\"schema\":\"callsign-probe/1\",\"attempts\":1,\"x\":true}");
  cs_http_redact(h, &b);
  cr_assert_str_eq(b.data, "{\"schema\":\"callsign-probe/1\",\"attempts\":1,\"x\":true}");
  cs_buf_free(&b);
  cs_http_free(h);
}

/* A key as a JSON string holds it ('"' and '\' escaped) is a secret too: a report or a cassette
 * writes it so. */
Test(probe_http, redact_the_json_escaped_form_too) {
  cs_err err;
  cs_http_config cfg = {.dry_run = true};
  cs_http *h = cs_http_new(&cfg, &err);
  cs_http_add_secret(h, "sk-canary-\"q\\/x");
  cs_buf b = {0};
  cs_buf_puts(&b, "{\"echo\":\"sk-canary-\\\"q\\\\/x\"} sk-canary-\"q\\/x");
  cs_http_redact(h, &b);
  cr_assert_str_eq(b.data, "{\"echo\":\"[redacted]\"} [redacted]");
  cs_buf_free(&b);
  /* '/' written as '\/', as Python's and PHP's encoders may */
  cs_http_add_secret(h, "sk-slash/DO-NOT-LEAK");
  cs_buf_puts(&b, "{\"echo\":\"sk-slash\\/DO-NOT-LEAK\"}");
  cs_http_redact(h, &b);
  cr_assert_str_eq(b.data, "{\"echo\":\"[redacted]\"}");
  cs_buf_free(&b);
  cs_http_free(h);
}

/* A provider may echo the key JSON-escaped in a body that is no JSON (cut short, or plain text),
 * where no parser decodes it: each escaped form is found in any text, at any depth of escaping (a
 * JSON report quoting the message escapes its backslashes again). */
Test(probe_http, redact_escaped_forms_in_any_text) {
  cs_err err;
  cs_http_config cfg = {.dry_run = true};
  cs_http *h = cs_http_new(&cfg, &err);
  cs_http_add_secret(h, "FAKE_KEY_0001");
  cs_http_add_secret(h, "sk-a/b\"c-0002");
  cs_http_add_secret(h, "sk-\xc3\xa9\xf0\x9f\x98\x80-0003");
  const struct {
    const char *in, *want;
  } rows[] = {
      {"{\"message\":\"\\u0046AKE_KEY_0001 tool_use.id", "{\"message\":\"[redacted] tool_use.id"},
      {"\\u0046\\u0041\\u004b\\u0045\\u005f\\u004b\\u0045\\u0059\\u005f\\u0030\\u0030\\u0030\\u0031 x", "[redacted] x"},
      {"\\u0046AKE\\u005FKEY\\u005F0001", "[redacted]"},
      {"\"message\": \"\\\\u0046AKE_KEY_0001\"", "\"message\": \"[redacted]\""}, /* in a JSON report */
      {"sk\\u002da\\/b\\\"c-0002", "[redacted]"},
      {"sk-\\u00e9\\ud83d\\ude00-0003 and sk-\\u00E9\\uD83D\\uDE00-0003", "[redacted] and [redacted]"},
      /* no whole key, or escapes of other characters: left as they are */
      {"\\u0046AKE_KEY_000 \\u0046AKE_KEY_0002", "\\u0046AKE_KEY_000 \\u0046AKE_KEY_0002"},
      {"sk-\\ud83d-0003 \\\\\\\\\\\\", "sk-\\ud83d-0003 \\\\\\\\\\\\"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    cs_buf b = {0};
    cs_buf_puts(&b, rows[i].in);
    cs_http_redact(h, &b);
    cr_expect_str_eq(b.data, rows[i].want, "row %zu: %s", i, b.data);
    cs_buf_free(&b);
  }
  cs_http_free(h);
}

/* Answers that show the request never reached validation (a wrong key, model or base URL) are no
 * verdict on the IDs: transport, flagged as set-up, whatever the text says. So is a success whose
 * body is not the JSON an API answers. */
Test(probe_classify, set_up_errors_are_no_verdict) {
  const struct {
    long status;
    const char *body;
    bool setup;
    cs_probe_verdict want;
  } c[] = {
      {401, "{\"error\":{\"message\":\"Incorrect API key provided.\"}}", true, CS_PROBE_TRANSPORT},
      {403, "{\"error\":{\"message\":\"tool_calls id must be unique\"}}", true, CS_PROBE_TRANSPORT},
      {404, "Not Found", true, CS_PROBE_TRANSPORT},
      {405, "", true, CS_PROBE_TRANSPORT},
      {301, "", true, CS_PROBE_TRANSPORT},
      {501, "Unsupported method ('POST')", true, CS_PROBE_TRANSPORT},
      {200, "<html><body>welcome</body></html>", true, CS_PROBE_TRANSPORT},
      {200, "", true, CS_PROBE_TRANSPORT},
      {200, "[1]", true, CS_PROBE_TRANSPORT},
      {200, "{\"id\":\"chatcmpl-1\"}", false, CS_PROBE_ACCEPTED},
      {200, "{\"id\":\"chatcmpl-1\",\"text\":\"a\\u0000b\"}\r\n", false, CS_PROBE_ACCEPTED},
      {200, "{} <html>", true, CS_PROBE_TRANSPORT},
      {503, "busy", false, CS_PROBE_TRANSPORT},
      {400, "{\"error\":{\"message\":\"something else\"}}", false, CS_PROBE_REJECTED_OTHER},
      /* the key, the account or the model, sent with statuses that otherwise carry verdicts */
      {400, "{\"error\":{\"code\":400,\"message\":\"API key not valid. Please pass a valid API key.\"}}", true,
       CS_PROBE_TRANSPORT},
      {400, "{\"error\":{\"message\":\"Your credit balance is too low to access the Anthropic API.\"}}", true,
       CS_PROBE_TRANSPORT},
      {400, "{\"message\":\"Invalid model: mistral-nope\"}", true, CS_PROBE_TRANSPORT},
      {429, "{\"error\":{\"message\":\"You exceeded your quota\",\"code\":\"insufficient_quota\"}}", true,
       CS_PROBE_TRANSPORT},
      {402, "{\"error\":{\"message\":\"Insufficient credits\",\"code\":402}}", true, CS_PROBE_TRANSPORT},
      {415, "", true, CS_PROBE_TRANSPORT},
      /* passing states: no verdict, and no reason to stop */
      {409, "", false, CS_PROBE_TRANSPORT},
      {425, "", false, CS_PROBE_TRANSPORT},
  };
  for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
    cs_probe_outcome out;
    cs_probe_openai_chat.classify(c[i].status, cs_str_c(c[i].body), &out);
    cr_expect_eq(out.verdict, c[i].want, "case %zu (HTTP %ld): %s", i, c[i].status, cs_probe_verdict_name(out.verdict));
    cr_expect_eq(out.setup, c[i].setup, "case %zu (HTTP %ld): setup %d", i, c[i].status, out.setup);
  }
}

/* A success status with an error envelope for a body is the rejection the envelope describes, read
 * as any rejection text is; a success that merely carries "error": null is a success. */
Test(probe_classify, error_envelope_with_a_success_status_is_a_rejection) {
  const classify_case c[] = {
      {&cs_probe_anthropic, 200,
       "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.1.content.0.tool_use."
       "id: String should match pattern '^[a-zA-Z0-9_-]+$'\"}}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_openai_chat, 200,
       "{\"error\":{\"message\":\"Invalid 'messages[1].tool_calls[0].id': string too long.\",\"type\":\"invalid_"
       "request_error\",\"code\":\"string_above_max_length\"}}",
       CS_PROBE_REJECTED_RULE},
      {&cs_probe_openai_chat, 204, "{\"error\":\"This organization has been disabled.\"}", CS_PROBE_REJECTED_OTHER},
      {&cs_probe_gemini, 200, "{\"error\":{\"code\":400,\"message\":\"API key not valid.\"}}", CS_PROBE_TRANSPORT},
      {&cs_probe_openai_responses, 200, "{\"id\":\"resp_1\",\"status\":\"incomplete\",\"error\":null}",
       CS_PROBE_ACCEPTED},
      {&cs_probe_anthropic, 200, "{\"type\":\"message\",\"content\":[]}", CS_PROBE_ACCEPTED},
  };
  check_classify(c, sizeof c / sizeof *c);
  cs_probe_outcome out;
  cs_probe_openai_chat.classify(200, cs_str_c("{\"error\":\"This organization has been disabled.\"}"), &out);
  cr_assert_str_eq(out.message, "This organization has been disabled.");
}

/* A provider message cut at the message buffer in the middle of a character, or holding bytes that
 * are not UTF-8, is valid UTF-8 once classified: it goes into JSON reports. */
Test(probe_classify, messages_are_valid_utf8) {
  cs_buf body = {0};
  cs_buf_puts(&body, "{\"error\":{\"message\":\"");
  for (int i = 0; i < 5000; i++)
    cs_buf_puts(&body, "\xC3\xA9");
  cs_buf_puts(&body, "\"}}");
  cs_probe_outcome out;
  cs_probe_openai_chat.classify(400, cs_buf_view(&body), &out);
  cr_assert(cs_utf8_valid(out.message, strlen(out.message), NULL), "cut inside a character");
  cs_buf_free(&body);
  cs_probe_openai_chat.classify(0, cs_str_c("transport \xFF\xFE failed"), &out);
  cr_assert_str_eq(out.message, "transport ?? failed");
}

/* The key variables: every probe spec's, and the AWS credentials; each listed, no other name. */
Test(probe_keys, every_key_variable_is_listed_and_no_other) {
  const char *want[] = {"ANTHROPIC_API_KEY", "OPENAI_API_KEY",        "MISTRAL_API_KEY",  "GEMINI_API_KEY",
                        "GOOGLE_API_KEY",    "MOONSHOT_API_KEY",      "KIMI_API_KEY",     "AWS_BEARER_TOKEN_BEDROCK",
                        "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++)
    cr_expect(cs_probe_is_key_env(want[i], strlen(want[i])), "%s", want[i]);
  const char *others[] = {"PATH", "OPENAI_API_KEYS", "OPENAI_API_KE", "AWS_REGION", "HOME", ""};
  for (size_t i = 0; i < sizeof others / sizeof *others; i++)
    cr_expect(!cs_probe_is_key_env(others[i], strlen(others[i])), "%s", others[i]);
  /* A name given with its "=value" counts only its length. */
  cr_expect(cs_probe_is_key_env("OPENAI_API_KEY=sk", 14));
  size_t n = 0;
  while (cs_probe_key_env_at(n))
    n++;
  cr_expect_geq(n, sizeof want / sizeof *want);
}

/* A success status whose body is no JSON object accepted nothing (a page, a captive portal): the
 * message names the status it came with, not a range. */
Test(probe_classify, a_success_status_without_json_names_its_status) {
  cs_probe_outcome out;
  cs_probe_openai_chat.classify(204, cs_str_c(""), &out);
  cr_assert_eq(out.verdict, CS_PROBE_TRANSPORT);
  cr_assert(out.setup);
  cr_assert_str_eq(out.message, "HTTP 204 with an empty body");
  cs_probe_anthropic.classify(200, cs_str_c("<html>sign in</html>"), &out);
  cr_assert_eq(out.verdict, CS_PROBE_TRANSPORT);
  cr_assert_str_eq(out.message, "HTTP 200 with a body that is not a JSON object");
  cs_probe_anthropic.classify(200, cs_str_c("{\"type\":\"message\"}"), &out);
  cr_assert_eq(out.verdict, CS_PROBE_ACCEPTED);
  cr_assert_str_eq(out.message, "");
}
