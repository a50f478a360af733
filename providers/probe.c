/* providers/probe.c: what the providers' probe builders and classifiers share: verdict names,
 * the history written from a provider's shape, the OpenAI-compatible chat body, unwrapping gateway
 * error envelopes, matching stable error fragments, the offline verdict of callsign's rule on a
 * probe request, native-looking probe IDs and request URLs. */
#include "providers/probe.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "core/history_json.h"
#include "core/utf8.h"

const char *cs_probe_verdict_name(cs_probe_verdict v) {
  static const char *const names[CS_PROBE_VERDICT_COUNT] = {"accepted",       "rejected-rule", "rejected-pairing",
                                                            "rejected-other", "transport",     "undecided"};
  return (unsigned)v < CS_PROBE_VERDICT_COUNT ? names[v] : "?";
}

const char *cs_probe_key_env_at(size_t i) {
  static const char *const aws[] = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"};
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    const cs_probe_spec *spec = cs_target_get((cs_target_id)t)->probe;
    for (int k = 0; spec && k < 3 && spec->key_env[k]; k++)
      if (i-- == 0)
        return spec->key_env[k];
  }
  return i < sizeof aws / sizeof *aws ? aws[i] : NULL;
}

bool cs_probe_is_key_env(const char *name, size_t len) {
  const char *k;
  for (size_t i = 0; (k = cs_probe_key_env_at(i)); i++)
    if (strlen(k) == len && !memcmp(k, name, len))
      return true;
  return false;
}

uint32_t cs_probe_nmessages(const cs_probe_request *r) {
  uint32_t n = 1;
  for (uint32_t i = 0; i < r->npairs; i++)
    if (r->pairs[i].message + 1 > n)
      n = r->pairs[i].message + 1;
  return n;
}

/* ---- the history, from each provider's shape ---- */

static void put_fragment(cs_buf *b, const char *fragment) {
  if (fragment)
    cs_buf_puts(b, fragment);
}

/* One side of message m: the calls (`calls` true) or the results. */
static void write_side(const cs_probe_request *req, uint32_t m, bool calls, const cs_probe_shape *s, cs_buf *b) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < req->npairs; i++) {
    const cs_probe_pair *p = &req->pairs[i];
    if (p->message != m || (calls ? p->orphan : p->unanswered))
      continue;
    if (!s->open)
      cs_buf_putc(b, ',');
    else
      cs_buf_puts(b, n ? "," : s->open);
    n++;
    put_fragment(b, s->head);
    cs_str id = calls ? p->call_id : p->result_id;
    if (id.ptr) {
      put_fragment(b, s->id_key);
      cs_buf_json_str(b, id);
      put_fragment(b, s->id_after);
    }
    put_fragment(b, s->tail);
  }
  if (!n)
    put_fragment(b, s->empty);
  else if (s->open)
    put_fragment(b, s->close);
}

void cs_probe_write_turns(const cs_probe_request *req, const cs_probe_shape *calls, const cs_probe_shape *results,
                          cs_buf *b) {
  uint32_t nm = cs_probe_nmessages(req);
  for (uint32_t m = 0; m < nm; m++) {
    write_side(req, m, true, calls, b);
    write_side(req, m, false, results, b);
  }
}

/* ---- the OpenAI-compatible chat body ---- */

/* The calls go in one assistant message; each result is a tool message of its own. */
static const cs_probe_shape chat_calls = {
    .open = ",{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[",
    .close = "]}",
    .empty = ",{\"role\":\"assistant\",\"content\":\"ok\"}",
    .head = "{",
    .id_key = "\"id\":",
    .id_after = ",",
    .tail = "\"type\":\"function\",\"function\":{\"name\":\"" CS_PROBE_TOOL "\",\"arguments\":\"{}\"}}",
};
static const cs_probe_shape chat_results = {
    .empty = ",{\"role\":\"user\",\"content\":\"continue\"}",
    .head = "{\"role\":\"tool\",",
    .id_key = "\"tool_call_id\":",
    .id_after = ",",
    .tail = "\"content\":\"ok\"}",
};

