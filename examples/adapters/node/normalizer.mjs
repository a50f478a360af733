#!/usr/bin/env node
// callsign example adapter in Node.js (stdlib only, no npm packages).
//
// A small, correct tool-call ID normalizer that speaks callsign's implementation protocol,
// version 1 (PROTOCOL.md): one JSON request per line on stdin, one JSON answer per line on
// stdout. Ops: hello, emit, canonicalize, normalize, stop.
//
// Scheme (the Python and C adapters implement the same one and give byte-identical answers to the
// requests PROTOCOL.md defines; README.md lists where they differ on other lines):
//  - every call's ID is derived from SHA-256 over length-prefixed fields (scope, turn_key or turn
//    index, position in turn, raw id, name, counter); the counter starts at 0 and is raised until
//    the ID is not used yet by an earlier call of the same request;
//  - targets: anthropic toolu_+24, bedrock tooluse_+24, openai_chat / openai_responses / gemini
//    call_+24 (base64url characters), mistral 9 base62 characters; canonical IDs are hist_+24;
//  - Anthropic server calls keep a valid srvtoolu_ ID; canonicalize keeps IDs already in the
//    canonical format (idempotence), unless an earlier call already uses them;
//  - results take the ID of the call they answer by the PROTOCOL.md pairing rule; orphans get null.
//
// `--bug NAME` switches in one known defect (see README.md) so that a CI gate can be shown failing.
import { createHash, randomUUID } from 'node:crypto';

const TARGETS = {
  // name: [prefix, max length in characters or null]
  anthropic: ['toolu_', 64],
  openai_chat: ['call_', 40],
  openai_responses: ['call_', 64],
  gemini: ['call_', null],
  bedrock: ['tooluse_', 64],
  mistral: ['', 9],
};
const CANON = 'canonical';
const BUGS = ['sanitize-collide', 'truncate', 'random-fallback', 'name-keyed', 'per-turn-index',
  'asymmetric', 'keep-orphans'];
const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SAFE = /^[A-Za-z0-9_-]+$/;
const ALNUM9 = /^[A-Za-z0-9]{9}$/;
const SERVER = /^srvtoolu_[A-Za-z0-9_]+$/;
const CANON_ID = /^hist_[A-Za-z0-9_-]{24}$/;

// SHA-256 of the fields, each length-prefixed ("<bytes>:<utf-8>") so the encoding is injective;
// null (a missing ID) is encoded as "~".
function digest(...fields) {
  const h = createHash('sha256');
  for (const f of fields) {
    if (f === null) {
      h.update('~');
    } else {
      const b = Buffer.from(String(f), 'utf8');
      h.update(`${b.length}:`);
      h.update(b);
    }
  }
  return h.digest();
}

const b64 = (d) => d.toString('base64url').slice(0, 24);
const b62 = (d, n) => Array.from(d.subarray(0, n), (x) => B62[x % 62]).join('');
const chars = (s) => Array.from(s); // code points, not UTF-16 units
const sanitize = (s) => s.replace(/[^A-Za-z0-9_-]/gu, '_');
const text = (v) => (typeof v === 'string' ? v : null);

function fmt(target, d, server = false) {
  if (target === CANON) return 'hist_' + b64(d);
  if (target === 'mistral') return b62(d, 9);
  if (server && target === 'anthropic') return 'srvtoolu_' + b62(d, 24);
  return TARGETS[target][0] + b64(d);
}

// Does `s` satisfy the target's rule?
function valid(target, s) {
  if (typeof s !== 'string' || s === '') return false;
  if (target === 'mistral') return ALNUM9.test(s);
  const limit = TARGETS[target][1];
  if (limit !== null && chars(s).length > limit) return false;
  return !(target === 'anthropic' || target === 'bedrock') || SAFE.test(s);
}

function randomId(target) {
  const u = randomUUID().replaceAll('-', '');
  return target === 'mistral' ? u.slice(0, 9) : TARGETS[target][0] + u;
}

