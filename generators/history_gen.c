/* generators/history_gen.c: hostile PROTOCOL.md histories drawn from a choice sequence: rounds of
 * an assistant turn (its provider may switch) and usually a tool turn answering it, with the
 * structural pathologies of DESIGN.md (parallel same-name calls, reordered, orphan, positional,
 * deferred and missing results, server calls, compression cuts), raw IDs from id_gen.c, the statistics labels of
 * what was actually produced, and plans for implementation-aware twins. Draw 0 is always the
 * simplest option, and counts are drawn before what they count, so shrinking values shrinks cases. */
#include "generators/history_gen.h"

#include <string.h>

#include "generators/id_gen.h"

#define S(lit)                                                                                                         \
  { lit, sizeof(lit) - 1 }

/* Constant names and payloads stay in static storage (immutable, outliving every arena); everything
 * drawn goes to the case arena. */

/* Tool names: a few ordinary ones and, rarely, names with a dot or a space (they end up inside
 * Kimi IDs). Index 0 is the simplest. */
static const cs_str TOOL_NAMES[] = {S("read_file"), S("glob"),    S("web_search"), S("run_shell"),
                                    S("edit"),      S("fs.read"), S("my tool"),    S("mcp__github__create_issue")};
static const unsigned TOOL_WEIGHTS[] = {40, 15, 12, 12, 12, 2, 2, 3};
static const cs_str TOOL_ARGS[] = {S("{\"path\":\"a.c\"}"),
                                   S("{\"p\":\"*.c\"}"),
                                   S("{\"q\":\"callsign\"}"),
                                   S("{\"cmd\":\"ls\"}"),
                                   S("{\"path\":\"a.c\",\"old\":\"x\",\"new\":\"y\"}"),
                                   S("{\"path\":\"b.c\"}"),
                                   S("{}"),
                                   S("{\"title\":\"bug\"}")};
static const cs_str TOOL_OUTPUT[] = {S("int main(void) { return 0; }"),
                                     S("a.c\nb.c"),
                                     S("3 results"),
                                     S("a.c b.c"),
                                     S("ok"),
                                     S("..."),
                                     S("done"),
                                     S("#1")};
#define N_TOOLS (sizeof TOOL_NAMES / sizeof TOOL_NAMES[0])
#define TOOL_WEB_SEARCH 2 /* server calls are Anthropic's web search */

static const cs_str USER_TEXTS[] = {S("list files"), S("fix the failing test"), S("continue"), S("and the other one?")};
#define N_USER_TEXTS (sizeof USER_TEXTS / sizeof USER_TEXTS[0])

/* How a tool turn treats each call: answer it by its raw ID (0), leave it unanswered, answer it
 * positionally (null or empty call_id), answer with an ID that matches nothing, or answer it by its
 * raw ID in the tool turn of a later round (a long-running tool whose result comes after the next
 * assistant turn). New modes go last: a recorded value keeps its mode. */
enum { RES_ANSWER, RES_SKIP, RES_POSITIONAL, RES_ORPHAN, RES_DEFER, RES_MODES };
static const unsigned RESULT_WEIGHTS[RES_MODES] = {200, 3, 4, 3, 4};

typedef struct {
  cs_choices *c;
  cs_arena *a;
  uint32_t max_rounds, max_calls, max_id_len;
  cs_turn *turns;
  uint32_t nturns, cap_turns;
  cs_str *pool; /* non-blank call IDs so far (twins and duplicates derive from them) */
  uint32_t npool;
  uint32_t ncalls;   /* calls so far: the global index of the next call */
  uint32_t next_key; /* number of the next turn key "t<n>" */
  uint32_t nuser;
  cs_provider prov; /* provider of the next assistant turn */
  bool per_turn_numbering;
  cs_labelset labels;
  cs_result *deferred; /* results of RES_DEFER calls, waiting for a later round's tool turn */
  uint32_t ndeferred;
} gen;

static void gen_init(gen *g, cs_choices *c, const cs_gen_config *cfg, cs_arena *a) {
  memset(g, 0, sizeof *g);
  g->c = c;
  g->a = a;
  g->max_rounds = cfg && cfg->max_rounds ? cfg->max_rounds : 6;
  g->max_calls = cfg && cfg->max_calls ? cfg->max_calls : 4;
  g->max_id_len = cfg && cfg->max_id_len ? cfg->max_id_len : CS_GEN_DEFAULT_MAX_ID_LEN;
}

