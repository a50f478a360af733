/* core/history.c: provider and role names, totals, the document-order index and pairing. */
#include "core/history.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static const char *const provider_names[CS_PROVIDER_COUNT] = {
    "anthropic", "openai_chat", "openai_responses", "mistral", "kimi", "gemini", "bedrock", "adk", "aisdk", "unknown",
};

const char *cs_provider_name(cs_provider p) {
  return (unsigned)p < CS_PROVIDER_COUNT ? provider_names[p] : "unknown";
}

int cs_provider_parse(cs_str name) {
  for (int i = 0; i < CS_PROVIDER_COUNT; i++)
    if (cs_str_eq_c(name, provider_names[i]))
      return i;
  return -1;
}

const char *cs_role_name(cs_role r) {
  static const char *const names[] = {"system", "user", "assistant", "tool"};
  return (unsigned)r < 4 ? names[r] : "?";
}

uint32_t cs_history_ncalls(const cs_history *h) {
  uint32_t n = 0;
  for (uint32_t t = 0; t < h->nturns; t++)
    n += h->turns[t].ncalls;
  return n;
}

uint32_t cs_history_nresults(const cs_history *h) {
  uint32_t n = 0;
  for (uint32_t t = 0; t < h->nturns; t++)
    n += h->turns[t].nresults;
  return n;
}

/* Above this many calls the pairing looks calls up by ID and by name instead of scanning the open
 * ones for each result: a hostile history of 10^5 calls would otherwise take minutes. Below it the
 * scan of one contiguous array is the faster. */
#define LINEAR_PAIRING_MAX 64
#define NONE UINT32_MAX

/* A chain of calls per key (an ID, or a name), in document order; a call answered meanwhile is
 * dropped when found at the head, so each call is passed over at most once per chain. */
typedef struct {
  cs_str key;
  uint32_t head, tail; /* NONE: empty */
  bool used;
} chain;

typedef struct {
  chain *slot;
  uint32_t mask;
  uint32_t *next; /* [ncalls] the next call of the same chain */
} chain_map;

static void chain_map_init(chain_map *m, uint32_t n, uint32_t *next, cs_arena *a) {
  uint32_t cap = 16;
  while (cap < 2 * (uint64_t)n)
    cap *= 2;
  m->slot = cs_arena_alloc(a, (size_t)cap * sizeof *m->slot);
  memset(m->slot, 0, (size_t)cap * sizeof *m->slot);
  m->mask = cap - 1;
  m->next = next;
}

static chain *chain_find(chain_map *m, cs_str key) {
  for (uint32_t i = (uint32_t)cs_str_hash(key) & m->mask;; i = (i + 1) & m->mask)
    if (!m->slot[i].used || cs_str_eq(m->slot[i].key, key))
      return &m->slot[i];
}

static void chain_add(chain_map *m, cs_str key, uint32_t c) {
  chain *ch = chain_find(m, key);
  m->next[c] = NONE;
  if (!ch->used)
    *ch = (chain){key, c, c, true};
  else if (ch->head == NONE)
    ch->head = ch->tail = c;
  else
    m->next[ch->tail] = c, ch->tail = c;
}

/* The earliest call of `key`'s chain not yet answered, or NONE. */
static uint32_t chain_take(chain_map *m, cs_str key, const uint32_t *answers) {
  chain *ch = chain_find(m, key);
  if (!ch->used)
    return NONE;
  while (ch->head != NONE && answers[ch->head])
    ch->head = m->next[ch->head];
  return ch->head;
}