void cs_probe_build_chat(const cs_probe_request *req, const char *budget_field, unsigned budget, cs_buf *b) {
  cs_buf_puts(b, "{\"model\":");
  cs_buf_json_str(b, cs_str_c(req->model));
  cs_buf_printf(b,
                ",\"%s\":%u,\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"" CS_PROBE_TOOL
                "\",\"parameters\":{\"type\":\"object\",\"properties\":{}}}}],"
                "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}",
                budget_field, budget);
  cs_probe_write_turns(req, &chat_calls, &chat_results, b);
  cs_buf_puts(b, "]}");
}

/* ---- error envelopes ---- */

static const char bedrock_prefix[] = "The model returned the following errors: ";

static void put_code(cs_buf *code, const cJSON *v) {
  if (!code || !v)
    return;
  if (cJSON_IsString(v) && v->valuestring[0]) {
    cs_buf_puts(code, code->len ? " " : "");
    cs_buf_puts(code, v->valuestring);
  } else if (cJSON_IsNumber(v)) {
    cs_buf_printf(code, "%s%d", code->len ? " " : "", v->valueint);
  }
}

static bool looks_like_json(const char *s) {
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
    s++;
  return *s == '{';
}

/* cJSON ends strings at a NUL byte, and providers echo IDs holding \u0000 in their messages: the
 * escape becomes U+FFFD so the rest of the message survives. Escaped backslashes are skipped. */
static void defuse_nul_escapes(cs_buf *t) {
  for (size_t i = 0; i + 1 < t->len; i++) {
    if (t->data[i] != '\\')
      continue;
    if (t->data[i + 1] == 'u' && i + 6 <= t->len && !memcmp(t->data + i + 2, "0000", 4))
      memcpy(t->data + i + 2, "fffd", 4);
    i++;
  }
}

void cs_probe_error_text(cs_str body, cs_buf *message, cs_buf *code) {
  cs_buf text = {0}; /* the layer being read */
  cs_buf_put(&text, body.ptr ? body.ptr : "", body.len);
  for (int depth = 0; depth < 6; depth++) {
    defuse_nul_escapes(&text);
    cJSON *j = cJSON_ParseWithLength(text.data, text.len);
    if (!j || !cJSON_IsObject(j)) {
      cJSON_Delete(j);
      break; /* plain text: it is the message */
    }
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(j, "error");
    const cJSON *msg = NULL;
    if (cJSON_IsObject(err)) {
      const cJSON *meta = cJSON_GetObjectItemCaseSensitive(err, "metadata");
      const cJSON *raw = cJSON_IsObject(meta) ? cJSON_GetObjectItemCaseSensitive(meta, "raw") : NULL;
      if (cJSON_IsString(raw) && raw->valuestring[0]) {
        /* OpenRouter: the upstream provider's body, as a string */
        cs_buf_clear(&text);
        cs_buf_puts(&text, raw->valuestring);
        cJSON_Delete(j);
        continue;
      }
      msg = cJSON_GetObjectItemCaseSensitive(err, "message");
      if (code)
        cs_buf_clear(code);
      put_code(code, cJSON_GetObjectItemCaseSensitive(err, "code"));
      put_code(code, cJSON_GetObjectItemCaseSensitive(err, "type"));
      put_code(code, cJSON_GetObjectItemCaseSensitive(err, "status"));
    } else {
      msg = cJSON_IsString(err) ? err : cJSON_GetObjectItemCaseSensitive(j, "message");
      if (!msg)
        msg = cJSON_GetObjectItemCaseSensitive(j, "Message"); /* some AWS services */
      if (code)
        cs_buf_clear(code);
      put_code(code, cJSON_GetObjectItemCaseSensitive(j, "code"));
      put_code(code, cJSON_GetObjectItemCaseSensitive(j, "type"));
    }
    if (!cJSON_IsString(msg)) {
      cJSON_Delete(j);
      break; /* JSON without a message: keep the whole text */
    }
    const char *m = msg->valuestring;
    if (strncmp(m, bedrock_prefix, sizeof bedrock_prefix - 1) == 0)
      m += sizeof bedrock_prefix - 1; /* Bedrock passing Anthropic's text through */
    cs_buf next = {0};
    cs_buf_puts(&next, m);
    cJSON_Delete(j);
    cs_buf_free(&text);
    text = next;
    if (!looks_like_json(text.data))
      break; /* Vertex puts Anthropic's whole JSON body into the message: read it too */
  }
  const char *t = text.data ? text.data : "";
  if (strncmp(t, bedrock_prefix, sizeof bedrock_prefix - 1) == 0)
    t += sizeof bedrock_prefix - 1;
  cs_buf_clear(message);
  for (; *t; t++) /* one line, no terminal control characters */
    cs_buf_putc(message, (unsigned char)*t < 0x20 || *t == 0x7f ? ' ' : *t);
  cs_buf_free(&text);
}

