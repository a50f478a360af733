/* harness/cmd_probe.c: `callsign probe`: live checks that a provider accepts what callsign's rule
 * accepts. It sends the targeted cases of PROVIDERS.md section 19, rows 1-9 and 12 (lengths,
 * empty, characters, duplicates, pairing breaks, foreign formats; rows 10-11 put text between or
 * before results, which these requests cannot carry), and histories generated and emitted through an
 * implementation, then prints an agreement table of the provider's verdict against callsign's
 * offline rule. `--discover` measures the provider's rule instead (maximum and minimum length by
 * bisection, each character class, the scope of uniqueness) and prints it beside the configured
 * rule. Requests go through providers/http.c: budget, rate limit, retries, dry run, cassettes. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/fs.h"
#include "core/utf8.h"
#include "generators/choices.h"
#include "generators/history_gen.h"
#include "harness/cli.h"
#include "harness/session.h"
#include "providers/http.h"
#include "providers/probe.h"
#include "reports/escape.h"
#include "reports/result.h"

#define DISCOVER_MAX_LEN 4096u
#define CONTROL_LEN 24u
#define PROBE_MAX_UNANSWERED 3 /* requests without any HTTP answer before the probe stops */

/* How the provider's verdict compares with callsign's offline verdict. */
typedef enum {
  AGREE_YES,      /* same verdict */
  AGREE_LOOSER,   /* callsign rejects, the provider accepts: callsign is on the safe side */
  AGREE_STRICTER, /* callsign accepts, the provider rejects: fails the probe */
  AGREE_REASON,   /* both reject, for different reasons */
  AGREE_TRANSPORT,
  AGREE_NOT_SENT,
} agreement;
static const char *const agreement_names[] = {"yes", "looser", "STRICTER", "other reason", "transport", "not sent"};

typedef struct {
  const char *name; /* stable: the reports of a recording and of its replay compare by name */
  cs_probe_pair *pairs;
  uint32_t npairs;
  bool judged; /* offline and offline_why are set */
  cs_probe_verdict offline;
  char offline_why[CS_RULE_WHY_MAX];
  bool answered; /* the provider's verdict below is real (or a transport error) */
  cs_probe_verdict provider;
  long status;
  char message[600];
  agreement agree;
} probe_case;

typedef struct {
  cs_options o;
  const cs_target *target;
  const cs_probe_spec *spec;
  unsigned endpoint;
  const char *model, *region;
  cs_buf url;
  cs_ruleset *rs;
  cs_http *http;
  cs_made made; /* directories made for the reports and the cassette: cleanup removes the empty ones */
  cs_http_header headers[8];
  size_t nheaders;
  char auth_value[4096];
  const char *aws_sigv4;
  char aws_sigv4_buf[128];
  char aws_userpwd[1024];
  cs_arena a;
  probe_case *cases;
  size_t ncases, cap;
  const char *impl_name;
  const char *impl_note; /* why generated cases were not run, or NULL */
  uint32_t control_len;
  char bad_cassette[700]; /* the first broken cassette entry met in a replay: the probe ends with exit 2 */
  char stopped[800]; /* why no request is sent any more (set-up, a rejected control, a Retry-After too long): exit 2 */
  /* Requests in a row that got no HTTP answer at all, while none ever did: a wrong --base-url or no
   * network costs a timeout per case (a minute each) unless the probe stops. */
  unsigned unanswered_in_a_row;
  bool any_http_answer;
  char impl_fault[720];  /* the first generated case the implementation did not answer */
  int impl_fault_status; /* and the exit status it gives: 1 (an error answer) or 3 */
  /* The first case on which callsign's rule gave no verdict (PCRE2 gave up): not sent, and the
   * probe ends with an input error, as the rule is at fault, not the provider. */
  char undecided[CS_RULE_WHY_MAX + 80];
} probe_ctx;

/* ---- cases ---- */

static probe_case *new_case(probe_ctx *c, const char *name, uint32_t npairs) {
  if (c->ncases == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 64;
    probe_case *n = CS_ARENA_NEW(&c->a, probe_case, cap);
    if (c->ncases)
      memcpy(n, c->cases, c->ncases * sizeof *n);
    c->cases = n;
    c->cap = cap;
  }
  probe_case *pc = &c->cases[c->ncases++];
  memset(pc, 0, sizeof *pc);
  pc->name = cs_arena_strc(&c->a, name).ptr;
  pc->pairs = CS_ARENA_NEW(&c->a, cs_probe_pair, npairs ? npairs : 1);
  pc->npairs = npairs;
  return pc;
}

static probe_case *one_id_case(probe_ctx *c, const char *name, cs_str id) {
  probe_case *pc = new_case(c, name, 1);
  pc->pairs[0] = (cs_probe_pair){.call_id = id, .result_id = id};
  return pc;
}

static cs_str make_id(probe_ctx *c, uint32_t len, uint32_t index, uint32_t salt) {
  return cs_probe_make_id(c->spec, len, index, salt, &c->a);
}

/* The control ID with its middle character replaced by `ch` (same length in code points). A Kimi
 * ID (functions.get_x:0) takes it in the middle of its tool's name, the one part whose characters
 * the rule leaves open: anywhere else it would break the fixed prefix or the index. */
static cs_str with_char(probe_ctx *c, cs_str base, const char *ch, size_t chlen) {
  size_t mid = base.len / 2;
  size_t plen = c->spec->id_prefix ? strlen(c->spec->id_prefix) : 0, nlen = strlen(CS_PROBE_TOOL);
  if (c->spec->id_index_suffix && plen >= nlen && cs_str_starts(base, c->spec->id_prefix))
    mid = plen - nlen + nlen / 2;
  char *s = cs_arena_alloc(&c->a, base.len + chlen + 1);
  memcpy(s, base.ptr, mid);
  memcpy(s + mid, ch, chlen);
  memcpy(s + mid + chlen, base.ptr + mid + 1, base.len - mid - 1);
  s[base.len - 1 + chlen] = 0;
  return (cs_str){s, base.len - 1 + chlen};
}

typedef struct {
  const char *name, *ch;
  size_t len;
} char_class;
static const char_class char_classes[] = {
    {"dash", "-", 1}, {"underscore", "_", 1}, {"dot", ".", 1},   {"colon", ":", 1},
    {"pipe", "|", 1}, {"slash", "/", 1},      {"space", " ", 1}, {"non-ascii", "\xc3\xa9", 2},
    {"nul", "\0", 1},
};
#define NCLASSES (sizeof char_classes / sizeof *char_classes)

/* ---- sending ---- */

/* Notes the first case whose offline verdict the rule could not give. */
static void note_undecided(probe_ctx *c, const probe_case *pc) {
  if (!c->undecided[0])
    snprintf(c->undecided, sizeof c->undecided, "probe: case %s: %s", pc->name, pc->offline_why);
}

/* callsign's own verdict on the case, worked out once (the pass before any request needs it too). */
static cs_probe_verdict judge_offline(probe_ctx *c, probe_case *pc) {
  if (!pc->judged) {
    cs_probe_request req = {c->model, c->endpoint, pc->pairs, pc->npairs};
    pc->offline =
        cs_probe_offline(c->rs, c->target->id, c->spec->pairing, &req, pc->offline_why, sizeof pc->offline_why);
    pc->judged = true;
  }
  return pc->offline;
}