/* At most four turns per round (user, stray tool turn, assistant, tool), two before the first and
 * four after the last (deferred results, a late result, a join twin and its result). */
static void gen_reserve(gen *g, uint32_t rounds, uint32_t existing_turns, uint32_t existing_calls) {
  g->cap_turns = existing_turns + 4 * rounds + 6;
  g->turns = CS_ARENA_NEW(g->a, cs_turn, g->cap_turns);
  g->pool = CS_ARENA_NEW(g->a, cs_str, existing_calls + rounds * g->max_calls + 1);
  g->deferred = CS_ARENA_NEW(g->a, cs_result, rounds * g->max_calls + 1);
}

static cs_str make_key(gen *g) {
  char *p = cs_arena_alloc(g->a, 12);
  char tmp[10];
  int n = 0;
  uint32_t v = g->next_key++;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  size_t len = 0;
  p[len++] = 't';
  while (n)
    p[len++] = tmp[--n];
  p[len] = 0;
  return (cs_str){p, len};
}

static cs_turn *new_turn(gen *g, cs_role role) {
  cs_turn *t = &g->turns[g->nturns++]; /* gen_reserve bounds the count */
  memset(t, 0, sizeof *t);
  t->role = role;
  t->provider = CS_PROV_UNKNOWN;
  if (role != CS_ROLE_USER)
    t->turn_key = make_key(g);
  return t;
}

static void user_turn(gen *g) {
  cs_turn *t = new_turn(g, CS_ROLE_USER);
  t->text = USER_TEXTS[g->nuser++ % N_USER_TEXTS];
}

static cs_provider draw_provider(cs_choices *c) {
  return (cs_provider)cs_draw(c, CS_PROVIDER_COUNT);
}

static cs_id_ctx id_ctx(gen *g, uint32_t turn_first, uint32_t turn_pos, cs_str name) {
  cs_id_ctx x = {0};
  x.c = g->c;
  x.a = g->a;
  x.labels = &g->labels;
  x.max_id_len = g->max_id_len;
  x.pool = g->pool;
  x.npool = g->npool;
  x.turn_first = turn_first;
  x.provider = g->prov;
  x.name = name;
  x.global_index = g->ncalls;
  x.turn_pos = turn_pos;
  x.per_turn_numbering = g->per_turn_numbering;
  return x;
}

/* A call_id that matches no call (most likely): a native ID of any provider. */
static cs_str orphan_id(gen *g, cs_str name) {
  cs_id_ctx x = id_ctx(g, g->npool, 0, name);
  return cs_id_native(&x, CS_PROV_UNKNOWN);
}

/* The history starts after a compression cut: a tool turn whose calls were cut away. */
static void compression_cut_turn(gen *g) {
  cs_turn *t = new_turn(g, CS_ROLE_TOOL);
  uint32_t n = 1 + (uint32_t)cs_draw(g->c, 3);
  t->results = CS_ARENA_NEW(g->a, cs_result, n);
  for (uint32_t k = 0; k < n; k++) {
    size_t ni = cs_draw_weighted(g->c, TOOL_WEIGHTS, N_TOOLS);
    cs_result *r = &t->results[t->nresults++];
    r->name = TOOL_NAMES[ni];
    r->content = TOOL_OUTPUT[ni];
    if (cs_draw_bool(g->c, 1, 6)) {
      r->call_id = cs_draw_bool(g->c, 1, 2) ? cs_str_n("", 0) : CS_NULL_STR;
    } else {
      cs_id_ctx x = id_ctx(g, g->npool, k, r->name);
      cs_labelset l = 0;
      x.labels = &l;
      r->call_id = cs_id_native(&x, g->prov); /* Gemini's may be null */
      /* id.missing and id.empty count call IDs: a result's blank call_id is positional pairing. */
      g->labels |= l & ~(CS_LABEL_BIT(CS_LABEL_ID_MISSING) | CS_LABEL_BIT(CS_LABEL_ID_EMPTY));
    }
  }
}