// The wire (or stored) ID of one call; `used` holds the IDs of the earlier calls.
function callId(target, bug, tid, pos, raw, name, server, used) {
  if (server && raw && !used.has(raw) && SERVER.test(raw)) {
    if (target === 'anthropic' || (target === CANON && raw.length <= 64)) return raw;
  }
  if (target === CANON && raw && !used.has(raw) && CANON_ID.test(raw)) return raw;
  if (bug === 'per-turn-index') return `call_${pos}`;
  if (bug === 'sanitize-collide') return raw ? sanitize(raw) : `call_${pos}`;
  if (bug === 'truncate' && raw) {
    const limit = TARGETS[target][1];
    return limit === null ? raw : chars(raw).slice(0, limit).join('');
  }
  if (bug === 'random-fallback' && !valid(target, raw)) return randomId(target);
  for (let k = 0; ; k++) {
    const wire = fmt(target, digest(target, tid, pos, raw, name, k), server);
    if (!used.has(wire)) return wire;
  }
}

// The ID of one result; `paired` is the ID of the call it answers (null: orphan).
function resultId(target, bug, cid, name, paired, byName) {
  if (bug === 'name-keyed') return byName.get(name) ?? null;
  if (bug === 'asymmetric') return cid ? sanitize(cid) : null;
  if (bug === 'keep-orphans' && paired === null) return cid ? sanitize(cid) : null;
  if (bug === 'random-fallback' && paired !== null && !valid(target, cid)) return randomId(target);
  return paired;
}

// Appends call index `i` to the queue of `key` in `map` (a queue: {items, head}).
function enqueue(map, key, i) {
  let q = map.get(key);
  if (q === undefined) map.set(key, (q = { items: [], head: 0 }));
  q.items.push(i);
}

// The earliest call of queue `q` not answered yet, or undefined. Answered calls leave the queue for
// good, so every call is passed over at most once.
function earliest(q, calls) {
  if (q === undefined) return undefined;
  while (q.head < q.items.length && calls[q.items[q.head]].answered) q.head++;
  return q.items[q.head];
}

// Returns [call IDs, result IDs] for one history, in document order.
function assign(history, target, bug = null) {
  const calls = []; // per call: {name, wire, answered}
  const outCalls = [], outResults = [];
  const used = new Set();
  // The unanswered non-server calls, in order: by raw id (rule 1: any turn), and by name for the
  // most recent assistant turn (rule 2). A queue per key keeps pairing linear in the history.
  const byRaw = new Map();
  let lastTurn = new Map();
  const byName = new Map(); // only for the name-keyed defect: name -> wire ID of the last call
  (history.turns ?? []).forEach((turn, t) => {
    if (turn.role === 'assistant') {
      lastTurn = new Map();
      const key = text(turn.turn_key);
      const tid = key === null ? `i${t}` : 'k' + key;
      (turn.calls ?? []).forEach((c, pos) => {
        const raw = text(c.id), name = text(c.name), server = c.server === true;
        const wire = callId(target, bug, tid, pos, raw, name, server, used);
        used.add(wire);
        outCalls.push(wire);
        if (!server) {
          if (raw) enqueue(byRaw, raw, calls.length); // rule 1 pairs by a non-empty id only
          enqueue(lastTurn, name, calls.length);
          byName.set(name, wire);
        }
        calls.push({ name, wire, answered: false });
      });
    }
    for (const r of turn.results ?? []) {
      const cid = text(r.call_id), name = text(r.name);
      // rule 1: the earliest unanswered call with this raw id; rule 2: with this name, in the last turn
      const match = cid ? earliest(byRaw.get(cid), calls) : earliest(lastTurn.get(name), calls);
      if (match !== undefined) calls[match].answered = true;
      outResults.push(resultId(target, bug, cid, name, match === undefined ? null : calls[match].wire, byName));
    }
  });
  return [outCalls, outResults];
}