void cs_history_index_build(const cs_history *h, cs_arena *a, cs_history_index *ix) {
  uint32_t nc = cs_history_ncalls(h), nr = cs_history_nresults(h);
  ix->ncalls = nc;
  ix->nresults = nr;
  /* One block for every array (pointers first, for alignment); each array is written in full
   * below except `answers`, which counts up from zero. Built at least twice per case. */
  size_t np = (size_t)nc + 1 + nr + 1, nu = 3 * ((size_t)nc + 1) + 2 * ((size_t)nr + 1);
  void **ptrs = cs_arena_alloc(a, np * sizeof(void *) + nu * sizeof(uint32_t));
  uint32_t *u32 = (uint32_t *)(ptrs + np);
  ix->calls = (const cs_call **)ptrs;
  ix->results = (const cs_result **)(ptrs + nc + 1);
  ix->call_turn = u32;
  ix->call_pos = u32 + (nc + 1);
  ix->answers = u32 + 2 * ((size_t)nc + 1);
  ix->result_turn = u32 + 3 * ((size_t)nc + 1);
  ix->pair = (int32_t *)(u32 + 3 * ((size_t)nc + 1) + nr + 1);
  memset(ix->answers, 0, ((size_t)nc + 1) * sizeof *ix->answers);
  ix->calls[nc] = NULL; /* the spare last entries read as zero, as they always have */
  ix->results[nr] = NULL;
  ix->call_turn[nc] = ix->call_pos[nc] = ix->result_turn[nr] = 0;
  ix->pair[nr] = 0;

  /* Small histories: the open calls (neither answered nor server calls) in document order, with
   * their IDs beside them, so that the pairing scans read one contiguous array. Large ones: the
   * open calls chained by ID, and the last assistant turn's by name (made when first needed). */
  bool hashed = nc > LINEAR_PAIRING_MAX;
  uint32_t *open_idx = NULL;
  cs_str *open_id = NULL;
  chain_map by_id = {0}, by_name = {0};
  uint32_t *next_name = NULL;
  int64_t by_name_turn = -1, last_assistant_turn = -1; /* by_name holds that turn's calls */
  if (hashed) {
    chain_map_init(&by_id, nc, cs_arena_alloc(a, ((size_t)nc + 1) * sizeof(uint32_t)), a);
    next_name = cs_arena_alloc(a, ((size_t)nc + 1) * sizeof *next_name);
  } else {
    open_idx = cs_arena_alloc(a, ((size_t)nc + 1) * sizeof *open_idx);
    open_id = cs_arena_alloc(a, ((size_t)nc + 1) * sizeof *open_id);
  }
  uint32_t nopen = 0;
  uint32_t ci = 0, ri = 0;
  int64_t last_assistant_first = -1, last_assistant_end = -1; /* global call range of that turn */
  for (uint32_t t = 0; t < h->nturns; t++) {
    const cs_turn *turn = &h->turns[t];
    /* Only assistant turns carry calls; a hand-built turn of another role that has some is still
     * indexed, so that ix->ncalls (= cs_history_ncalls) never counts calls left unfilled. */
    if (turn->role == CS_ROLE_ASSISTANT || turn->ncalls) {
      last_assistant_first = ci;
      last_assistant_turn = t;
      for (uint32_t k = 0; k < turn->ncalls; k++, ci++) {
        ix->calls[ci] = &turn->calls[k];
        ix->call_turn[ci] = t;
        ix->call_pos[ci] = k;
        if (turn->calls[k].server)
          continue;
        if (hashed) {
          if (!cs_str_is_blank(turn->calls[k].id)) /* a blank ID is never a result's call_id */
            chain_add(&by_id, turn->calls[k].id, ci);
        } else {
          open_idx[nopen] = ci;
          open_id[nopen++] = turn->calls[k].id;
        }
      }
      last_assistant_end = ci;
    }
    for (uint32_t k = 0; k < turn->nresults; k++, ri++) {
      const cs_result *r = &turn->results[k];
      ix->results[ri] = r;
      ix->result_turn[ri] = t;
      if (hashed) {
        uint32_t c = NONE;
        if (!cs_str_is_blank(r->call_id)) {
          c = chain_take(&by_id, r->call_id, ix->answers);
        } else if (last_assistant_first >= 0) {
          if (by_name_turn != last_assistant_turn) {
            uint32_t first = (uint32_t)last_assistant_first, end = (uint32_t)last_assistant_end;
            chain_map_init(&by_name, end - first, next_name, a);
            for (uint32_t j = first; j < end; j++)
              if (!ix->calls[j]->server && !ix->answers[j])
                chain_add(&by_name, ix->calls[j]->name, j);
            by_name_turn = last_assistant_turn;
          }
          c = chain_take(&by_name, r->name, ix->answers);
        }
        ix->pair[ri] = c == NONE ? -1 : (int32_t)c;
        if (c != NONE)
          ix->answers[c] = 1;
        continue;
      }
      uint32_t j = 0;
      if (!cs_str_is_blank(r->call_id)) {
        /* the earliest open call with a byte-identical ID */
        while (j < nopen && !cs_str_eq(open_id[j], r->call_id))
          j++;
      } else if (last_assistant_first >= 0) {
        /* positional: the earliest open call of the most recent assistant turn with the same name */
        while (j < nopen && open_idx[j] < (uint64_t)last_assistant_first)
          j++;
        while (j < nopen && open_idx[j] < (uint64_t)last_assistant_end &&
               !cs_str_eq(ix->calls[open_idx[j]]->name, r->name))
          j++;
        if (j < nopen && open_idx[j] >= (uint64_t)last_assistant_end)
          j = nopen;
      } else {
        j = nopen;
      }
      if (j == nopen) {
        ix->pair[ri] = -1; /* an orphan */
        continue;
      }
      ix->pair[ri] = (int32_t)open_idx[j];
      ix->answers[open_idx[j]] = 1;
      nopen--;
      memmove(open_idx + j, open_idx + j + 1, (nopen - j) * sizeof *open_idx);
      memmove(open_id + j, open_id + j + 1, (nopen - j) * sizeof *open_id);
    }
  }
}