/* A tool turn that follows no call at all. */
static void stray_tool_turn(gen *g) {
  cs_turn *t = new_turn(g, CS_ROLE_TOOL);
  size_t ni = cs_draw_weighted(g->c, TOOL_WEIGHTS, N_TOOLS);
  t->results = CS_ARENA_NEW(g->a, cs_result, 1);
  t->nresults = 1;
  t->results[0] =
      (cs_result){.call_id = orphan_id(g, TOOL_NAMES[ni]), .name = TOOL_NAMES[ni], .content = TOOL_OUTPUT[ni]};
}

/* How one call is answered, drawn with the call (inside its span): deleting a call then deletes
 * its answer's draws too, and the draws of later calls and rounds keep their meaning. */
typedef struct {
  uint8_t mode;       /* RES_* */
  cs_str call_id;     /* RES_POSITIONAL, RES_ORPHAN: the result's call_id */
  cs_labelset labels; /* of call_id: they count only once the result is in the history */
} result_plan;

static result_plan draw_result_plan(gen *g, cs_str name) {
  result_plan p = {(uint8_t)cs_draw_weighted(g->c, RESULT_WEIGHTS, RES_MODES), CS_NULL_STR, 0};
  if (p.mode == RES_POSITIONAL) {
    p.call_id = cs_draw_bool(g->c, 1, 2) ? cs_str_n("", 0) : CS_NULL_STR;
  } else if (p.mode == RES_ORPHAN) {
    cs_id_ctx x = id_ctx(g, g->npool, 0, name);
    x.labels = &p.labels;
    p.call_id = cs_id_native(&x, CS_PROV_UNKNOWN);
  }
  return p;
}

/* Appends the results deferred by earlier rounds to `t` (allocated with room for them). */
static void deliver_deferred(gen *g, cs_turn *t, uint32_t carried) {
  for (uint32_t k = 0; k < carried; k++)
    t->results[t->nresults++] = g->deferred[k];
  memmove(g->deferred, g->deferred + carried, (g->ndeferred - carried) * sizeof *g->deferred);
  g->ndeferred -= carried;
}

static void tool_turn(gen *g, const cs_turn *at, const uint8_t *name_ix, const result_plan *plans) {
  cs_choices *c = g->c;
  uint32_t carried = g->ndeferred; /* deferred by earlier rounds: they come after this round's own */
  bool deferred_here = false;
  cs_turn *t = new_turn(g, CS_ROLE_TOOL);
  t->results = CS_ARENA_NEW(g->a, cs_result, at->ncalls + carried + 1);
  for (uint32_t k = 0; k < at->ncalls; k++) {
    const cs_call *call = &at->calls[k];
    if (call->server || plans[k].mode == RES_SKIP)
      continue; /* a server call: the provider executed it, no result */
    cs_result r = {.call_id = call->id, .name = call->name, .content = TOOL_OUTPUT[name_ix[k]]};
    /* A deferred result is found by its ID: a call without one is answered in its own turn (later,
     * without an ID, it would be a late positional result, which late_positional_result makes). */
    if (plans[k].mode == RES_DEFER && !cs_str_is_blank(call->id)) {
      g->deferred[g->ndeferred++] = r;
      deferred_here = true;
      continue;
    }
    if (plans[k].mode != RES_ANSWER && plans[k].mode != RES_DEFER)
      r.call_id = plans[k].call_id;
    g->labels |= plans[k].labels;
    t->results[t->nresults++] = r;
  }
  if (cs_draw_bool(c, 1, 25)) {
    size_t ni = cs_draw_weighted(c, TOOL_WEIGHTS, N_TOOLS);
    t->results[t->nresults++] =
        (cs_result){.call_id = orphan_id(g, TOOL_NAMES[ni]), .name = TOOL_NAMES[ni], .content = TOOL_OUTPUT[ni]};
  }
  if (t->nresults > 1 && cs_draw_bool(c, 1, 8)) {
    /* Fisher-Yates where a drawn 0 leaves the element in place. */
    for (uint32_t i = t->nresults - 1; i > 0; i--) {
      uint32_t j = i - (uint32_t)cs_draw(c, i + 1);
      cs_result tmp = t->results[i];
      t->results[i] = t->results[j];
      t->results[j] = tmp;
    }
  }
  /* Last, outside the shuffle: how many draws the shuffle makes depends on this round's own results
   * alone, so deleting an earlier round that deferred one leaves the draws after it aligned. */
  deliver_deferred(g, t, carried);
  if (!t->nresults && deferred_here)
    g->nturns--; /* its results come later; an empty tool turn would only stand in the way */
}

