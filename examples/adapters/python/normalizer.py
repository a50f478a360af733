#!/usr/bin/env python3
"""callsign example adapter in Python (stdlib only).

A small, correct tool-call ID normalizer that speaks callsign's implementation protocol,
version 1 (PROTOCOL.md): one JSON request per line on stdin, one JSON answer per line on
stdout. Ops: hello, emit, canonicalize, normalize, stop.

Scheme (the Node and C adapters implement the same one and give byte-identical answers to the
requests PROTOCOL.md defines; README.md lists where they differ on other lines):
  - every call's ID is derived from SHA-256 over length-prefixed fields
    (scope, turn_key or turn index, position in turn, raw id, name, counter); the counter starts
    at 0 and is raised until the ID is not used yet by an earlier call of the same request;
  - targets: anthropic toolu_+24, bedrock tooluse_+24, openai_chat / openai_responses / gemini
    call_+24 (base64url characters), mistral 9 base62 characters; canonical IDs are hist_+24;
  - Anthropic server calls keep a valid srvtoolu_ ID; canonicalize keeps IDs already in the
    canonical format (idempotence), unless an earlier call already uses them;
  - results take the ID of the call they answer by the PROTOCOL.md pairing rule; orphans get null.

`--bug NAME` switches in one known defect (see README.md) so that a CI gate can be shown failing.
"""
import base64
import hashlib
import json
import math
import re
import sys
import uuid
from collections import deque

TARGETS = {  # name: (prefix, max length in characters or None)
    "anthropic": ("toolu_", 64),
    "openai_chat": ("call_", 40),
    "openai_responses": ("call_", 64),
    "gemini": ("call_", None),
    "bedrock": ("tooluse_", 64),
    "mistral": ("", 9),
}
CANON = "canonical"
BUGS = ("sanitize-collide", "truncate", "random-fallback", "name-keyed", "per-turn-index",
        "asymmetric", "keep-orphans")
B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
SAFE = re.compile(r"[A-Za-z0-9_-]+")
ALNUM9 = re.compile(r"[A-Za-z0-9]{9}")
SERVER = re.compile(r"srvtoolu_[A-Za-z0-9_]+")
CANON_ID = re.compile(r"hist_[A-Za-z0-9_-]{24}")
ILLEGAL = re.compile(r"[^A-Za-z0-9_-]")


def digest(*fields):
    """SHA-256 of the fields, each length-prefixed ("<bytes>:<utf-8>") so the encoding is
    injective; None (a missing ID) is encoded as "~"."""
    h = hashlib.sha256()
    for f in fields:
        if f is None:
            h.update(b"~")
        else:
            b = str(f).encode("utf-8", "surrogatepass")
            h.update(b"%d:" % len(b))
            h.update(b)
    return h.digest()


def b64(d):
    return base64.urlsafe_b64encode(d).decode("ascii")[:24]


def b62(d, n):
    return "".join(B62[x % 62] for x in d[:n])


def fmt(target, d, server=False):
    if target == CANON:
        return "hist_" + b64(d)
    if target == "mistral":
        return b62(d, 9)
    if server and target == "anthropic":
        return "srvtoolu_" + b62(d, 24)
    return TARGETS[target][0] + b64(d)


def valid(target, s):
    """Does `s` satisfy the target's rule?"""
    if not isinstance(s, str) or not s:
        return False
    if target == "mistral":
        return bool(ALNUM9.fullmatch(s))
    limit = TARGETS[target][1]
    if limit is not None and len(s) > limit:
        return False
    return target not in ("anthropic", "bedrock") or bool(SAFE.fullmatch(s))


def sanitize(s):
    return ILLEGAL.sub("_", s)


def random_id(target):
    u = uuid.uuid4().hex
    return u[:9] if target == "mistral" else TARGETS[target][0] + u


def text(v):
    return v if isinstance(v, str) else None


def call_id(target, bug, tid, pos, raw, name, server, used):
    """The wire (or stored) ID of one call; `used` holds the IDs of the earlier calls."""
    if server and raw and raw not in used and SERVER.fullmatch(raw):
        if target == "anthropic" or (target == CANON and len(raw) <= 64):
            return raw
    if target == CANON and raw and raw not in used and CANON_ID.fullmatch(raw):
        return raw
    if bug == "per-turn-index":
        return "call_%d" % pos
    if bug == "sanitize-collide":
        return sanitize(raw) if raw else "call_%d" % pos
    if bug == "truncate" and raw:
        limit = TARGETS[target][1]
        return raw if limit is None else raw[:limit]
    if bug == "random-fallback" and not valid(target, raw):
        return random_id(target)
    k = 0
    while True:
        wire = fmt(target, digest(target, tid, pos, raw, name, k), server)
        if wire not in used:
            return wire
        k += 1


def earliest(queue, calls):
    """The earliest call of `queue` (call indices in document order) not answered yet, or None.
    Answered calls leave the queue for good, so every call is passed over at most once."""
    while queue and calls[queue[0]]["answered"]:
        queue.popleft()
    return queue[0] if queue else None