static void run_case(probe_ctx *c, probe_case *pc) {
  cs_probe_request req = {c->model, c->endpoint, pc->pairs, pc->npairs};
  if (judge_offline(c, pc) == CS_PROBE_UNDECIDED) { /* nothing to compare the provider's verdict with */
    note_undecided(c, pc);
    pc->agree = AGREE_NOT_SENT;
    return;
  }
  if (c->stopped[0]) { /* every request would get the same answer: the budget is kept */
    pc->agree = AGREE_NOT_SENT;
    snprintf(pc->message, sizeof pc->message, "not sent: the probe stopped at an earlier answer");
    return;
  }
  cs_buf body = {0};
  c->spec->build(&req, &body);
  cs_http_request hr = {c->url.data,        c->headers,   c->nheaders,
                        cs_buf_view(&body), c->aws_sigv4, c->aws_sigv4 ? c->aws_userpwd : NULL};
  cs_http_response resp;
  cs_probe_outcome out = {0};
  switch (cs_http_send(c->http, &hr, &resp)) {
  case CS_HTTP_ANSWERED:
    c->spec->classify(resp.status, cs_buf_view(&resp.body), &out);
    pc->answered = true;
    break;
  case CS_HTTP_FAILED:
  case CS_HTTP_TOO_LARGE: /* no body to judge: transport, with the status and the cap in the message */
  case CS_HTTP_NOT_RECORDED:
    c->spec->classify(0, cs_buf_view(&resp.body), &out);
    pc->answered = true;
    break;
  default: /* not sent, or (a broken replay entry) no verdict */
    snprintf(out.message, sizeof out.message, "%s", resp.body.data ? resp.body.data : "");
    if (resp.outcome == CS_HTTP_BAD_CASSETTE && !c->bad_cassette[0])
      snprintf(c->bad_cassette, sizeof c->bad_cassette, "%s", out.message);
    break;
  }
  pc->status = resp.status;
  c->any_http_answer |= resp.outcome == CS_HTTP_ANSWERED || resp.outcome == CS_HTTP_TOO_LARGE;
  c->unanswered_in_a_row = resp.outcome == CS_HTTP_FAILED ? c->unanswered_in_a_row + 1 : 0;
  if (!c->any_http_answer && c->unanswered_in_a_row >= PROBE_MAX_UNANSWERED)
    snprintf(c->stopped, sizeof c->stopped,
             "probe: no answer to %u requests in a row (the last: %.400s): check --base-url and the network (no "
             "further request sent)",
             c->unanswered_in_a_row, out.message);
  else if (resp.wait_refused_s > 0 && !out.setup) /* every request would be refused until then */
    snprintf(c->stopped, sizeof c->stopped,
             "probe: case %s was answered HTTP %ld with Retry-After %.0f s, longer than a probe waits (%g s): "
             "no further request sent; probe again later",
             pc->name, resp.status, resp.wait_refused_s, CS_HTTP_MAX_WAIT_S);
  else if (out.setup && pc->answered)
    snprintf(c->stopped, sizeof c->stopped,
             "probe: case %s was answered %.600s: check the key, --model and --base-url (no further request sent)",
             pc->name, out.message);
  if (out.or_pairing && out.verdict == CS_PROBE_REJECTED_RULE && pc->offline == CS_PROBE_REJECTED_PAIRING)
    out.verdict = CS_PROBE_REJECTED_PAIRING; /* the text fits both; this request breaks pairing, not the rule */
  pc->provider = out.verdict;
  snprintf(pc->message, sizeof pc->message, "%s", out.message);
  if (!pc->answered)
    pc->agree = AGREE_NOT_SENT;
  else if (pc->provider == CS_PROBE_TRANSPORT)
    pc->agree = AGREE_TRANSPORT;
  else if (pc->provider == pc->offline)
    pc->agree = AGREE_YES;
  else if (pc->offline == CS_PROBE_ACCEPTED)
    pc->agree = AGREE_STRICTER;
  else if (pc->provider == CS_PROBE_ACCEPTED)
    pc->agree = AGREE_LOOSER;
  else
    pc->agree = AGREE_REASON;
  cs_http_response_free(&resp);
  cs_buf_free(&body);
}

/* 1 accepted, 0 rejected for the ID rule or pairing, -1 no verdict: transport, not sent, or a
 * rejection for another reason (a malformed request, a model error), which says nothing about the
 * ID and must not steer a bisection. */
static int accepted(const probe_case *pc) {
  if (!pc->answered || pc->provider == CS_PROBE_TRANSPORT || pc->provider == CS_PROBE_REJECTED_OTHER)
    return -1;
  return pc->provider == CS_PROBE_ACCEPTED;
}

/* Sends the control case, IDs of the provider's own form within the configured limits (PROVIDERS.md
 * section 19, row 1), and returns accepted() of it. A provider that rejects it rejects the request
 * for a reason of its own (a disabled account, a missing field, a body too large), and would reject
 * every other case alike: the probe stops there, naming the rejection, rather than draw verdicts
 * from those answers. */
static int run_control(probe_ctx *c, probe_case *pc) {
  run_case(c, pc);
  int v = accepted(pc);
  if (v == 1 || !pc->answered || pc->provider == CS_PROBE_TRANSPORT || c->stopped[0])
    return v; /* accepted, or no answer to judge: the usual transport handling applies */
  cs_buf why = {0};
  cs_buf_printf(&why,
                "probe: the control case %s (a native ID of %u characters) was rejected (HTTP %ld, %s: ", pc->name,
                c->control_len, pc->status, cs_probe_verdict_name(pc->provider));
  cs_esc_plain_cut(&why, pc->message, 400); /* the provider's text: nothing raw reaches a terminal */
  cs_buf_puts(&why, "): nothing about IDs can be measured while the provider rejects it (no further request sent)");
  size_t n = cs_utf8_clamp(why.data, why.len, sizeof c->stopped - 1); /* escapes lengthen the text */
  memcpy(c->stopped, why.data, n);
  c->stopped[n] = 0;
  cs_buf_free(&why);
  return v;
}

static int send_one_id(probe_ctx *c, const char *name, cs_str id) {
  probe_case *pc = one_id_case(c, name, id);
  run_case(c, pc);
  return accepted(pc);
}

/* ---- the targeted matrix (PROVIDERS.md section 19) ---- */

