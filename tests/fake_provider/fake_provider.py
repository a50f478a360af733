#!/usr/bin/env python3
"""A fake of the provider APIs callsign probes, on 127.0.0.1 only, for the probe tests.

Written from docs/PROVIDERS.md (the documented endpoints, request shapes, ID rules and error bodies),
not from callsign's code. Each provider lives under its own path prefix, so one server answers all:

  /anthropic/v1/messages, /anthropic/v1/messages/count_tokens      (x-api-key, anthropic-version)
  /openai/v1/chat/completions, /openai/v1/responses                (Authorization: Bearer)
  /mistral/v1/chat/completions, /kimi/v1/chat/completions          (Authorization: Bearer)
  /gemini/v1beta/models/MODEL:generateContent                      (x-goog-api-key)
  /bedrock/model/MODEL/converse                                    (Bearer key, or AWS SigV4)

The limits are flags (the defaults are the documented rules), so a test can change them and check
that rule discovery follows. The first line on stdout is the port. Secrets are never logged.
"""
import argparse
import hashlib
import hmac
import json
import re
import sys
import threading
import time
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

OPTS = None
LOCK = threading.Lock()
COUNT = {"requests": 0}


class Reject(Exception):
    """An error answer: HTTP status, JSON body, extra headers."""

    def __init__(self, status, body, headers=None):
        super().__init__(str(body))
        self.status, self.body, self.headers = status, body, headers or {}


# ---------------------------------------------------------------- Anthropic (PROVIDERS.md section 2)

def anthropic_error(status, etype, message):
    return Reject(status, {"type": "error", "error": {"type": etype, "message": message},
                           "request_id": "req_fake0001"})


ANTHROPIC_PATTERN = "^[a-zA-Z0-9_-]+$"


def anthropic_check_id(value, where):
    if not isinstance(value, str) or not re.fullmatch(r"[a-zA-Z0-9_-]+", value):
        raise anthropic_error(400, "invalid_request_error",
                              f"{where}: String should match pattern '{ANTHROPIC_PATTERN}'")
    if OPTS.anthropic_max_len and len(value) > OPTS.anthropic_max_len:
        raise anthropic_error(400, "invalid_request_error",
                              f"{where}: String should have at most {OPTS.anthropic_max_len} characters")


def anthropic_validate(body, with_budget):
    """Raises on schema errors; returns the pairing error message, or None."""
    msgs = body.get("messages")
    if not isinstance(msgs, list):
        raise anthropic_error(400, "invalid_request_error", "messages: Field required")
    if with_budget and "max_tokens" not in body:
        raise anthropic_error(400, "invalid_request_error", "max_tokens: Field required")
    blocks = [(i, j, b) for i, m in enumerate(msgs) if isinstance(m.get("content"), list)
              for j, b in enumerate(m["content"])]
    has_tools = any(b.get("type") in ("tool_use", "tool_result") for _, _, b in blocks)
    if has_tools and not body.get("tools"):
        raise anthropic_error(400, "invalid_request_error",
                              "Requests which include `tool_use` or `tool_result` blocks must define tools.")
    for i, j, b in blocks:
        if b.get("type") == "tool_use":
            anthropic_check_id(b.get("id"), f"messages.{i}.content.{j}.tool_use.id")
        elif b.get("type") == "tool_result":
            anthropic_check_id(b.get("tool_use_id"), f"messages.{i}.content.{j}.tool_result.tool_use_id")
    seen_request = set()
    for i, m in enumerate(msgs):
        seen = set()
        for j, b in enumerate(m.get("content") if isinstance(m.get("content"), list) else []):
            if b.get("type") != "tool_use":
                continue
            if b["id"] in seen or (OPTS.anthropic_unique == "request" and b["id"] in seen_request):
                raise anthropic_error(400, "invalid_request_error",
                                      f"messages.{i}.content.{j}: `tool_use` ids must be unique")
            seen.add(b["id"])
        seen_request |= seen
    return anthropic_pairing(msgs)


def tool_blocks(m, kind, field):
    c = m.get("content")
    return [(j, b.get(field)) for j, b in enumerate(c if isinstance(c, list) else []) if b.get("type") == kind]