def assign(history, target, bug=None):
    """Returns (call IDs, result IDs) for one history, in document order."""
    calls = []  # per call: {"name", "wire", "answered"}
    out_calls, out_results = [], []
    used = set()
    # The unanswered non-server calls, in order: by raw id (rule 1: any turn), and by name for the
    # most recent assistant turn (rule 2). A queue per key keeps pairing linear in the history.
    by_raw, last_turn = {}, {}
    by_name = {}  # only for the name-keyed defect: name -> wire ID of the last call
    for t, turn in enumerate(history.get("turns") or []):
        if turn.get("role") == "assistant":
            last_turn = {}
            key = text(turn.get("turn_key"))
            tid = "i%d" % t if key is None else "k" + key
            for pos, c in enumerate(turn.get("calls") or []):
                raw, name, server = text(c.get("id")), text(c.get("name")), c.get("server") is True
                wire = call_id(target, bug, tid, pos, raw, name, server, used)
                used.add(wire)
                out_calls.append(wire)
                if not server:
                    if raw:  # rule 1 pairs by a non-empty id only
                        by_raw.setdefault(raw, deque()).append(len(calls))
                    last_turn.setdefault(name, deque()).append(len(calls))
                    by_name[name] = wire
                calls.append({"name": name, "wire": wire, "answered": False})
        for r in turn.get("results") or []:
            cid, name = text(r.get("call_id")), text(r.get("name"))
            if cid:  # rule 1: earliest unanswered call with the same raw id
                match = earliest(by_raw.get(cid), calls)
            else:  # rule 2: earliest unanswered same-name call of the most recent assistant turn
                match = earliest(last_turn.get(name), calls)
            paired = None
            if match is not None:
                calls[match]["answered"] = True
                paired = calls[match]["wire"]
            out_results.append(result_id(target, bug, cid, name, paired, by_name))
    return out_calls, out_results


def result_id(target, bug, cid, name, paired, by_name):
    """The ID of one result; `paired` is the ID of the call it answers (None: orphan)."""
    if bug == "name-keyed":
        return by_name.get(name)
    if bug == "asymmetric":
        return sanitize(cid) if cid else None
    if bug == "keep-orphans" and paired is None:
        return sanitize(cid) if cid else None
    if bug == "random-fallback" and paired is not None and not valid(target, cid):
        return random_id(target)
    return paired


def normalize(target, ids):
    return [fmt(target, digest("normalize", target, text(x))) for x in ids]


def handle(req, bug):
    op, seq = req.get("op"), req.get("seq")
    if op == "hello":
        return {"seq": seq, "protocol": 1, "name": "callsign-example-python" + ("+" + bug if bug else ""),
                "version": "1.0.0", "ops": ["emit", "canonicalize", "normalize"], "targets": list(TARGETS)}
    if op in ("emit", "normalize") and req.get("target") not in TARGETS:
        return {"seq": seq, "error": "unsupported target: %s" % req.get("target")}
    if op == "emit":
        calls, results = assign(req.get("history") or {}, req["target"], bug)
        return {"seq": seq, "calls": calls, "results": results}
    if op == "canonicalize":
        calls, results = assign(req.get("history") or {}, CANON)
        return {"seq": seq, "calls": calls, "results": results}
    if op == "normalize":
        ids = req.get("ids")
        if ids is not None and not isinstance(ids, list):
            return {"seq": seq, "error": "ids is not an array"}
        return {"seq": seq, "ids": normalize(req["target"], ids or [])}
    return {"seq": seq, "error": "unknown op: %s" % op}


def refuse_constant(name):
    """json.loads reads NaN, Infinity and -Infinity, which are not JSON (RFC 8259) and which
    json.dumps would write back into the answer: a line holding them is a bad request line."""
    raise ValueError("%s is not JSON" % name)


def finite_float(s):
    """A JSON number as a float; one beyond a double's range (1e400) would read as inf and be
    written back as Infinity, so it is refused."""
    f = float(s)
    if math.isinf(f):
        raise ValueError("number out of range: %.40s" % s)
    return f


def main(argv):
    bug = None
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--bug" and args:
            bug = args.pop(0)
        elif a.startswith("--bug="):
            bug = a[len("--bug="):]
        else:
            sys.stderr.write("usage: normalizer.py [--bug NAME]\n")
            return 2
        if bug not in BUGS:
            sys.stderr.write("unknown --bug %r (known: %s)\n" % (bug, ", ".join(BUGS)))
            return 2
    # A payload may nest as deep as callsign reads (1000 levels), inside the request's own levels:
    # the json module recurses once per level.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 5000))
    stdin, stdout = sys.stdin.buffer, sys.stdout
    while True:
        line = stdin.readline()
        if not line:
            return 0
        if not line.strip():
            continue
        try:
            req = json.loads(line, parse_constant=refuse_constant, parse_float=finite_float)
            if not isinstance(req, dict):
                raise ValueError("request is not an object")
        except (ValueError, RecursionError) as e:
            resp = {"seq": None, "error": "bad request line: %s" % e}
        else:
            if req.get("op") == "stop":
                return 0
            try:
                resp = handle(req, bug)
            except Exception as e:  # a bad request must not kill the process
                resp = {"seq": req.get("seq"), "error": "%s: %s" % (type(e).__name__, e)}
        stdout.write(json.dumps(resp, separators=(",", ":")) + "\n")
        stdout.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