static void targeted_cases(probe_ctx *c) {
  /* Section 19's lengths, and 10000, which section 2 asks of Anthropic (no maximum seen there yet). */
  static const uint32_t lens[] = {1, 9, 40, 41, 64, 65, 128, 256, 1000, 10000};
  char name[64];
  cs_str control = make_id(c, c->control_len, 0, 1);
  one_id_case(c, "native", control); /* the first case: the probe's control (run_control) */
  for (size_t i = 0; i < sizeof lens / sizeof *lens; i++) {
    snprintf(name, sizeof name, "len.%u", lens[i]);
    one_id_case(c, name, make_id(c, lens[i], 0, 100 + (uint32_t)i));
  }
  one_id_case(c, "empty", cs_str_c(""));
  for (size_t i = 0; i < NCLASSES; i++) {
    snprintf(name, sizeof name, "char.%s", char_classes[i].name);
    one_id_case(c, name, with_char(c, control, char_classes[i].ch, char_classes[i].len));
  }
  cs_str a = make_id(c, c->control_len, 0, 2), b = make_id(c, c->control_len, 1, 3);
  probe_case *pc = new_case(c, "dup.message", 2);
  pc->pairs[0] = (cs_probe_pair){.call_id = a, .result_id = a};
  pc->pairs[1] = (cs_probe_pair){.call_id = a, .result_id = a};
  pc = new_case(c, "dup.request", 2);
  pc->pairs[0] = (cs_probe_pair){.call_id = a, .result_id = a};
  pc->pairs[1] = (cs_probe_pair){.call_id = a, .result_id = a, .message = 1};
  pc = new_case(c, "pair.orphan", 2);
  pc->pairs[0] = (cs_probe_pair){.call_id = a, .result_id = a};
  pc->pairs[1] = (cs_probe_pair){.result_id = b, .orphan = true};
  pc = new_case(c, "pair.missing", 2);
  pc->pairs[0] = (cs_probe_pair){.call_id = a, .result_id = a};
  pc->pairs[1] = (cs_probe_pair){.call_id = b, .unanswered = true};
  pc = new_case(c, "pair.mismatch", 1);
  pc->pairs[0] = (cs_probe_pair){.call_id = a, .result_id = b};
  static const struct {
    const char *name, *id;
  } foreign[] = {
      {"foreign.anthropic", "toolu_01A09q90qw90lq917835lq9"},
      {"foreign.openai", "call_qbEiQ4HdHutj0aVuIQGIKbhN"},
      {"foreign.kimi", "functions.get_x:0"},
      {"foreign.mistral", "abcDEF123"},
      {"foreign.responses_composite", "call_qbEiQ4HdHutj0aVuIQGIKbhN|fc_0417ab12cd"},
      {"foreign.bedrock", "tooluse_BBO78QZ2Q-mQxGBOlx0zFg"},
      {"foreign.adk", "adk-4f2b6c1e-5d7a-4b8e-9c3f-2a1b0c9d8e7f"},
  };
  for (size_t i = 0; i < sizeof foreign / sizeof *foreign; i++)
    one_id_case(c, foreign[i].name, cs_str_c(foreign[i].id));
}

/* ---- generated histories, emitted through the implementation ---- */

/* The request an emit answer makes: each sent call with the result that answers it (PROTOCOL.md
 * pairing) in the message right after; results answering no sent call are orphans of the latest
 * message. Server calls and dropped (null) IDs are not sent. */
static uint32_t pairs_from_answer(const cs_history *h, const cs_history_index *ix, const cs_answer *ans, cs_arena *a,
                                  cs_probe_pair **out) {
  uint32_t *turn_msg = CS_ARENA_NEW(a, uint32_t, h->nturns + 1), nmsg = 0;
  int32_t *pair_of_call = CS_ARENA_NEW(a, int32_t, ix->ncalls + 1);
  cs_probe_pair *p = CS_ARENA_NEW(a, cs_probe_pair, ix->ncalls + ix->nresults + 1);
  uint32_t n = 0, skipped = 0;
  for (uint32_t t = 0; t < h->nturns; t++)
    turn_msg[t] = UINT32_MAX;
  for (uint32_t i = 0; i < ix->ncalls; i++) {
    pair_of_call[i] = -1;
    if (!ans->calls[i].ptr)
      continue;
    if (ix->calls[i]->server) {
      skipped++; /* it had its place in the emitted request (emit.regex counts it) */
      continue;
    }
    uint32_t t = ix->call_turn[i];
    if (turn_msg[t] == UINT32_MAX)
      turn_msg[t] = nmsg++;
    pair_of_call[i] = (int32_t)n;
    p[n++] = (cs_probe_pair){.call_id = ans->calls[i], .message = turn_msg[t], .unanswered = true, .skipped = skipped};
    skipped = 0;
  }
  for (uint32_t r = 0; r < ix->nresults; r++) {
    if (!ans->results[r].ptr)
      continue;
    int32_t call = ix->pair[r];
    int32_t k = call >= 0 ? pair_of_call[call] : -1;
    if (k >= 0 && p[k].unanswered) {
      p[k].result_id = ans->results[r];
      p[k].unanswered = false;
      continue;
    }
    uint32_t m = UINT32_MAX;
    for (uint32_t t = ix->result_turn[r] + 1; t-- > 0 && m == UINT32_MAX;)
      m = turn_msg[t];
    if (m != UINT32_MAX)
      p[n++] = (cs_probe_pair){.result_id = ans->results[r], .message = m, .orphan = true};
  }
  for (uint32_t i = 1; i < n; i++) /* stable sort by message: orphans join their message */
    for (uint32_t k = i; k > 0 && p[k - 1].message > p[k].message; k--) {
      cs_probe_pair tmp = p[k];
      p[k] = p[k - 1];
      p[k - 1] = tmp;
    }
  *out = p;
  return n;
}

/* cs_fail with the keys redacted: an implementation inherits them, and its stderr, quoted in its
 * faults, may print them. */
static int probe_fail(probe_ctx *c, int status, const char *msg) {
  cs_buf why = {0};
  cs_buf_puts(&why, msg);
  if (c->http)
    cs_http_redact(c->http, &why);
  status = cs_fail(status, "%s", why.data);
  cs_buf_free(&why);
  return status;
}

/* Returns 0, or CS_EXIT_IMPL when the implementation cannot be run at all. */
static int generated_cases(probe_ctx *c) {
  uint64_t ncases = c->o.cases ? c->o.cases : 4;
  cs_err err = {{0}};
  cs_impl *impl = cs_session_open(&c->o, c->rs, c->o.impl_cmd ? NULL : c->impl_name, &err);
  if (!impl) {
    cs_err_prefix(&err, "probe");
    return probe_fail(c, CS_EXIT_IMPL, err.msg);
  }
  if (!(impl->info.ops & CS_OP_EMIT) || !(impl->info.emit_targets >> c->target->id & 1u)) {
    c->impl_note = "the implementation does not emit for this target: no generated cases";
    cs_impl_destroy(impl);
    return 0;
  }
  cs_choices ch = {0};
  cs_gen_config gc = {.max_rounds = 3, .max_calls = 3, .max_id_len = c->o.max_id_len ? c->o.max_id_len : 256};
  for (uint64_t k = 0; k < ncases; k++) {
    char name[48];
    snprintf(name, sizeof name, "gen.%llu", (unsigned long long)k);
    cs_choices_record(&ch, cs_seed_mix(c->o.seed * 0x9E3779B97F4A7C15ULL + k));
    cs_gen_case g;
    cs_gen_history(&ch, &gc, &c->a, &g);
    cs_request rq = {.op = CS_OP_EMIT, .target = c->target->id, .history = &g.h};
    cs_reply rep;
    memset(&rep, 0, sizeof rep);
    if (cs_impl_exec(impl, &rq, &rep, 1, &c->a, &err)) {
      cs_choices_free(&ch);
      cs_impl_destroy(impl);
      cs_err_prefix(&err, "probe");
      return probe_fail(c, CS_EXIT_IMPL, err.msg);
    }
    if (rep.status != CS_REPLY_OK) {
      probe_case *pc = new_case(c, name, 0);
      snprintf(pc->message, sizeof pc->message, "implementation %s: %.*s", cs_reply_status_name(rep.status),
               (int)(rep.message.len < 400 ? rep.message.len : 400), rep.message.ptr ? rep.message.ptr : "");
      pc->agree = AGREE_NOT_SENT;
      if (!c->impl_fault[0]) {
        snprintf(c->impl_fault, sizeof c->impl_fault, "probe: the implementation did not answer case %.40s: %.600s",
                 name, pc->message);
        /* as in run: an error answer is a failed case (1); a crash, a hang or garbage, exit 3 */
        c->impl_fault_status = rep.status == CS_REPLY_REJECTED ? CS_EXIT_FAIL : CS_EXIT_IMPL;
      }
      continue;
    }
    cs_history_index ix;
    cs_history_index_build(&g.h, &c->a, &ix);
    cs_probe_pair *pairs;
    uint32_t n = pairs_from_answer(&g.h, &ix, &rep.answer, &c->a, &pairs);
    if (!n)
      continue; /* nothing to send: no call survived */
    probe_case *pc = new_case(c, name, 0);
    pc->pairs = pairs;
    pc->npairs = n;
  }
  cs_choices_free(&ch);
  cs_impl_destroy(impl);
  return 0;
}