function handle(req, bug) {
  const { op, seq = null } = req;
  if (op === 'hello') {
    return { seq, protocol: 1, name: 'callsign-example-node' + (bug ? '+' + bug : ''), version: '1.0.0',
      ops: ['emit', 'canonicalize', 'normalize'], targets: Object.keys(TARGETS) };
  }
  if ((op === 'emit' || op === 'normalize') && !Object.hasOwn(TARGETS, req.target)) {
    return { seq, error: `unsupported target: ${req.target}` };
  }
  if (op === 'emit' || op === 'canonicalize') {
    const [calls, results] = op === 'emit' ? assign(req.history ?? {}, req.target, bug)
      : assign(req.history ?? {}, CANON);
    return { seq, calls, results };
  }
  if (op === 'normalize') {
    const ids = req.ids ?? [];
    if (!Array.isArray(ids)) return { seq, error: 'ids is not an array' };
    return { seq, ids: ids.map((x) => fmt(req.target, digest('normalize', req.target, text(x)))) };
  }
  return { seq, error: `unknown op: ${op}` };
}

function main(argv) {
  let bug = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--bug' && i + 1 < argv.length) bug = argv[++i];
    else if (argv[i].startsWith('--bug=')) bug = argv[i].slice('--bug='.length);
    else {
      process.stderr.write('usage: normalizer.mjs [--bug NAME]\n');
      process.exit(2);
    }
    if (!BUGS.includes(bug)) {
      process.stderr.write(`unknown --bug '${bug}' (known: ${BUGS.join(', ')})\n`);
      process.exit(2);
    }
  }
  // A write to a pipe is synchronous only while the pipe has room: once it is full (64 kB on
  // Linux), the rest of the answer waits in this process until the reader drains the pipe, and
  // process.exit() would drop it. So at `stop` and at the end of input the adapter ends stdout and
  // exits only once everything written has been flushed.
  let stopped = false;
  const finish = () => {
    if (stopped) return;
    stopped = true;
    process.stdin.pause();
    process.stdout.end((err) => process.exit(err ? 1 : 0));
  };
  process.stdout.on('error', () => process.exit(1)); // the reader went away: nobody to answer
  const answer = (parts) => {
    let req, resp;
    try {
      // A line longer than V8's longest string (2^29 - 24 UTF-16 units, about 512 MiB) cannot be
      // decoded: it is a bad request line, like one that is not JSON.
      const line = Buffer.concat(parts).toString('utf8');
      if (line.trim() === '') return;
      req = JSON.parse(line);
      if (req === null || typeof req !== 'object' || Array.isArray(req)) throw new Error('request is not an object');
    } catch (e) {
      resp = { seq: null, error: `bad request line: ${e.message}` };
    }
    if (!resp) {
      if (req.op === 'stop') {
        finish();
        return;
      }
      try {
        resp = handle(req, bug);
      } catch (e) {
        resp = { seq: req.seq ?? null, error: `${e.name}: ${e.message}` };
      }
    }
    // U+2028/U+2029 are valid in JSON but split lines in some readers: escape them.
    const out = JSON.stringify(resp).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
    process.stdout.write(out + '\n');
  };
  // Lines end at '\n' alone, as PROTOCOL.md says (readline would also end one at a bare '\r', which
  // is JSON whitespace). The bytes are split before they are decoded: a '\n' byte is never part of
  // a multi-byte UTF-8 character, and a line that spans chunks is joined once.
  let partial = []; // the chunks of the line read so far
  process.stdin.on('data', (chunk) => {
    let start = 0;
    for (let nl; !stopped && (nl = chunk.indexOf(10, start)) !== -1; start = nl + 1) {
      partial.push(chunk.subarray(start, nl));
      const parts = partial;
      partial = [];
      answer(parts);
    }
    if (!stopped && start < chunk.length) partial.push(chunk.subarray(start));
  });
  process.stdin.on('end', () => {
    if (!stopped && partial.length) answer(partial); // the last line, without its newline
    finish();
  });
}

main(process.argv.slice(2));