/* Deferred results no later round delivered: a tool turn of their own after the last round. */
static void flush_deferred(gen *g) {
  if (!g->ndeferred)
    return;
  cs_turn *t = new_turn(g, CS_ROLE_TOOL);
  t->results = CS_ARENA_NEW(g->a, cs_result, g->ndeferred);
  deliver_deferred(g, t, g->ndeferred);
}

static void gen_round(gen *g, bool first) {
  cs_choices *c = g->c;
  /* Every round makes the same leading draws, the first one too (where generation never sets
   * them): once the shrinker deletes the rounds before a round, its draws stay aligned and keep
   * their meaning (a user turn, a stray tool turn, a provider switch). */
  unsigned num = first ? 0 : 1;
  if (cs_draw_bool(c, num, first ? 1 : 3))
    user_turn(g);
  size_t stray_at = cs_choices_at(c);
  if (cs_draw_bool(c, num, first ? 1 : 40)) {
    /* A unit counted by its own draw: the shrinker deletes it by setting that draw to 0. */
    stray_tool_turn(g);
    cs_choices_span(c, stray_at + 1, stray_at);
  }
  if (cs_draw_bool(c, num, first ? 1 : 5))
    g->prov = draw_provider(c);
  size_t count_at = cs_choices_at(c);
  uint32_t n = 1 + (uint32_t)cs_draw(c, g->max_calls);
  /* Drawn for one call too (never set then), so deleting a call keeps the draws after it aligned. */
  bool same_name = cs_draw_bool(c, n > 1 ? 1 : 0, 8);
  cs_turn *t = new_turn(g, CS_ROLE_ASSISTANT);
  t->provider = g->prov;
  t->calls = CS_ARENA_NEW(g->a, cs_call, n);
  t->ncalls = n;
  uint8_t *name_ix = cs_arena_alloc(g->a, n);
  result_plan *plans = CS_ARENA_NEW(g->a, result_plan, n);
  uint32_t turn_first = g->npool;
  for (uint32_t k = 0; k < n; k++) {
    cs_call *call = &t->calls[k];
    size_t call_start = cs_choices_at(c);
    size_t ni = same_name && k ? name_ix[0] : cs_draw_weighted(c, TOOL_WEIGHTS, N_TOOLS);
    /* Drawn for every provider, so a call's draws do not shift when its round's provider does. */
    bool server = cs_draw_bool(c, 1, 10);
    call->server = g->prov == CS_PROV_ANTHROPIC && server;
    if (call->server)
      ni = TOOL_WEB_SEARCH;
    name_ix[k] = (uint8_t)ni;
    call->name = TOOL_NAMES[ni];
    call->args = TOOL_ARGS[ni];
    cs_id_ctx x = id_ctx(g, turn_first, k, call->name);
    size_t id_start = cs_choices_at(c);
    call->id = call->server ? cs_id_server(&x, true) : cs_id_draw(&x);
    cs_choices_span(c, id_start, CS_SPAN_NO_COUNT);
    if (!cs_str_is_blank(call->id))
      g->pool[g->npool++] = call->id;
    g->ncalls++;
    plans[k] = draw_result_plan(g, call->name); /* drawn for server calls too, which ignore it */
    cs_choices_span(c, call_start, count_at);
  }
  if (!cs_draw_bool(c, 1, 15))
    tool_turn(g, t, name_ix, plans);
}