/* ---- fragment matching ---- */

static int fold(int c) {
  return c >= 'A' && c <= 'Z' ? c + 32 : c;
}
static bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

/* Glob with one backtrack point (the last '*'): linear in practice even on huge echoed IDs. The
 * leading and trailing '*' are implicit, so the pattern may occur anywhere. '#' eats all digits
 * greedily: patterns never put a digit right after it. */
bool cs_probe_match(cs_str text, const char *pattern) {
  const char *t = text.ptr ? text.ptr : "", *end = t + text.len;
  const char *p = pattern, *star_p = pattern, *star_t = t;
  for (;;) {
    if (!*p)
      return true;
    if (*p == '*') {
      star_p = ++p;
      star_t = t;
      continue;
    }
    if (t < end) {
      if (*p == '#' && is_digit(*t)) {
        while (t < end && is_digit(*t))
          t++;
        p++;
        continue;
      }
      if (*p != '#' && fold((unsigned char)*p) == fold((unsigned char)*t)) {
        p++;
        t++;
        continue;
      }
    }
    if (star_t >= end)
      return false;
    t = ++star_t;
    p = star_p;
  }
}

/* Answers that speak of the account, the key or the model, not of the request's IDs: every case
 * would get the same, so the probe stops (cs_probe_outcome.setup). Some providers send them with
 * 400 (Gemini's wrong key) or 429 (a spent quota), statuses that otherwise carry verdicts. */
static const char *const setup_texts[] = {
    "API key not valid",    "API_KEY_INVALID", "credit balance is too low", "insufficient_quota",
    "Insufficient credits", "Invalid model",   "model_not_found",           "does not exist or you do not have access",
};
/* Statuses that say the set-up is wrong, whatever the body: moved, no key, no access, no such
 * endpoint, no payment, a request format the server does not take. */
static bool setup_status(long status) {
  return (status >= 300 && status < 400) || status == 401 || status == 402 || status == 403 || status == 404 ||
         status == 405 || status == 406 || status == 407 || status == 411 || status == 415 || status == 426 ||
         status == 501 || status == 505;
}

/* An error envelope (Anthropic's {"type":"error","error":{...}}, OpenAI's and Gemini's {"error":{...}},
 * a gateway's {"error":"..."}): some servers send one with a success status. A success that merely
 * has the field ("error": null, as OpenAI's Responses objects do) is none. */
static bool error_envelope(const cJSON *root) {
  const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
  const cJSON *err = cJSON_GetObjectItemCaseSensitive(root, "error");
  return (cJSON_IsString(type) && !strcmp(type->valuestring, "error")) || cJSON_IsObject(err) ||
         (cJSON_IsString(err) && err->valuestring[0]);
}