cs_history cs_history_clone(const cs_history *h, cs_arena *a) {
  cs_history out = {CS_ARENA_NEW(a, cs_turn, h->nturns + 1), h->nturns};
  for (uint32_t t = 0; t < h->nturns; t++) {
    const cs_turn *src = &h->turns[t];
    cs_turn *dst = &out.turns[t];
    *dst = *src;
    dst->turn_key = cs_arena_str(a, src->turn_key);
    dst->text = cs_arena_str(a, src->text);
    dst->calls = CS_ARENA_NEW(a, cs_call, src->ncalls + 1);
    for (uint32_t k = 0; k < src->ncalls; k++) {
      dst->calls[k] = src->calls[k];
      dst->calls[k].id = cs_arena_str(a, src->calls[k].id);
      dst->calls[k].name = cs_arena_str(a, src->calls[k].name);
      dst->calls[k].args = cs_arena_str(a, src->calls[k].args);
    }
    dst->results = CS_ARENA_NEW(a, cs_result, src->nresults + 1);
    for (uint32_t k = 0; k < src->nresults; k++) {
      dst->results[k].call_id = cs_arena_str(a, src->results[k].call_id);
      dst->results[k].name = cs_arena_str(a, src->results[k].name);
      dst->results[k].content = cs_arena_str(a, src->results[k].content);
      dst->results[k].content_json = src->results[k].content_json;
    }
  }
  return out;
}

cs_answer cs_answer_new(uint32_t ncalls, uint32_t nresults, cs_arena *a) {
  cs_answer x = {CS_ARENA_NEW(a, cs_str, ncalls + 1), ncalls, CS_ARENA_NEW(a, cs_str, nresults + 1), nresults};
  return x;
}

void cs_answer_pair_results(cs_answer *ans, const cs_history_index *ix) {
  for (uint32_t r = 0; r < ix->nresults; r++)
    ans->results[r] = ix->pair[r] >= 0 ? ans->calls[ix->pair[r]] : CS_NULL_STR;
}

bool cs_answer_eq(const cs_answer *x, const cs_answer *y) {
  if (x->ncalls != y->ncalls || x->nresults != y->nresults)
    return false;
  for (uint32_t i = 0; i < x->ncalls; i++)
    if (!cs_str_eq(x->calls[i], y->calls[i]))
      return false;
  for (uint32_t i = 0; i < x->nresults; i++)
    if (!cs_str_eq(x->results[i], y->results[i]))
      return false;
  return true;
}