def anthropic_pairing(msgs):
    for i, m in enumerate(msgs):
        if m.get("role") == "user" and i > 0:
            uses = {v for _, v in tool_blocks(msgs[i - 1], "tool_use", "id")} \
                if msgs[i - 1].get("role") == "assistant" else set()
            for j, v in tool_blocks(m, "tool_result", "tool_use_id"):
                if v not in uses:
                    return (f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {v}. "
                            "Each `tool_result` block must have a corresponding `tool_use` block in the previous "
                            "message.")
        if m.get("role") == "assistant":
            ids = [v for _, v in tool_blocks(m, "tool_use", "id")]
            nxt = msgs[i + 1] if i + 1 < len(msgs) else {}
            answered = {v for _, v in tool_blocks(nxt, "tool_result", "tool_use_id")} \
                if nxt.get("role") == "user" else set()
            missing = [v for v in ids if v not in answered]
            if missing:
                return (f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                        f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` block "
                        "in the next message.")
    return None


def anthropic(handler, path, body):
    key = handler.headers.get("x-api-key")
    if not key or (OPTS.expect_key and key != OPTS.expect_key):
        raise anthropic_error(401, "authentication_error", "invalid x-api-key")
    if not handler.headers.get("anthropic-version"):
        raise anthropic_error(400, "invalid_request_error", "anthropic-version: header is required")
    count_tokens = path.endswith("/count_tokens")
    err = anthropic_validate(body, not count_tokens)
    if err:
        raise anthropic_error(400, "invalid_request_error", err)
    if count_tokens:
        return {"input_tokens": 42}
    return {"id": "msg_fake", "type": "message", "role": "assistant", "content": [], "stop_reason": "max_tokens",
            "usage": {"input_tokens": 42, "output_tokens": 1}}


# ------------------------------------------------ OpenAI Chat, Kimi, Mistral (sections 3, 5, 6)

def openai_error(message, code=None, param=None, status=400, etype="invalid_request_error"):
    return Reject(status, {"error": {"message": message, "type": etype, "param": param, "code": code}})


def bearer(handler):
    auth = handler.headers.get("Authorization", "")
    if not auth.startswith("Bearer ") or not auth[7:] or (OPTS.expect_key and auth[7:] != OPTS.expect_key):
        return None
    return auth[7:]


def openai_length(value, where, max_len):
    if not isinstance(value, str):
        raise openai_error(f"Missing required parameter: '{where}'.", "missing_required_parameter", where)
    if len(value) == 0:
        raise openai_error(f"Invalid '{where}': empty string. Expected a string with minimum length 1, but got an "
                           "empty string instead.", "empty_string", where)
    if max_len and len(value) > max_len:
        raise openai_error(f"Invalid '{where}': string too long. Expected a string with maximum length {max_len}, "
                           f"but got a string with length {len(value)} instead.", "string_above_max_length", where)


def chat_walk(msgs, unique, on_missing, on_orphan, on_unknown, on_dup):
    """The OpenAI-style pairing walk: tool messages answer the latest assistant tool_calls."""
    pending, answered_where, open_at = None, {}, None
    for i, m in enumerate(msgs):
        role = m.get("role")
        if role == "tool":
            tid = m.get("tool_call_id")
            if tid in answered_where and unique != "none":
                raise on_dup(tid, answered_where[tid], i)
            if pending is None:
                raise on_orphan(i)
            if tid not in pending:
                raise on_unknown(tid, i)
            pending.remove(tid)
            answered_where[tid] = i
            continue
        if pending:
            raise on_missing(pending, open_at)
        pending = None
        if unique == "message":
            answered_where = {}
        if role == "assistant" and m.get("tool_calls"):
            pending = [tc.get("id") for tc in m["tool_calls"]]
            open_at = i
    if pending:
        raise on_missing(pending, open_at)


def openai_chat(handler, body):
    if not bearer(handler):
        raise openai_error("Incorrect API key provided.", "invalid_api_key", None, 401)
    msgs = body.get("messages") or []
    for i, m in enumerate(msgs):
        for j, tc in enumerate(m.get("tool_calls") or []):
            openai_length(tc.get("id"), f"messages[{i}].tool_calls[{j}].id", OPTS.openai_max_len)
        if m.get("role") == "tool":
            openai_length(m.get("tool_call_id"), f"messages[{i}].tool_call_id", OPTS.openai_max_len)
    chat_walk(
        msgs, OPTS.openai_unique,
        lambda ids, i: openai_error(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
            f"'tool_call_id'. The following tool_call_ids did not have response messages: {', '.join(ids)}",
            None, f"messages.[{i}].role"),
        lambda i: openai_error("Invalid parameter: messages with role 'tool' must be a response to a preceeding "
                               "message with 'tool_calls'.", None, f"messages.[{i}].role"),
        lambda tid, i: openai_error(f"Invalid parameter: 'tool_call_id' of '{tid}' not found in 'tool_calls' of "
                                    "previous message.", None, f"messages.[{i}].tool_call_id"),
        lambda tid, a, b: openai_error(f"Invalid parameter: Duplicate value for 'tool_call_id' of '{tid}', in "
                                       f"messages[{a}] and messages[{b}].", None, f"messages.[{b}].tool_call_id"))
    return chat_ok(body)


def chat_ok(body):
    return {"id": "chatcmpl-fake", "object": "chat.completion", "model": body.get("model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": ""}, "finish_reason": "length"}]}


def kimi(handler, body):
    if not bearer(handler):
        raise openai_error("Invalid Authentication", None, None, 401, "invalid_authentication_error")
    msgs = body.get("messages") or []
    seen = set()
    for m in msgs:  # no format rule (section 6.3): only duplicates
        if OPTS.kimi_unique == "message":
            seen = set()
        for tc in m.get("tool_calls") or []:
            if tc.get("id") in seen:
                raise Reject(400, {"error": {"message": f"Invalid request: tool call id {tc.get('id')} is duplicated",
                                             "type": "invalid_request_error"}})
            seen.add(tc.get("id"))
    # Orphan and unknown results: Kimi documents no text; an OpenAI-compatible backend's is used.
    chat_walk(
        msgs, "none",
        lambda ids, i: Reject(400, {"error": {"message": "an assistant message with 'tool_calls' must be followed by "
                                              "tool messages responding to each 'tool_call_id'. The following "
                                              f"tool_call_ids did not have response messages: {', '.join(ids)}",
                                              "type": "invalid_request_error"}}),
        lambda i: openai_error("Invalid parameter: messages with role 'tool' must be a response to a preceeding "
                               "message with 'tool_calls'."),
        lambda tid, i: openai_error(f"Invalid parameter: 'tool_call_id' of '{tid}' not found in 'tool_calls' of "
                                    "previous message."),
        None)
    return chat_ok(body)


def mistral_error(message, etype, code):
    return Reject(400, {"object": "error", "message": message, "type": etype, "param": None, "code": code})


def mistral(handler, body):
    if not bearer(handler):
        raise Reject(401, {"message": "Unauthorized", "request_id": "fake"})
    msgs = body.get("messages") or []
    n = OPTS.mistral_len
    ids = [tc.get("id") for m in msgs for tc in (m.get("tool_calls") or [])]
    ids += [m.get("tool_call_id") for m in msgs if m.get("role") == "tool"]
    for v in ids:
        if v is None:
            raise mistral_error("Tool call id has to be defined.", "invalid_request_error", None)
        if not re.fullmatch(r"[a-zA-Z0-9]{%d}" % n, v):
            raise mistral_error(f"Tool call id was {v} but must be a-z, A-Z, 0-9, with a length of {n}.",
                                "invalid_function_call", "3280")
    # mistral-common counts calls and responses per turn; it does not match their IDs (section 5.3).
    i = 0
    while i < len(msgs):
        m = msgs[i]
        if m.get("role") == "assistant" and m.get("tool_calls"):
            k = i + 1
            while k < len(msgs) and msgs[k].get("role") == "tool":
                k += 1
            if k - i - 1 != len(m["tool_calls"]):
                raise mistral_error("Not the same number of function calls and responses",
                                    "invalid_request_message_order", "3230")
            i = k
            continue
        if m.get("role") == "tool":
            raise mistral_error("Not the same number of function calls and responses",
                                "invalid_request_message_order", "3230")
        i += 1
    return chat_ok(body)


# ------------------------------------------------------------------ OpenAI Responses (section 4)

def responses(handler, body):
    if not bearer(handler):
        raise openai_error("Incorrect API key provided.", "invalid_api_key", None, 401)
    if body.get("max_output_tokens", 16) < 16:
        raise openai_error("Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but "
                           f"got {body['max_output_tokens']} instead.", "integer_below_min_value",
                           "max_output_tokens")
    items = body.get("input") or []
    for i, it in enumerate(items):
        if it.get("type") in ("function_call", "function_call_output"):
            openai_length(it.get("call_id"), f"input[{i}].call_id", OPTS.responses_max_len)
        if it.get("type") == "function_call" and "id" in it and not str(it["id"]).startswith("fc"):
            raise openai_error(f"Invalid 'input[{i}].id': '{it['id']}'. Expected an ID that begins with 'fc'.",
                               "invalid_id_prefix", f"input[{i}].id")
    calls = [it.get("call_id") for it in items if it.get("type") == "function_call"]
    outputs = [it.get("call_id") for it in items if it.get("type") == "function_call_output"]
    seen = []
    for it in items:
        if it.get("type") == "function_call":
            seen.append(it.get("call_id"))
        elif it.get("type") == "function_call_output" and it.get("call_id") not in seen:
            raise openai_error(f"No tool call found for function call output with call_id {it.get('call_id')}.",
                               None, "input")
    for c in calls:
        if c not in outputs:
            raise openai_error(f"No tool output found for function call {c}.", None, "input")
    return {"id": "resp_fake", "object": "response", "status": "incomplete", "output": []}


# ----------------------------------------------------------------------------- Gemini (section 7)

def gemini_error(message, status=400, gstatus="INVALID_ARGUMENT"):
    return Reject(status, {"error": {"code": status, "message": message, "status": gstatus}})


def gemini(handler, body):
    key = handler.headers.get("x-goog-api-key")
    if not key or (OPTS.expect_key and key != OPTS.expect_key):
        raise gemini_error("API key not valid. Please pass a valid API key.")
    contents = body.get("contents") or []
    for i, c in enumerate(contents):
        for j, p in enumerate(c.get("parts") or []):
            for part, field in (("functionCall", "function_call"), ("functionResponse", "function_response")):
                if OPTS.gemini_reject_id and part in p and "id" in p[part]:
                    raise gemini_error(f"Invalid JSON payload received. Unknown name \"id\" at "
                                       f"'contents[{i}].parts[{j}].{field}': Cannot find field.")
    # Pairing by count and position (section 7.3); no ID rule is documented.
    for i, c in enumerate(contents):
        calls = [p["functionCall"] for p in c.get("parts") or [] if "functionCall" in p]
        resps = [p["functionResponse"] for p in c.get("parts") or [] if "functionResponse" in p]
        prev_calls = [p["functionCall"] for p in (contents[i - 1].get("parts") or [] if i else [])
                      if "functionCall" in p]
        if resps and not prev_calls:
            raise gemini_error("Please ensure that function response turn comes immediately after a function call "
                               "turn.")
        if calls:
            nxt = contents[i + 1] if i + 1 < len(contents) else {}
            nresp = [p["functionResponse"] for p in nxt.get("parts") or [] if "functionResponse" in p]
            if len(nresp) != len(calls):
                raise gemini_error("Please ensure that the number of function response parts is equal to the number "
                                   "of function call parts of the function call turn.")
            if OPTS.gemini_match_ids:
                for call, resp in zip(calls, nresp):
                    if call.get("id") != resp.get("id"):
                        raise gemini_error(f"functionResponse.id '{resp.get('id')}' does not match functionCall.id "
                                           f"'{call.get('id')}'")
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "MAX_TOKENS"}]}


# ---------------------------------------------------------------------------- Bedrock (section 8)

def bedrock_error(message, status=400, etype="ValidationException"):
    return Reject(status, {"message": message}, {"x-amzn-ErrorType": f"{etype}:http://internal.amazon.com/coral/"})


def sigv4_ok(handler, raw_body):
    """Checks an AWS4-HMAC-SHA256 signature over the request as received (needs --aws-secret)."""
    auth = handler.headers.get("Authorization", "")
    m = re.fullmatch(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, "
                     r"SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})", auth)
    if not m:
        return False
    key_id, date, region, service, signed, signature = m.groups()
    if OPTS.aws_key_id and key_id != OPTS.aws_key_id:
        return False
    if not OPTS.aws_secret:
        return True
    names = signed.split(";")
    canon_headers = "".join(f"{n}:{' '.join((handler.headers.get(n) or '').split())}\n" for n in names)
    path, _, query = handler.path.partition("?")
    creq = "\n".join(["POST", path, query, canon_headers, signed, hashlib.sha256(raw_body).hexdigest()])
    amz_date = handler.headers.get("x-amz-date", "")
    scope = f"{date}/{region}/{service}/aws4_request"
    sts = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(creq.encode()).hexdigest()])
    k = ("AWS4" + OPTS.aws_secret).encode()
    for part in (date, region, service, "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    return hmac.compare_digest(hmac.new(k, sts.encode(), hashlib.sha256).hexdigest(), signature)


def bedrock(handler, body, raw_body):
    auth = handler.headers.get("Authorization", "")
    if auth.startswith("Bearer "):
        ok = bool(auth[7:]) and (not OPTS.expect_key or auth[7:] == OPTS.expect_key)
    else:
        ok = sigv4_ok(handler, raw_body)
    if not ok:
        raise bedrock_error("The security token included in the request is invalid.", 403,
                            "UnrecognizedClientException")
    msgs = body.get("messages") or []
    blocks = [(i, j, b) for i, m in enumerate(msgs) for j, b in enumerate(m.get("content") or [])]
    if any("toolUse" in b or "toolResult" in b for _, _, b in blocks) and not body.get("toolConfig"):
        raise bedrock_error("The toolConfig field must be defined when using toolUse and toolResult content blocks.")
    for i, j, b in blocks:
        for kind in ("toolUse", "toolResult"):
            if kind not in b:
                continue
            v = b[kind].get("toolUseId")
            where = f"Value at 'messages.{i + 1}.member.content.{j + 1}.member.{kind}.toolUseId' failed to " \
                    "satisfy constraint: Member must "
            if not isinstance(v, str) or len(v) < 1:
                raise bedrock_error("1 validation error detected: " + where + "have length greater than or equal to 1")
            if len(v) > OPTS.bedrock_max_len:
                raise bedrock_error("1 validation error detected: " + where +
                                    f"have length less than or equal to {OPTS.bedrock_max_len}")
            if not re.fullmatch(OPTS.bedrock_pattern, v):
                raise bedrock_error("1 validation error detected: " + where +
                                    f"satisfy regular expression pattern: {OPTS.bedrock_pattern}")
    for i, m in enumerate(msgs):
        ids = [b["toolUse"].get("toolUseId") for b in m.get("content") or [] if "toolUse" in b]
        dups = sorted({v for v in ids if ids.count(v) > 1})
        if dups:
            raise bedrock_error(f"The toolUse blocks at messages.{i}.content contain duplicate Ids: {', '.join(dups)}")
    if OPTS.bedrock_claude:  # Claude behind Bedrock: Anthropic's pairing text, passed through
        converted = [{"role": m.get("role"), "content": [
            {"type": "tool_use", "id": b["toolUse"].get("toolUseId")} if "toolUse" in b else
            {"type": "tool_result", "tool_use_id": b["toolResult"].get("toolUseId")} if "toolResult" in b else
            {"type": "text"} for b in m.get("content") or []]} for m in msgs]
        err = anthropic_pairing(converted)
        if err:
            raise bedrock_error("The model returned the following errors: " + err)
    for i, m in enumerate(msgs):
        ids = [b["toolUse"].get("toolUseId") for b in m.get("content") or [] if "toolUse" in b]
        if not ids:
            continue
        nxt = msgs[i + 1] if i + 1 < len(msgs) else {}
        results = [b["toolResult"].get("toolUseId") for b in nxt.get("content") or [] if "toolResult" in b]
        if len(results) > len(ids):
            raise bedrock_error(f"The number of toolResult blocks at messages.{i + 1}.content exceeds the number of "
                                "toolUse blocks of previous turn.")
        missing = [v for v in ids if v not in results]
        if missing:
            raise bedrock_error(f"Expected toolResult blocks at messages.{i + 1}.content for the following Ids: "
                                f"{', '.join(missing)}")
    return {"output": {"message": {"role": "assistant", "content": [{"text": ""}]}}, "stopReason": "max_tokens",
            "usage": {"inputTokens": 42, "outputTokens": 1, "totalTokens": 43}}


# ------------------------------------------------------------------------------------ the server

def wrap(status, body, provider):
    """Gateway envelopes (section 1.6, section 15): OpenRouter's metadata.raw, Vertex's JSON-string message."""
    raw = json.dumps(body)
    if OPTS.wrap == "openrouter":
        return {"error": {"message": "Provider returned error", "code": status,
                          "metadata": {"raw": raw, "provider_name": provider}}}
    if OPTS.wrap == "vertex":
        return {"error": {"code": status, "message": raw, "status": "INVALID_ARGUMENT"}}
    return body


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms delayed-ACK stall

    def log_message(self, fmt, *args):  # quiet: never print headers
        pass

    def answer(self, status, obj, headers=None):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/__stats":
            with LOCK:
                return self.answer(200, dict(COUNT))
        self.answer(404, {"error": "not found"})

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        with LOCK:
            COUNT["requests"] += 1
            n = COUNT["requests"]
        if n <= OPTS.flaky:  # 429 with Retry-After, then 503 without: the client must retry both
            if n % 2:
                when = (formatdate(time.time() + OPTS.retry_after, usegmt=True) if OPTS.retry_after_date
                        else str(OPTS.retry_after))
                return self.answer(429, {"error": {"message": "Rate limit reached", "type": "rate_limit_error"}},
                                   {"retry-after": when})
            return self.answer(503, {"error": {"message": "Service Unavailable", "type": "overloaded_error"}})
        if OPTS.unrelated_every and n % OPTS.unrelated_every == 0:  # a 400 that says nothing about IDs
            return self.answer(400, {"error": {"message": "Something unrelated went wrong",
                                               "type": "invalid_request_error"}})
        path = unquote(self.path)
        provider = path.split("/")[1] if path.count("/") > 1 else ""
        try:
            try:
                body = json.loads(raw)
            except ValueError:
                raise Reject(400, {"error": {"message": "We could not parse the JSON body of your request.",
                                             "type": "invalid_request_error"}})
            if provider == "anthropic" and path.endswith(("/v1/messages", "/v1/messages/count_tokens")):
                out = anthropic(self, path, body)
            elif provider == "openai" and path.endswith("/v1/chat/completions"):
                out = openai_chat(self, body)
            elif provider == "openai" and path.endswith("/v1/responses"):
                out = responses(self, body)
            elif provider == "mistral" and path.endswith("/v1/chat/completions"):
                out = mistral(self, body)
            elif provider == "kimi" and path.endswith("/v1/chat/completions"):
                out = kimi(self, body)
            elif provider == "gemini" and re.search(r"/v1beta/models/[^/]+:generateContent$", path):
                out = gemini(self, body)
            elif provider == "bedrock" and re.search(r"/model/[^/]+/converse$", path):
                out = bedrock(self, body, raw)
            else:
                raise Reject(404, {"error": {"message": f"no such endpoint: {path}", "type": "not_found_error"}})
            self.answer(200, out)
        except Reject as r:
            body = wrap(r.status, r.body, provider) if r.status == 400 else r.body
            self.answer(r.status, body, r.headers)


def main():
    global OPTS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--expect-key", default="", help="the only key accepted (default: any non-empty key)")
    ap.add_argument("--anthropic-max-len", type=int, default=0, help="0: no maximum (none is documented)")
    ap.add_argument("--anthropic-unique", choices=["message", "request"], default="message")
    ap.add_argument("--openai-max-len", type=int, default=40)
    ap.add_argument("--openai-unique", choices=["request", "message", "none"], default="request")
    ap.add_argument("--responses-max-len", type=int, default=64)
    ap.add_argument("--mistral-len", type=int, default=9)
    ap.add_argument("--kimi-unique", choices=["request", "message"], default="request")
    ap.add_argument("--gemini-reject-id", action="store_true", help="behave like Gemini 2.x: no id fields")
    ap.add_argument("--gemini-match-ids", action="store_true")
    ap.add_argument("--bedrock-max-len", type=int, default=64)
    ap.add_argument("--bedrock-pattern", default="[a-zA-Z0-9_-]+")
    ap.add_argument("--bedrock-claude", action="store_true", help="pass Anthropic's pairing texts through")
    ap.add_argument("--aws-key-id", default="")
    ap.add_argument("--aws-secret", default="", help="verify SigV4 signatures with this secret")
    ap.add_argument("--wrap", choices=["none", "openrouter", "vertex"], default="none")
    ap.add_argument("--flaky", type=int, default=0, help="answer the first N requests with 429 / 503")
    ap.add_argument("--retry-after", type=int, default=0, help="seconds in the 429 answers' Retry-After")
    ap.add_argument("--retry-after-date", action="store_true", help="Retry-After as an HTTP date that far ahead")
    ap.add_argument("--unrelated-every", type=int, default=0,
                    help="answer every Nth request with a 400 that is not about IDs")
    OPTS = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", OPTS.port), Handler)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