void cs_probe_classify_with(const cs_probe_pattern *rows, size_t nrows, long status, cs_str body,
                            cs_probe_outcome *out) {
  cs_buf msg = {0}, code = {0};
  out->or_pairing = false;
  out->setup = false;
  if (status == 0) {
    out->verdict = CS_PROBE_TRANSPORT;
    snprintf(out->message, sizeof out->message, "%.*s", (int)(body.len < 500 ? body.len : 500),
             body.ptr ? body.ptr : "");
    cs_utf8_scrub(out->message, strlen(out->message));
    return;
  }
  if (status >= 200 && status < 300) {
    /* An API answers JSON: a page (a wrong --base-url, a captive portal) accepted nothing. */
    /* Any JSON object, \u0000 in a string included (the strict reader is for histories); "{} <html>"
     * is none. */
    const char *end = NULL;
    cJSON *root = body.ptr ? cJSON_ParseWithLengthOpts(body.ptr, body.len, &end, false) : NULL;
    bool api = cJSON_IsObject(root) && cs_json_space_after(body, end) == body.len;
    bool rejected = api && error_envelope(root);
    cJSON_Delete(root);
    if (!rejected) {
      out->verdict = api ? CS_PROBE_ACCEPTED : CS_PROBE_TRANSPORT;
      out->setup = !api;
      out->message[0] = 0;
      if (!api)
        snprintf(out->message, sizeof out->message, "HTTP %ld with %s", status,
                 body.len ? "a body that is not a JSON object" : "an empty body");
      return;
    } /* an error envelope is read as the rejection it describes, whatever the status says */
  }
  cs_probe_error_text(body, &msg, &code);
  bool setup_text = false;
  for (size_t i = 0; i < sizeof setup_texts / sizeof *setup_texts && !setup_text; i++)
    setup_text =
        cs_probe_match(cs_buf_view(&msg), setup_texts[i]) || cs_probe_match(cs_buf_view(&code), setup_texts[i]);
  if (setup_status(status) || setup_text) {
    out->verdict = CS_PROBE_TRANSPORT;
    out->setup = true;
    snprintf(out->message, sizeof out->message, "HTTP %ld%s%.500s", status, msg.data && *msg.data ? ": " : "",
             msg.data ? msg.data : "");
    goto cleanup;
  }
  if (status == 408 || status == 409 || status == 425 || status == 429 || status >= 500) { /* passing states */
    out->verdict = CS_PROBE_TRANSPORT;
    snprintf(out->message, sizeof out->message, "HTTP %ld: %.500s", status, msg.data ? msg.data : "");
    goto cleanup;
  }
  snprintf(out->message, sizeof out->message, "%s", msg.data ? msg.data : "");
  out->verdict = CS_PROBE_REJECTED_OTHER;
  for (size_t i = 0; i < nrows; i++)
    if (cs_probe_match(cs_buf_view(&msg), rows[i].pattern) || cs_probe_match(cs_buf_view(&code), rows[i].pattern)) {
      out->verdict = rows[i].verdict;
      break;
    }
  if (out->verdict == CS_PROBE_REJECTED_OTHER && !out->message[0])
    snprintf(out->message, sizeof out->message, "HTTP %ld", status);
cleanup:
  cs_buf_free(&msg);
  cs_buf_free(&code);
  /* a message cut at its buffer's end may have split a character */
  cs_utf8_scrub(out->message, strlen(out->message));
}

/* ---- offline verdict ---- */

cs_probe_verdict cs_probe_offline(cs_ruleset *rs, cs_target_id t, cs_probe_pairing mode, const cs_probe_request *req,
                                  char *why, size_t why_len) {
  char reason[CS_RULE_WHY_MAX], undecided[CS_RULE_WHY_MAX] = "";
  uint32_t index = 0;
  if (why && why_len)
    why[0] = 0;
  /* The rule, on calls in the order they are sent (their global index) and on result IDs. An ID
   * it cannot decide on leaves the request undecided, unless another ID surely breaks the rule. */
  for (uint32_t i = 0; i < req->npairs; i++) {
    const cs_probe_pair *p = &req->pairs[i];
    cs_rule_verdict v = CS_RULE_MET;
    if (!p->orphan) {
      index += p->skipped;
      v = cs_rule_check(rs, t, p->call_id, index, false, reason, sizeof reason);
      if (v == CS_RULE_BROKEN) {
        if (why)
          snprintf(why, why_len, "call %u: ID %s", index, reason);
        return CS_PROBE_REJECTED_RULE;
      }
      if (v == CS_RULE_UNDECIDED && !undecided[0])
        memcpy(undecided, reason, sizeof reason);
      index++;
    }
    if (!p->unanswered) {
      v = cs_rule_check(rs, t, p->result_id, CS_RULE_ANY_INDEX, false, reason, sizeof reason);
      if (v == CS_RULE_BROKEN) {
        if (why)
          snprintf(why, why_len, "result of pair %u: ID %s", i, reason);
        return CS_PROBE_REJECTED_RULE;
      }
      if (v == CS_RULE_UNDECIDED && !undecided[0])
        memcpy(undecided, reason, sizeof reason);
    }
  }
  if (undecided[0]) {
    if (why)
      snprintf(why, why_len, "%s", undecided);
    return CS_PROBE_UNDECIDED;
  }
  for (uint32_t i = 0; i < req->npairs; i++)
    for (uint32_t k = 0; k < i; k++)
      if (!req->pairs[i].orphan && !req->pairs[k].orphan && cs_str_eq(req->pairs[i].call_id, req->pairs[k].call_id)) {
        if (why)
          snprintf(why, why_len, "two calls share one ID");
        return CS_PROBE_REJECTED_RULE;
      }
  /* Pairing, message by message (call IDs are distinct here). */
  uint32_t nm = cs_probe_nmessages(req);
  for (uint32_t m = 0; m < nm; m++) {
    uint32_t calls = 0, results = 0;
    for (uint32_t i = 0; i < req->npairs; i++) {
      const cs_probe_pair *p = &req->pairs[i];
      if (p->message != m)
        continue;
      calls += !p->orphan;
      results += !p->unanswered;
      if (mode != CS_PROBE_PAIR_BY_ID)
        continue;
      bool found = false;
      for (uint32_t k = 0; k < req->npairs && !p->unanswered && !found; k++)
        found = req->pairs[k].message == m && !req->pairs[k].orphan && cs_str_eq(req->pairs[k].call_id, p->result_id);
      if (!p->unanswered && !found) {
        if (why)
          snprintf(why, why_len, "a result in message %u answers no call of that message", m);
        return CS_PROBE_REJECTED_PAIRING;
      }
      found = false;
      for (uint32_t k = 0; k < req->npairs && !p->orphan && !found; k++)
        found =
            req->pairs[k].message == m && !req->pairs[k].unanswered && cs_str_eq(req->pairs[k].result_id, p->call_id);
      if (!p->orphan && !found) {
        if (why)
          snprintf(why, why_len, "a call in message %u has no result", m);
        return CS_PROBE_REJECTED_PAIRING;
      }
    }
    if (calls != results) {
      if (why)
        snprintf(why, why_len, "message %u: %u calls, %u results", m, calls, results);
      return CS_PROBE_REJECTED_PAIRING;
    }
  }
  return CS_PROBE_ACCEPTED;
}