/* Structural and duplicate labels, read off the finished history and its pairing. */
static void structure_labels(const cs_history *h, const cs_history_index *ix, cs_labelset *labels) {
  cs_labelset l = 0;
  uint32_t assistants = 0;
  cs_provider first_prov = CS_PROV_UNKNOWN;
  for (uint32_t t = 0; t < h->nturns; t++) {
    const cs_turn *turn = &h->turns[t];
    if (turn->role != CS_ROLE_ASSISTANT)
      continue;
    if (assistants++ == 0)
      first_prov = turn->provider;
    else if (turn->provider != first_prov)
      l |= CS_LABEL_BIT(CS_LABEL_S_PROVIDER_SWITCH);
    for (uint32_t i = 0; i < turn->ncalls; i++)
      for (uint32_t j = i + 1; j < turn->ncalls; j++)
        if (!turn->calls[i].server && !turn->calls[j].server && cs_str_eq(turn->calls[i].name, turn->calls[j].name))
          l |= CS_LABEL_BIT(CS_LABEL_S_PARALLEL_SAME_NAME);
  }
  if (assistants > 1)
    l |= CS_LABEL_BIT(CS_LABEL_S_MULTI_TURN);

  const cs_labelset dups = CS_LABEL_BIT(CS_LABEL_ID_DUP_TURN) | CS_LABEL_BIT(CS_LABEL_ID_DUP_ACROSS);
  /* Duplicates are found by comparing every pair of IDs: a fingerprint per ID (its length and
   * end bytes) rules out most pairs without following the pointers. */
  uint64_t fp[64];
  bool use_fp = ix->ncalls <= 64;
  for (uint32_t i = 0; use_fp && i < ix->ncalls; i++)
    fp[i] = cs_str_fingerprint(ix->calls[i]->id);
  for (uint32_t i = 0; i < ix->ncalls; i++) {
    const cs_call *ci = ix->calls[i];
    if (ci->server)
      l |= CS_LABEL_BIT(CS_LABEL_S_SERVER);
    else if (!ix->answers[i])
      l |= CS_LABEL_BIT(CS_LABEL_S_UNANSWERED);
    if (!ci->id.ptr)
      l |= CS_LABEL_BIT(CS_LABEL_ID_MISSING);
    else if (!ci->id.len)
      l |= CS_LABEL_BIT(CS_LABEL_ID_EMPTY);
    else if ((l & dups) != dups)
      for (uint32_t j = i + 1; j < ix->ncalls; j++)
        if ((!use_fp || fp[i] == fp[j]) && cs_str_eq(ci->id, ix->calls[j]->id))
          l |= CS_LABEL_BIT(ix->call_turn[i] == ix->call_turn[j] ? CS_LABEL_ID_DUP_TURN : CS_LABEL_ID_DUP_ACROSS);
  }
  int32_t last = -1;
  int64_t last_assistant_turn = -1; /* before the result's turn */
  for (uint32_t r = 0, t = 0; r < ix->nresults; r++) {
    for (; t < ix->result_turn[r]; t++)
      if (h->turns[t].role == CS_ROLE_ASSISTANT)
        last_assistant_turn = t;
    bool positional = cs_str_is_blank(ix->results[r]->call_id);
    if (positional)
      l |= CS_LABEL_BIT(CS_LABEL_S_POSITIONAL);
    int32_t p = ix->pair[r];
    if (p < 0) {
      l |= CS_LABEL_BIT(CS_LABEL_S_ORPHAN);
      continue;
    }
    if (!positional && ix->call_turn[p] < last_assistant_turn)
      l |= CS_LABEL_BIT(CS_LABEL_S_DEFERRED);
    if (p < last)
      l |= CS_LABEL_BIT(CS_LABEL_S_REORDERED);
    last = p;
  }
  *labels |= l;
}

static uint32_t count_assistants(const cs_history *h) {
  uint32_t n = 0;
  for (uint32_t t = 0; t < h->nturns; t++)
    n += h->turns[t].role == CS_ROLE_ASSISTANT;
  return n;
}

static void finish_case(gen *g, cs_gen_case *out, cs_history_index *ix) {
  out->h = (cs_history){g->turns, g->nturns};
  cs_history_index_build(&out->h, g->a, ix);
  structure_labels(&out->h, ix, &g->labels);
  out->labels = g->labels;
  out->twins = NULL;
  out->ntwins = 0;
  out->rounds = count_assistants(&out->h);
}

/* Up to two implementation-aware twins: the wire ID of an earlier call becomes the raw ID of a
 * later, non-server call. All values are drawn before they are checked, so the draw count of a
 * plan does not depend on the history. */