/* ---- discovery ---- */

typedef struct {
  bool control_ok;
  int64_t max_len; /* -1 inconclusive, 0 none up to DISCOVER_MAX_LEN */
  int64_t min_len; /* -1 inconclusive */
  int empty;       /* 1 accepted, 0 rejected, -1 inconclusive */
  int chars[NCLASSES];
  int dup_message, dup_request;
  int configured_chars[NCLASSES];
  int configured_empty;
} discovery;

/* The edge between accepted and rejected ID lengths in (lo, hi), one request per step. With
 * accepted_below, lo is accepted and hi rejected, and the result is the longest accepted length;
 * otherwise the other way round, and it is the shortest accepted one. -1 if a request was
 * inconclusive or the range is empty. */
static int64_t bisect_length(probe_ctx *c, uint32_t lo, uint32_t hi, bool accepted_below, uint32_t *salt) {
  if (hi <= lo)
    return -1; /* the two ends answered against their order: nothing to bisect */
  char name[64];
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    snprintf(name, sizeof name, "len.%u", mid);
    int v = send_one_id(c, name, make_id(c, mid, 0, (*salt)++));
    if (v < 0)
      return -1;
    *((v == 1) == accepted_below ? &lo : &hi) = mid;
  }
  return accepted_below ? lo : hi;
}

static void discover(probe_ctx *c, discovery *d) {
  memset(d, 0, sizeof *d);
  d->max_len = d->min_len = -1;
  d->empty = d->dup_message = d->dup_request = -1;
  for (size_t i = 0; i < NCLASSES; i++)
    d->chars[i] = -1;
  char name[64];
  uint32_t salt = 1000, L = c->control_len;
  cs_str control = make_id(c, L, 0, salt++);
  /* The configured rule's answers first: one it cannot give ends the discovery before any request. */
  char why[CS_RULE_WHY_MAX];
  for (size_t i = 0; i <= NCLASSES; i++) {
    cs_str id = i < NCLASSES ? with_char(c, control, char_classes[i].ch, char_classes[i].len) : cs_str_c("");
    cs_rule_verdict v = cs_rule_check(c->rs, c->target->id, id, 0, false, why, sizeof why);
    if (v == CS_RULE_UNDECIDED) {
      snprintf(c->undecided, sizeof c->undecided, "probe: %s", why);
      return;
    }
    *(i < NCLASSES ? &d->configured_chars[i] : &d->configured_empty) = v == CS_RULE_MET;
  }
  d->control_ok = run_control(c, one_id_case(c, "control", control)) == 1;
  if (!d->control_ok)
    return;
  /* Maximum: the first rejected length above the control, found by bisection. */
  snprintf(name, sizeof name, "len.%u", DISCOVER_MAX_LEN);
  int top = send_one_id(c, name, make_id(c, DISCOVER_MAX_LEN, 0, salt++));
  if (top == 1) {
    d->max_len = 0;
  } else if (top == 0) {
    d->max_len = bisect_length(c, L, DISCOVER_MAX_LEN, true, &salt); /* L accepted, the top rejected */
  }
  /* Minimum: the first accepted length from 1 up to the control. */
  int one = L > 1 ? send_one_id(c, "len.1", make_id(c, 1, 0, salt++)) : 1;
  if (one == 1) {
    d->min_len = 1;
  } else if (one == 0) {
    d->min_len = bisect_length(c, 1, L, false, &salt); /* 1 rejected, L accepted */
  }
  d->empty = send_one_id(c, "empty", cs_str_c(""));
  for (size_t i = 0; i < NCLASSES; i++) {
    snprintf(name, sizeof name, "char.%s", char_classes[i].name);
    cs_str id = with_char(c, control, char_classes[i].ch, char_classes[i].len);
    d->chars[i] = send_one_id(c, name, id);
  }
  cs_str a = make_id(c, L, 0, salt++);
  probe_case *pc = new_case(c, "dup.message", 2);
  pc->pairs[0] = (cs_probe_pair){.call_id = a, .result_id = a};
  pc->pairs[1] = (cs_probe_pair){.call_id = a, .result_id = a};
  run_case(c, pc);
  d->dup_message = accepted(pc);
  pc = new_case(c, "dup.request", 2);
  pc->pairs[0] = (cs_probe_pair){.call_id = a, .result_id = a};
  pc->pairs[1] = (cs_probe_pair){.call_id = a, .result_id = a, .message = 1};
  run_case(c, pc);
  d->dup_request = accepted(pc);
}

static const char *yesno(int v) {
  return v < 0 ? "inconclusive" : v ? "accepted" : "rejected";
}

static const char *unique_scope(int dup_message, int dup_request) {
  if (dup_message < 0 || dup_request < 0)
    return "inconclusive";
  if (!dup_message && !dup_request)
    return "per request";
  if (!dup_message)
    return "per message";
  if (!dup_request)
    return "across messages only";
  return "not checked";
}

static void len_text(char *out, size_t n, int64_t v, bool is_max) {
  if (v < 0)
    snprintf(out, n, "inconclusive");
  else if (v == 0 && is_max)
    snprintf(out, n, "none up to %u", DISCOVER_MAX_LEN);
  else
    snprintf(out, n, "%lld", (long long)v);
}

/* The last column of a discovery row: nothing when the observation is the configured rule's,
 * "differs" when it is not, and "not measured" when no answer gave it (inconclusive): a property
 * nothing measured is no disagreement. */
static const char *compared(bool measured, bool same) {
  return !measured ? "  not measured" : same ? "" : "  differs";
}