/* ---- probe IDs and URLs ---- */

static const char base62[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

cs_str cs_probe_make_id(const cs_probe_spec *spec, uint32_t len, uint32_t index, uint32_t salt, cs_arena *a) {
  char suffix[16] = "";
  if (spec->id_index_suffix)
    snprintf(suffix, sizeof suffix, ":%u", index);
  size_t pl = spec->id_prefix ? strlen(spec->id_prefix) : 0, sl = strlen(suffix);
  if (pl + sl > len)
    pl = sl = 0; /* too short for the native shape: filler only */
  char *s = cs_arena_alloc(a, (size_t)len + 1);
  if (pl)
    memcpy(s, spec->id_prefix, pl);
  uint64_t x = 0x9E3779B97F4A7C15ULL * (index + 1) ^ (uint64_t)salt * 0xBF58476D1CE4E5B9ULL;
  for (size_t i = pl; i < len - sl; i++) {
    x ^= x >> 31;
    x *= 0x94D049BB133111EBULL;
    x ^= x >> 29;
    s[i] = base62[(x >> 20) % 62];
  }
  memcpy(s + len - sl, suffix, sl);
  s[len] = 0;
  return (cs_str){s, len};
}

void cs_probe_url(const cs_probe_spec *spec, const char *base, const char *region, unsigned endpoint, const char *model,
                  cs_buf *out) {
  cs_buf_clear(out);
  for (const char *p = base; *p; p++) {
    if (!strncmp(p, "{region}", 8)) {
      cs_buf_puts(out, region ? region : "us-east-1");
      p += 7;
    } else {
      cs_buf_putc(out, *p);
    }
  }
  while (out->len && out->data[out->len - 1] == '/')
    out->data[--out->len] = 0;
  const char *path = spec->endpoints[endpoint < spec->nendpoints ? endpoint : 0].path;
  for (const char *p = path; *p; p++) {
    if (strncmp(p, "{model}", 7)) {
      cs_buf_putc(out, *p);
      continue;
    }
    for (const unsigned char *m = (const unsigned char *)model; *m; m++) {
      if ((*m >= 'a' && *m <= 'z') || (*m >= 'A' && *m <= 'Z') || (*m >= '0' && *m <= '9') || strchr("-._~", *m))
        cs_buf_putc(out, (char)*m);
      else
        cs_buf_printf(out, "%%%02X", *m);
    }
    p += 6;
  }
  if (!out->data)
    cs_buf_puts(out, "");
}