static void plan_twins(gen *g, const cs_history_index *ix, cs_gen_case *out) {
  uint32_t n = ix->ncalls;
  if (n < 2 || !cs_draw_bool(g->c, 1, 10))
    return;
  out->twins = CS_ARENA_NEW(g->a, cs_twin_plan, 2);
  for (int k = 0; k < 2; k++) {
    if (k == 1 && !cs_draw_bool(g->c, 1, 4))
      break;
    /* Counted back (the last call, then the call just before it), so a plan keeps its calls
     * when the shrinker deletes earlier ones. */
    uint32_t to = n - 1 - (uint32_t)cs_draw(g->c, n - 1);
    uint32_t from = to - 1 - (uint32_t)cs_draw(g->c, to);
    uint32_t target = (uint32_t)cs_draw(g->c, CS_PROVIDER_TARGETS);
    bool via_normalize = cs_draw_bool(g->c, 1, 3);
    uint32_t t = to;
    while (t < n && ix->calls[t]->server)
      t++;
    if (t == n)
      for (t = to; t > from && ix->calls[t]->server; t--)
        ;
    if (t == from)
      continue; /* every later call is a server call */
    out->twins[out->ntwins++] = (cs_twin_plan){from, t, target, via_normalize};
  }
  if (out->ntwins)
    out->labels |= CS_LABEL_BIT(CS_LABEL_TWIN_IMPL);
}

/* The history changed after finish_case: its index, its rounds and the labels the pairing and the
 * structure decide are redone. */
static void refinish(gen *g, cs_gen_case *out) {
  out->h.nturns = g->nturns;
  cs_history_index_build(&out->h, g->a, &out->ix);
  out->labels &= ~(CS_LABEL_BIT(CS_LABEL_S_UNANSWERED) | CS_LABEL_BIT(CS_LABEL_S_ORPHAN) |
                   CS_LABEL_BIT(CS_LABEL_S_REORDERED) | CS_LABEL_BIT(CS_LABEL_S_DEFERRED));
  structure_labels(&out->h, &out->ix, &out->labels);
  out->rounds = count_assistants(&out->h);
}

/* The index of the last assistant turn; *before: the calls of the turns before it (so the global
 * index of its first call). */
static uint32_t last_assistant(const gen *g, const cs_gen_case *out, uint32_t *before) {
  uint32_t last = 0, n = 0;
  for (uint32_t t = 0; t < g->nturns; t++)
    if (g->turns[t].role == CS_ROLE_ASSISTANT)
      last = t;
  while (n < out->ix.ncalls && out->ix.call_turn[n] < last)
    n++;
  *before = n;
  return last;
}

/* A tool turn at the end with one result that has no call_id and the name of a call of an earlier
 * assistant turn. PROTOCOL.md pairs such a result only within the most recent assistant turn: unless
 * that turn has an open call of the name, it answers nothing, and an implementation that looks
 * further back pairs it with a call that is not its own. */
static void late_positional_result(gen *g, cs_gen_case *out) {
  cs_choices *c = g->c;
  size_t at = cs_choices_at(c);
  if (!cs_draw_bool(c, 1, 8))
    return;
  uint32_t earlier; /* calls before the last assistant turn */
  last_assistant(g, out, &earlier);
  if (earlier) {
    /* Counted back from the call just before the last turn, which shrinking keeps longest. */
    const cs_call *call = out->ix.calls[earlier - 1 - (uint32_t)cs_draw(c, earlier)];
    bool empty = cs_draw_bool(c, 1, 2);
    cs_turn *t = new_turn(g, CS_ROLE_TOOL);
    t->results = CS_ARENA_NEW(g->a, cs_result, 1);
    t->results[0] = (cs_result){
        .call_id = empty ? cs_str_n("", 0) : CS_NULL_STR, .name = call->name, .content = cs_str_c("(late)")};
    t->nresults = 1;
    refinish(g, out); /* the result may answer a call of the last turn */
    out->labels |= CS_LABEL_BIT(CS_LABEL_S_LATE_POSITIONAL);
  }
  cs_choices_span(c, at + 1, at);
}

/* A join twin of the first non-server call of the last assistant turn: that call's raw ID R
 * becomes R|x (and so do the call_ids of the results that answered it by ID), and a round at the
 * end, under the same turn key and provider, holds one call with raw ID R and tool x|N, where N is
 * the joined call's tool, and its result. The two tuples differ, but joined with '|'
 * (provider|rawId|toolName|turnKey|callIndex) they are one string when the joined call is its
 * turn's first (both have callIndex 0): only an encoding that keeps its fields apart tells them
 * apart. A later call still gives an ID with a '|' after a server call's twin in one round.
 * Histories merged from two sessions, or stored without turn IDs, repeat turn keys. */