static void print_discovery(probe_ctx *c, const discovery *d, cs_buf *b) {
  const cs_rule *r = cs_ruleset_rule(c->rs, c->target->id);
  cs_buf_printf(b, "\nRule observed for %s (%s, model ", c->target->name, c->spec->endpoints[c->endpoint].name);
  cs_esc_plain(b, c->model, strlen(c->model), false); /* as given: nothing raw reaches a terminal */
  cs_buf_puts(b, ") beside the configured rule\n\n");
  if (c->o.dry_run) { /* the control went unsent by design: no failure to report */
    cs_buf_puts(b, "  dry run: the request printed is the control, the first discovery sends; it picks each next\n"
                   "  request from the answers before it (bisection), so none of them can be printed in advance\n");
    return;
  }
  if (!d->control_ok) {
    const probe_case *ctl = &c->cases[0];
    cs_buf_printf(b, "  the control request (a native ID of %u characters) was not accepted: %s%s", c->control_len,
                  ctl->answered ? cs_probe_verdict_name(ctl->provider) : "",
                  ctl->answered && ctl->message[0] ? ": " : "");
    cs_esc_plain_cut(b, ctl->message, sizeof ctl->message); /* the provider's text: nothing raw reaches a terminal */
    cs_buf_putc(b, '\n');
    cs_buf_puts(b, "  nothing can be measured without an accepted control\n");
    return;
  }
  char obs[64], conf[64];
  cs_buf_printf(b, "  %-26s %-22s %-22s\n", "property", "observed", "configured");
  len_text(obs, sizeof obs, d->max_len, true);
  if (r->max_len)
    snprintf(conf, sizeof conf, "%u", r->max_len);
  else
    snprintf(conf, sizeof conf, "none");
  bool same = (d->max_len == 0 && !r->max_len) || (d->max_len > 0 && d->max_len == (int64_t)r->max_len);
  cs_buf_printf(b, "  %-26s %-22s %-22s%s\n", "maximum length", obs, conf, compared(d->max_len >= 0, same));
  len_text(obs, sizeof obs, d->min_len, false);
  snprintf(conf, sizeof conf, "%u", r->min_len ? r->min_len : 1);
  cs_buf_printf(b, "  %-26s %-22s %-22s%s\n", "minimum length", obs, conf,
                compared(d->min_len >= 0, d->min_len == (int64_t)(r->min_len ? r->min_len : 1)));
  cs_buf_printf(b, "  %-26s %-22s %-22s%s\n", "empty ID", yesno(d->empty), yesno(d->configured_empty),
                compared(d->empty >= 0, d->empty == d->configured_empty));
  for (size_t i = 0; i < NCLASSES; i++) {
    char label[40];
    snprintf(label, sizeof label, "character %s", char_classes[i].name);
    cs_buf_printf(b, "  %-26s %-22s %-22s%s\n", label, yesno(d->chars[i]), yesno(d->configured_chars[i]),
                  compared(d->chars[i] >= 0, d->chars[i] == d->configured_chars[i]));
  }
  const char *scope = unique_scope(d->dup_message, d->dup_request);
  cs_buf_printf(b, "  %-26s %-22s %-22s%s\n", "uniqueness", scope, "per request",
                compared(strcmp(scope, "inconclusive"), !strcmp(scope, "per request")));
  cs_buf_printf(b, "\n  configured pattern: %s\n", r->pattern ? r->pattern : "(none)");
}

/* ---- reports ---- */

/* The rows --quiet keeps: the failures (STRICTER, transport), the provider accepting what
 * callsign rejects and the two rejecting for different reasons, so that the summary's counts of
 * them come with the cases named. */
static const bool quiet_rows[AGREE_NOT_SENT + 1] = {
    [AGREE_LOOSER] = true, [AGREE_STRICTER] = true, [AGREE_REASON] = true, [AGREE_TRANSPORT] = true};

static void print_table(probe_ctx *c, cs_buf *b) {
  bool quiet = c->o.quiet;
  size_t rows = 0;
  for (size_t i = 0; i < c->ncases; i++)
    rows += !quiet || quiet_rows[c->cases[i].agree];
  if (!quiet) {
    /* The model and the implementation's program as given: escaped, nothing raw reaches a terminal. */
    cs_buf_printf(b, "callsign probe: %s (%s), model ", c->target->name, c->spec->endpoints[c->endpoint].name);
    cs_esc_plain(b, c->model, strlen(c->model), false);
    cs_buf_printf(b, ", %s\n", c->url.data);
    if (!c->o.discover) {
      cs_buf_puts(b, "implementation: ");
      cs_esc_plain(b, c->impl_name, strlen(c->impl_name), false);
      cs_buf_printf(b, "%s%s\n", c->impl_note ? "; " : "", c->impl_note ? c->impl_note : "");
    }
    cs_buf_putc(b, '\n');
  } else if (!rows) {
    return;
  }
  cs_buf_printf(b, "  %-30s %-17s %-17s %-12s %s\n", "case", "callsign", "provider", "agree", "provider message");
  for (size_t i = 0; i < c->ncases; i++) {
    const probe_case *pc = &c->cases[i];
    if (quiet && !quiet_rows[pc->agree])
      continue;
    cs_buf_printf(b, "  %-30s %-17s %-17s %-12s ", pc->name, pc->npairs ? cs_probe_verdict_name(pc->offline) : "-",
                  pc->answered ? cs_probe_verdict_name(pc->provider) : "-", agreement_names[pc->agree]);
    cs_esc_plain_cut(b, pc->message, 160); /* the provider's text: whole characters, nothing raw */
    cs_buf_putc(b, '\n');
  }
}

static void summary_counts(const probe_ctx *c, size_t n[6]) {
  memset(n, 0, 6 * sizeof *n);
  for (size_t i = 0; i < c->ncases; i++)
    n[c->cases[i].agree]++;
}

static void print_summary(probe_ctx *c, cs_buf *b) {
  size_t n[6];
  summary_counts(c, n);
  cs_buf_printf(b,
                "\n%zu cases: %zu agree, %zu looser (the provider accepts what callsign rejects), %zu stricter (the "
                "provider rejects what callsign accepts), %zu other reason, %zu transport, %zu not sent\n",
                c->ncases, n[AGREE_YES], n[AGREE_LOOSER], n[AGREE_STRICTER], n[AGREE_REASON], n[AGREE_TRANSPORT],
                n[AGREE_NOT_SENT]);
  if (c->o.replay_dir)
    cs_buf_printf(b, "requests: %u replayed from %s, none sent\n", cs_http_exchanges(c->http), c->o.replay_dir);
  else if (c->o.dry_run)
    cs_buf_printf(b, "requests: %u printed, none sent (dry run)\n", cs_http_exchanges(c->http));
  else
    cs_buf_printf(b, "requests: %u sent (budget %u)\n", cs_http_sent(c->http), c->o.max_requests);
}

static const char *disc_json(int v) {
  return v < 0 ? "inconclusive" : v ? "accepted" : "rejected";
}

/* IDs are written by cs_buf_json_str: cJSON strings would end at a NUL byte. */
static cJSON *id_json(cs_str id) {
  cs_buf b = {0};
  cs_buf_json_str(&b, id);
  cJSON *j = cJSON_CreateRaw(b.data);
  cs_buf_free(&b);
  return j;
}

static cJSON *report_json(probe_ctx *c, const discovery *d) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "schema", "callsign-probe/1");
  cJSON_AddStringToObject(root, "tool_version", CS_VERSION);
  cJSON_AddStringToObject(root, "provider", c->target->name);
  cJSON_AddStringToObject(root, "endpoint", c->spec->endpoints[c->endpoint].name);
  cJSON_AddStringToObject(root, "model", c->model);
  cJSON_AddStringToObject(root, "mode", c->o.discover ? "discover" : "probe");
  if (!c->o.discover)
    cJSON_AddStringToObject(root, "implementation", c->impl_name);
  cJSON *cases = cJSON_AddArrayToObject(root, "cases");
  for (size_t i = 0; i < c->ncases; i++) {
    const probe_case *pc = &c->cases[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", pc->name);
    cJSON *calls = cJSON_AddArrayToObject(o, "calls"), *results = cJSON_AddArrayToObject(o, "results");
    for (uint32_t k = 0; k < pc->npairs; k++) {
      const cs_probe_pair *p = &pc->pairs[k];
      if (!p->orphan) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "message", p->message);
        cJSON_AddItemToObject(e, "id", id_json(p->call_id));
        cJSON_AddItemToArray(calls, e);
      }
      if (!p->unanswered) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "message", p->message);
        cJSON_AddItemToObject(e, "id", id_json(p->result_id));
        cJSON_AddItemToArray(results, e);
      }
    }
    cJSON_AddStringToObject(o, "callsign", pc->npairs ? cs_probe_verdict_name(pc->offline) : "-");
    cJSON_AddStringToObject(o, "callsign_reason", pc->offline_why);
    cJSON_AddStringToObject(o, "provider", pc->answered ? cs_probe_verdict_name(pc->provider) : "-");
    cJSON_AddNumberToObject(o, "status", (double)pc->status);
    cJSON_AddStringToObject(o, "message", pc->message);
    cJSON_AddStringToObject(o, "agree", agreement_names[pc->agree]);
    cJSON_AddItemToArray(cases, o);
  }
  size_t n[6];
  summary_counts(c, n);
  cJSON *s = cJSON_AddObjectToObject(root, "summary");
  cJSON_AddNumberToObject(s, "cases", (double)c->ncases);
  for (int k = 0; k < 6; k++)
    cJSON_AddNumberToObject(s, agreement_names[k], (double)n[k]);
  if (c->o.discover) {
    const cs_rule *r = cs_ruleset_rule(c->rs, c->target->id);
    cJSON *o = cJSON_AddObjectToObject(root, "discovered");
    cJSON_AddBoolToObject(o, "control_accepted", d->control_ok);
    if (d->max_len < 0)
      cJSON_AddStringToObject(o, "max_len", "inconclusive");
    else if (d->max_len == 0)
      cJSON_AddNullToObject(o, "max_len");
    else
      cJSON_AddNumberToObject(o, "max_len", (double)d->max_len);
    cJSON_AddNumberToObject(o, "max_len_probed", DISCOVER_MAX_LEN);
    if (d->min_len < 0)
      cJSON_AddStringToObject(o, "min_len", "inconclusive");
    else
      cJSON_AddNumberToObject(o, "min_len", (double)d->min_len);
    cJSON_AddStringToObject(o, "empty", disc_json(d->empty));
    cJSON *chars = cJSON_AddObjectToObject(o, "chars");
    for (size_t i = 0; i < NCLASSES; i++)
      cJSON_AddStringToObject(chars, char_classes[i].name, disc_json(d->chars[i]));
    cJSON_AddStringToObject(o, "unique", unique_scope(d->dup_message, d->dup_request));
    cJSON *conf = cJSON_AddObjectToObject(root, "configured");
    if (r->max_len)
      cJSON_AddNumberToObject(conf, "max_len", r->max_len);
    else
      cJSON_AddNullToObject(conf, "max_len");
    cJSON_AddNumberToObject(conf, "min_len", r->min_len);
    if (r->pattern)
      cJSON_AddStringToObject(conf, "pattern", r->pattern);
    else
      cJSON_AddNullToObject(conf, "pattern");
    cJSON *cc = cJSON_AddObjectToObject(conf, "chars");
    for (size_t i = 0; i < NCLASSES; i++)
      cJSON_AddStringToObject(cc, char_classes[i].name, disc_json(d->configured_chars[i]));
    cJSON_AddStringToObject(conf, "unique", "per request");
  }
  return root;
}

static void markdown(probe_ctx *c, const discovery *d, cs_buf *b) {
  cs_buf_printf(b, "## callsign probe: %s (%s), model ", c->target->name, c->spec->endpoints[c->endpoint].name);
  cs_esc_md_inline(b, c->model, strlen(c->model));
  cs_buf_puts(b, "\n\n");
  cs_buf_puts(b, "| case | callsign | provider | agree | provider message |\n|---|---|---|---|---|\n");
  for (size_t i = 0; i < c->ncases; i++) {
    const probe_case *pc = &c->cases[i];
    cs_buf_printf(b, "| %s | %s | %s | %s | ", pc->name, pc->npairs ? cs_probe_verdict_name(pc->offline) : "-",
                  pc->answered ? cs_probe_verdict_name(pc->provider) : "-", agreement_names[pc->agree]);
    /* The provider's text, whole characters: no Markdown or HTML of its own, and the table stays a table. */
    cs_esc_md_inline(b, pc->message, cs_esc_cut(pc->message, strlen(pc->message), 200));
    cs_buf_puts(b, " |\n");
  }
  /* The terminal's closing lines as they are: the observed rule beside the configured one
   * (--discover) and the summary, in a fence longer than any run of backticks they hold. */
  cs_buf plain = {0};
  if (c->o.discover)
    print_discovery(c, d, &plain);
  print_summary(c, &plain);
  size_t longest = plain.data ? cs_esc_backtick_run(plain.data, plain.len) : 0;
  cs_buf fence = {0};
  for (size_t i = 0; i < (longest < 3 ? 3 : longest + 1); i++)
    cs_buf_putc(&fence, '`');
  cs_buf_printf(b, "\n%s\n", fence.data);
  cs_buf_put(b, plain.data, plain.len);
  cs_buf_printf(b, "%s%s\n", plain.len && plain.data[plain.len - 1] == '\n' ? "" : "\n", fence.data);
  cs_buf_free(&fence);
  cs_buf_free(&plain);
}

static int write_file(probe_ctx *c, const char *path, cs_buf *text) {
  cs_http_redact(c->http, text);
  cs_err err;
  if (cs_write_file(path, text->data, text->len, &err))
    return cs_fail(CS_EXIT_USAGE, "%s", err.msg);
  return 0;
}

static int write_reports(probe_ctx *c, const discovery *d) {
  size_t nf;
  const cs_report_format *f = cs_report_formats(&nf);
  int status = 0;
  for (size_t i = 0; i < nf && i < 8; i++) {
    if (!c->o.report[i])
      continue;
    cs_buf text = {0};
    if (!strcmp(f[i].name, "json")) {
      cJSON *j = report_json(c, d);
      if (cs_json_text(&text, j)) /* out of memory: as before, an empty object */
        cs_buf_puts(&text, "{}\n");
      cJSON_Delete(j);
    } else {
      markdown(c, d, &text);
    }
    if (write_file(c, c->o.report[i], &text))
      status = CS_EXIT_USAGE;
    cs_buf_free(&text);
  }
  return status;
}

/* ---- set-up ---- */

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

static void add_header(probe_ctx *c, const char *name, const char *value, bool secret) {
  if (c->nheaders < sizeof c->headers / sizeof *c->headers)
    c->headers[c->nheaders++] =
        (cs_http_header){cs_arena_strc(&c->a, name).ptr, cs_arena_strc(&c->a, value).ptr, secret};
}

/* A key with a space, a control character (a line end pasted with it, most often) or a byte past
 * ASCII would end the header early, add one of its own, or be altered on its way into a report,
 * where its redaction would then miss it: refused, not sent. No provider issues such keys. */
static bool unsendable(const char *v) {
  for (const unsigned char *p = (const unsigned char *)v; v && *p; p++)
    if (*p <= 0x20 || *p >= 0x7f)
      return true;
  return false;
}

/* The key variable `name` as it will be used: NULL when unset; its name in `which` and -2 in *bad
 * when it cannot be sent. */
static const char *key_of(const char *name, cs_buf *which, int *bad) {
  const char *v = env(name);
  if (v && unsendable(v) && !*bad) {
    cs_buf_puts(which, name);
    *bad = -2;
  }
  return v;
}

/* The key from the environment into the headers (or SigV4). 0; -1 when no key is set (`which`
 * lists the variables); -2 when the one that would be used cannot be sent (`which` names it). Only
 * the variables used are checked: the first key set, or the AWS pair and its session token. */