/* id.missing and id.empty as the history's call IDs have them now. */
static cs_labelset blank_id_labels(const gen *g) {
  cs_labelset l = 0;
  for (uint32_t t = 0; t < g->nturns; t++)
    for (uint32_t k = 0; k < g->turns[t].ncalls; k++)
      if (cs_str_is_blank(g->turns[t].calls[k].id))
        l |= CS_LABEL_BIT(g->turns[t].calls[k].id.ptr ? CS_LABEL_ID_EMPTY : CS_LABEL_ID_MISSING);
  return l;
}

static void join_twins(gen *g, cs_gen_case *out) {
  cs_choices *c = g->c;
  size_t at = cs_choices_at(c);
  if (!cs_draw_bool(c, 1, 12))
    return;
  uint32_t first; /* the global index of the last assistant turn's first call */
  cs_turn *lt = &g->turns[last_assistant(g, out, &first)];
  uint32_t j = 0; /* a server ID passes as it is */
  while (j < lt->ncalls && lt->calls[j].server)
    j++;
  /* An ID at the length bound has no room for "|x". */
  if (j < lt->ncalls && lt->calls[j].id.len + 2 <= g->max_id_len) {
    cs_call *call = &lt->calls[j];
    first += j;
    cs_str raw = cs_str_is_blank(call->id) ? cs_arena_printf(g->a, "call_%u", first) : call->id;
    cs_str joined = cs_arena_printf(g->a, "%.*s|x", (int)raw.len, raw.ptr);
    bool replaced_blank = cs_str_is_blank(call->id);
    uint32_t r = 0;
    for (uint32_t t = 0; t < g->nturns; t++)
      for (uint32_t k = 0; k < g->turns[t].nresults; k++, r++)
        if (out->ix.pair[r] == (int32_t)first && !cs_str_is_blank(g->turns[t].results[k].call_id))
          g->turns[t].results[k].call_id = joined;
    call->id = joined;
    cs_str name = cs_arena_printf(g->a, "x|%.*s", (int)call->name.len, call->name.ptr);
    cs_turn *t = new_turn(g, CS_ROLE_ASSISTANT);
    t->turn_key = lt->turn_key;
    t->provider = lt->provider;
    t->calls = CS_ARENA_NEW(g->a, cs_call, 1);
    t->calls[0] = (cs_call){.id = raw, .name = name, .args = call->args};
    t->ncalls = 1;
    g->ncalls++;
    cs_turn *res = new_turn(g, CS_ROLE_TOOL);
    res->results = CS_ARENA_NEW(g->a, cs_result, 1);
    res->results[0] = (cs_result){.call_id = raw, .name = name, .content = cs_str_c("(twin)")};
    res->nresults = 1;
    /* A null or empty ID it replaced may have been the history's only one: when no call has one
     * left, its label goes (a positional result's null call_id is no null ID). R|x holds a '|'. */
    if (replaced_blank)
      out->labels &= ~(CS_LABEL_BIT(CS_LABEL_ID_MISSING) | CS_LABEL_BIT(CS_LABEL_ID_EMPTY)) | blank_id_labels(g);
    /* R may have repeated another call's ID in its turn; now R|x does not, and the new round's R
     * repeats it across turns: refinish reads which repeats there are off the calls. */
    out->labels &= ~(CS_LABEL_BIT(CS_LABEL_ID_DUP_TURN) | CS_LABEL_BIT(CS_LABEL_ID_DUP_ACROSS));
    cs_id_content_labels(joined, &out->labels);
    refinish(g, out);
    out->labels |= CS_LABEL_BIT(CS_LABEL_TWIN_JOIN);
  }
  cs_choices_span(c, at + 1, at);
}

void cs_gen_history(cs_choices *c, const cs_gen_config *cfg, cs_arena *a, cs_gen_case *out) {
  gen g;
  gen_init(&g, c, cfg, a);
  size_t count_at = cs_choices_at(c);
  uint32_t rounds = 1 + (uint32_t)cs_draw(c, g.max_rounds);
  bool cut = cs_draw_bool(c, 1, 25);
  g.per_turn_numbering = cs_draw_bool(c, 1, 10);
  g.prov = draw_provider(c);
  gen_reserve(&g, rounds, 0, 0);
  if (cut) {
    /* A unit counted by the cut draw: setting that draw to 0 deletes it. */
    size_t cut_start = cs_choices_at(c);
    compression_cut_turn(&g);
    g.labels |= CS_LABEL_BIT(CS_LABEL_S_COMPRESSION_CUT);
    if (cs_draw_bool(c, 1, 2))
      user_turn(&g);
    cs_choices_span(c, cut_start, count_at + 1);
  } else {
    user_turn(&g);
  }
  for (uint32_t r = 0; r < rounds; r++) {
    size_t start = cs_choices_at(c);
    gen_round(&g, r == 0);
    cs_choices_span(c, start, count_at);
  }
  flush_deferred(&g);
  finish_case(&g, out, &out->ix);
  plan_twins(&g, &out->ix, out);
  /* Last of all: a token recorded before it existed replays as it did (an exhausted sequence
   * reads 0, no late result). */
  late_positional_result(&g, out);
  join_twins(&g, out);
}

/* The number after a "t" key, or -1. */
static int64_t key_number(cs_str k) {
  if (k.len < 2 || k.len > 10 || k.ptr[0] != 't')
    return -1;
  int64_t v = 0;
  for (size_t i = 1; i < k.len; i++) {
    if (k.ptr[i] < '0' || k.ptr[i] > '9')
      return -1;
    v = v * 10 + (k.ptr[i] - '0');
  }
  return v;
}

void cs_gen_continue(cs_choices *c, const cs_gen_config *cfg, const cs_history *h, cs_arena *a, cs_gen_case *out) {
  gen g;
  gen_init(&g, c, cfg, a);
  uint32_t rounds = 1 + (uint32_t)cs_draw(c, g.max_rounds);
  /* Appended turns number plain IDs from call_0 again unless drawn otherwise: an earlier turn may
   * hold the same plain ID, which is where unstable duplicate handling shows. */
  g.per_turn_numbering = !cs_draw_bool(c, 1, 2);
  uint32_t existing_calls = cs_history_ncalls(h);
  gen_reserve(&g, rounds, h->nturns, existing_calls);
  bool have_prov = false;
  uint64_t next_key = h->nturns;
  for (uint32_t t = 0; t < h->nturns; t++) {
    const cs_turn *turn = &h->turns[t];
    g.turns[g.nturns++] = *turn;
    if (turn->role == CS_ROLE_ASSISTANT) {
      g.prov = turn->provider;
      have_prov = true;
      for (uint32_t k = 0; k < turn->ncalls; k++)
        if (!cs_str_is_blank(turn->calls[k].id))
          g.pool[g.npool++] = turn->calls[k].id;
    }
    g.nuser += turn->role == CS_ROLE_USER;
    int64_t kn = key_number(turn->turn_key);
    if (kn >= 0 && (uint64_t)kn + 1 > next_key)
      next_key = (uint64_t)kn + 1;
  }
  g.ncalls = existing_calls;
  g.next_key = next_key > UINT32_MAX - 4 * rounds - 2 ? 0 : (uint32_t)next_key;
  if (!have_prov)
    g.prov = draw_provider(c);
  for (uint32_t r = 0; r < rounds; r++)
    gen_round(&g, false);
  flush_deferred(&g);
  finish_case(&g, out, &out->ix);
}

cs_str cs_gen_id(cs_choices *c, const cs_gen_config *cfg, const cs_str *pool, uint32_t npool, cs_arena *a,
                 cs_labelset *labels) {
  uint32_t max_id_len = cfg && cfg->max_id_len ? cfg->max_id_len : CS_GEN_DEFAULT_MAX_ID_LEN;
  cs_id_ctx x = {0};
  x.c = c;
  x.a = a;
  x.labels = labels;
  x.max_id_len = max_id_len;
  x.pool = pool;
  x.npool = pool ? npool : 0;
  x.turn_first = 0; /* the whole batch counts as one turn for duplicates */
  x.provider = CS_PROV_UNKNOWN;
  x.name = TOOL_NAMES[cs_draw_weighted(c, TOOL_WEIGHTS, N_TOOLS)];
  x.global_index = x.npool;
  x.turn_pos = 0;
  x.never_null = true;
  /* Batches hold no calls, so a server-call ID may appear here on its own, bounded as any raw ID. */
  if (cs_draw_bool(c, 1, 40))
    return cs_id_server(&x, false);
  return cs_id_draw(&x);
}