static int authenticate(probe_ctx *c, cs_buf *which) {
  const cs_probe_spec *s = c->spec;
  int bad = 0;
  for (int i = 0; i < 3 && s->key_env[i]; i++) {
    const char *key = key_of(s->key_env[i], which, &bad);
    if (!key)
      continue;
    if (bad)
      return bad;
    if (strlen(key) < CS_HTTP_SHORT_SECRET) /* cs_http_add_secret takes it for a placeholder */
      fprintf(stderr, "callsign: note: %s is shorter than %d bytes: taken for a placeholder, not redacted\n",
              s->key_env[i], CS_HTTP_SHORT_SECRET);
    if (s->auth == CS_PROBE_AUTH_HEADER) {
      add_header(c, s->auth_header, key, true);
    } else {
      snprintf(c->auth_value, sizeof c->auth_value, "Bearer %s", key);
      add_header(c, "authorization", c->auth_value, true);
      cs_http_add_secret(c->http, key);
    }
    cs_http_add_secret(c->http, key);
    return 0;
  }
  if (s->auth == CS_PROBE_AUTH_AWS && env("AWS_ACCESS_KEY_ID") && env("AWS_SECRET_ACCESS_KEY")) {
    key_of("AWS_ACCESS_KEY_ID", which, &bad);
    key_of("AWS_SECRET_ACCESS_KEY", which, &bad);
    key_of("AWS_SESSION_TOKEN", which, &bad);
    if (bad)
      return bad;
    snprintf(c->aws_sigv4_buf, sizeof c->aws_sigv4_buf, "aws:amz:%s:bedrock", c->region);
    c->aws_sigv4 = c->aws_sigv4_buf;
    snprintf(c->aws_userpwd, sizeof c->aws_userpwd, "%s:%s", env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"));
    cs_http_add_secret(c->http, env("AWS_ACCESS_KEY_ID"));
    cs_http_add_secret(c->http, env("AWS_SECRET_ACCESS_KEY"));
    if (env("AWS_SESSION_TOKEN"))
      add_header(c, "x-amz-security-token", env("AWS_SESSION_TOKEN"), true);
    return 0;
  }
  for (int i = 0; i < 3 && s->key_env[i]; i++)
    cs_buf_printf(which, "%s%s", i ? " or " : "", s->key_env[i]);
  if (s->auth == CS_PROBE_AUTH_AWS)
    cs_buf_puts(which, ", or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
  return -1;
}

/* Every provider key in the environment is redacted, not only the one sent: an implementation or
 * a gateway may print any of them, and they end up in messages, reports and cassettes. */
static void redact_other_keys(probe_ctx *c) {
  const char *k;
  for (size_t i = 0; (k = cs_probe_key_env_at(i)); i++)
    if (env(k))
      cs_http_add_secret(c->http, env(k));
}

/* "P" or "P:ENDPOINT" (anthropic:messages). */
static int parse_provider(probe_ctx *c, const char *arg) {
  char name[64];
  const char *colon = strchr(arg, ':');
  size_t n = colon ? (size_t)(colon - arg) : strlen(arg);
  if (n >= sizeof name)
    n = sizeof name - 1;
  memcpy(name, arg, n);
  name[n] = 0;
  int t = cs_target_parse(name);
  if (t < 0)
    return cs_fail(CS_EXIT_USAGE, "probe: unknown provider '%s' (one of the targets of callsign list)", name);
  c->target = cs_target_get((cs_target_id)t);
  c->spec = c->target->probe;
  if (!c->spec)
    return cs_fail(CS_EXIT_USAGE, "probe: provider '%s' has no live probe", name);
  c->endpoint = 0;
  if (colon) {
    unsigned e = 0;
    while (e < c->spec->nendpoints && strcmp(c->spec->endpoints[e].name, colon + 1))
      e++;
    if (e == c->spec->nendpoints) {
      cs_buf list = {0};
      for (unsigned k = 0; k < c->spec->nendpoints; k++)
        cs_buf_printf(&list, "%s%s", k ? ", " : "", c->spec->endpoints[k].name);
      int rc = cs_fail(CS_EXIT_USAGE, "probe: %s has no endpoint '%s' (%s)", name, colon + 1, list.data);
      cs_buf_free(&list);
      return rc;
    }
    c->endpoint = e;
  }
  return 0;
}

/* More generated cases than any budget sends would only fill memory. */
#define PROBE_MAX_CASES 10000

static int check_options(probe_ctx *c) {
  if (!c->o.provider)
    return cs_fail(CS_EXIT_USAGE, "probe: give --provider P (anthropic, openai_chat, openai_responses, mistral, kimi, "
                                  "gemini, bedrock; anthropic:messages for the messages endpoint)");
  if (c->o.npositional)
    return cs_fail(CS_EXIT_USAGE, "probe: unexpected argument '%s'", c->o.positional[0]);
  if (c->o.impl_cmd && c->o.nimpls)
    return cs_fail(CS_EXIT_USAGE, "probe: give --impl or --impl-cmd, not both");
  if (c->o.nimpls > 1 || (c->o.nimpls == 1 && !strcmp(c->o.impls[0], "all")))
    return cs_fail(CS_EXIT_USAGE, "probe: give one implementation (--impl NAME)");
  if (c->o.targets || c->o.nonly || c->o.time_s)
    return cs_fail(CS_EXIT_USAGE, "probe: --target, --property and --time do not apply (the provider is --provider)");
  /* --discover measures the provider alone: what it would ignore is refused, not dropped unseen. */
  if (c->o.discover &&
      (c->o.impl_cmd || c->o.nimpls || c->o.cases || c->o.seed_set || c->o.max_id_len || c->o.deadline_ms))
    return cs_fail(CS_EXIT_USAGE, "probe: --discover measures the provider alone: --impl, --impl-cmd, --cases, "
                                  "--seed, --max-id-len and --deadline do not apply");
  if (c->o.record_dir && c->o.replay_dir)
    return cs_fail(CS_EXIT_USAGE, "probe: give --record or --replay, not both");
  if (c->o.dry_run && (c->o.record_dir || c->o.replay_dir))
    return cs_fail(CS_EXIT_USAGE, "probe: --dry-run sends nothing, so it neither records nor replays");
  size_t nf;
  const cs_report_format *f = cs_report_formats(&nf);
  for (size_t i = 0; i < nf && i < 8; i++)
    if (c->o.report[i] && strcmp(f[i].name, "json") && strcmp(f[i].name, "markdown"))
      return cs_fail(CS_EXIT_USAGE, "probe: --%s is not available for probes (use --json or --markdown)", f[i].name);
  cs_err err = {{0}};
  if (c->o.base_url && cs_http_check_base_url(c->o.base_url, &err))
    return cs_fail(CS_EXIT_USAGE, "probe: %s", err.msg);
  if (c->o.cases > PROBE_MAX_CASES)
    return cs_fail(CS_EXIT_USAGE, "probe: --cases %llu: at most %d (only --max-requests of them can be sent)",
                   (unsigned long long)c->o.cases, PROBE_MAX_CASES);
  return 0;
}

int cs_cmd_probe(int argc, char **argv) {
  probe_ctx c;
  memset(&c, 0, sizeof c);
  cs_err err = {{0}};
  discovery d;
  memset(&d, 0, sizeof d);
  int status = CS_EXIT_USAGE;
  bool curl_ready = false;
  cs_buf out = {0}, which = {0};
  if (cs_options_parse(&c.o, argc, argv, 2, CS_CMD_PROBE, &err)) {
    cs_fail(CS_EXIT_USAGE, "%s", err.msg);
    goto cleanup;
  }
  if (check_options(&c) || parse_provider(&c, c.o.provider))
    goto cleanup;
  if (!c.o.max_requests)
    c.o.max_requests = 50;
  c.impl_name = c.o.impl_cmd ? (c.o.impl_cmd[0] ? c.o.impl_cmd[0] : "?") : c.o.nimpls ? c.o.impls[0] : "reference";
  if (!c.o.impl_cmd && !cs_builtin_find(c.impl_name)) {
    cs_fail(CS_EXIT_USAGE, "unknown implementation '%s' (see callsign list)", c.impl_name);
    goto cleanup;
  }
  if (!(c.rs = cs_cli_ruleset(&c.o, &err))) {
    cs_fail(CS_EXIT_USAGE, "%s", err.msg);
    goto cleanup;
  }
  c.model = c.o.model ? c.o.model : c.spec->model;
  /* In a URL path (Bedrock, Gemini) "." and ".." are dot segments: curl would drop them, and send
   * the request to another path than the one printed. */
  if (!strcmp(c.model, ".") || !strcmp(c.model, "..")) {
    cs_fail(CS_EXIT_USAGE, "probe: --model '%s' is not a model name", c.model);
    goto cleanup;
  }
  c.region = env("AWS_REGION")           ? env("AWS_REGION")
             : env("AWS_DEFAULT_REGION") ? env("AWS_DEFAULT_REGION")
                                         : "us-east-1";
  /* The region becomes part of the host name (bedrock-runtime.REGION.amazonaws.com): one that is
   * not a region name would send the request, and the key, elsewhere. */
  if (c.target->id == CS_PROV_BEDROCK &&
      (!*c.region || strlen(c.region) > 32 ||
       strspn(c.region, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(c.region))) {
    cs_fail(CS_EXIT_USAGE, "probe: AWS_REGION '%.40s' is not a region name (letters, digits and '-', as eu-west-1)",
            c.region);
    goto cleanup;
  }
  cs_probe_url(c.spec, c.o.base_url ? c.o.base_url : c.spec->base_url, c.region, c.endpoint, c.model, &c.url);
  /* The control ID: 24 characters, within the configured length limits. */
  const cs_rule *rule = cs_ruleset_rule(c.rs, c.target->id);
  c.control_len = CONTROL_LEN;
  if (rule->max_len && c.control_len > rule->max_len)
    c.control_len = rule->max_len;
  if (c.control_len < rule->min_len)
    c.control_len = rule->min_len;
  if (!c.control_len)
    c.control_len = 1;
  /* Kimi's native ID is functions.{name}:{index}: filler would change the function's name, which
   * self-hosted parsers read back from the ID. */
  if (c.spec->id_index_suffix && c.spec->id_prefix)
    c.control_len = (uint32_t)strlen(c.spec->id_prefix) + 2;

  /* libcurl's global set-up, once, while the process has one thread (see providers/http.h). */
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    cs_fail(CS_EXIT_USAGE, "probe: libcurl cannot start");
    goto cleanup;
  }
  curl_ready = true;
  cs_http_config hc = {.max_requests = c.o.max_requests,
                       .rate = c.o.rate,
                       .record_dir = c.o.record_dir,
                       .made = &c.made,
                       .replay_dir = c.o.replay_dir,
                       .dry_run = c.o.dry_run};
  if (!(c.http = cs_http_new(&hc, &err))) {
    cs_fail(CS_EXIT_USAGE, "probe: %s", err.msg);
    goto cleanup;
  }
  add_header(&c, "content-type", "application/json", false);
  for (int i = 0; i < 3 && c.spec->headers[i]; i++) {
    const char *colon = strchr(c.spec->headers[i], ':');
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(colon - c.spec->headers[i]), c.spec->headers[i]);
    add_header(&c, name, colon + 2, false);
  }
  int auth = authenticate(&c, &which);
  redact_other_keys(&c);
  /* a dry run shows the requests a run would send: one with a key that cannot be sent is refused */
  if ((auth == -2 && !c.o.replay_dir) || (auth && !c.o.replay_dir && !c.o.dry_run)) {
    if (auth == -2)
      cs_fail(CS_EXIT_USAGE,
              "probe: %s holds a space, a control character or a byte past ASCII (a line end pasted with the key?)",
              which.data);
    else
      cs_fail(CS_EXIT_USAGE, "probe: set %s (or use --replay DIR)", which.data);
    goto cleanup;
  }
  if (cs_options_prepare_reports(&c.o, &c.made, &err)) {
    cs_fail(CS_EXIT_USAGE, "%s", err.msg);
    goto cleanup;
  }

  if (c.o.discover) {
    discover(&c, &d);
  } else {
    targeted_cases(&c);
    if ((status = generated_cases(&c)))
      goto cleanup;
    /* Every offline verdict before the first request: one the rule cannot give costs none. */
    for (size_t i = 0; i < c.ncases && !c.undecided[0]; i++)
      if (c.cases[i].npairs && judge_offline(&c, &c.cases[i]) == CS_PROBE_UNDECIDED)
        note_undecided(&c, &c.cases[i]);
    if (c.undecided[0]) {
      status = cs_fail(CS_EXIT_USAGE, "%s", c.undecided);
      goto cleanup;
    }
    run_control(&c, &c.cases[0]); /* "native" */
    for (size_t i = 1; i < c.ncases; i++)
      if (c.cases[i].npairs)
        run_case(&c, &c.cases[i]);
  }
  if (c.bad_cassette[0]) { /* a broken recording is an input error, not a transport failure */
    status = cs_fail(CS_EXIT_USAGE, "%s", c.bad_cassette);
    goto cleanup;
  }
  if (c.o.discover && c.undecided[0] && !c.ncases) { /* refused before any request */
    status = cs_fail(CS_EXIT_USAGE, "%s", c.undecided);
    goto cleanup;
  }
  print_table(&c, &out); /* --quiet: the failing rows only */
  if (c.o.discover)
    print_discovery(&c, &d, &out);
  print_summary(&c, &out);
  cs_http_redact(c.http, &out);
  fwrite(out.data, 1, out.len, stdout);
  fflush(stdout);
  status = CS_EXIT_OK;
  size_t n[6];
  summary_counts(&c, n);
  if (n[AGREE_STRICTER] || n[AGREE_TRANSPORT] || (c.o.discover && !d.control_ok && !c.o.dry_run))
    status = CS_EXIT_FAIL;
  if (write_reports(&c, &d))
    status = CS_EXIT_USAGE;
  /* One reason, the first of: a case the rule could not judge (the probe is incomplete), a set-up
   * answer that stopped it, an implementation that did not answer, an incomplete recording. */
  if (c.undecided[0])
    status = cs_fail(CS_EXIT_USAGE, "%s", c.undecided);
  else if (c.stopped[0])
    status = probe_fail(&c, CS_EXIT_USAGE, c.stopped);
  else if (c.impl_fault[0]) {
    probe_fail(&c, c.impl_fault_status, c.impl_fault);
    if (c.impl_fault_status == CS_EXIT_IMPL || status == CS_EXIT_OK) /* a 1 leaves a 2 standing */
      status = c.impl_fault_status;
  } else if (cs_http_cassette_incomplete(c.http))
    status = cs_fail(CS_EXIT_USAGE, "probe: the cassette in %s is incomplete (an entry could not be written)",
                     c.o.record_dir);
cleanup:
  /* A directory made for a report or the cassette that is still empty holds nothing of this probe
   * (refused before its work, or stopped before its first entry): it goes again. */
  cs_made_undo(&c.made);
  cs_http_free(c.http);
  if (curl_ready)
    curl_global_cleanup();
  cs_ruleset_free(c.rs);
  cs_buf_free(&c.url);
  cs_buf_free(&out);
  cs_buf_free(&which);
  cs_arena_free(&c.a);
  return status;
}
