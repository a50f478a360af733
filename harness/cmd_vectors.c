/* harness/cmd_vectors.c: `callsign vectors --check | --generate [FILE]`. The vectors are the
 * specification of canonical v1 and of the reference mappers: --check recomputes every expected
 * value with the reference and checks every wire ID against its target's default rule; --generate
 * keeps every existing test (and its tcId), recomputes its expectations, and adds generated
 * histories until every pathology class has enough tests. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/history_json.h"
#include "generators/history_gen.h"
#include "generators/transforms.h"
#include "harness/cli.h"
#include "harness/session.h"
#include "harness/vectors.h"
#include "providers/canonical.h"

#define MIN_PER_LABEL 8
#define MIN_TESTS 220

/* Hand-written cases that name a known trap; the rest are generated. */
static const struct {
  const char *comment;
  const char *flags;
  const char *history;
} named[] = {
    {"raw ID and tool name hold '|': joined literally, both calls begin openai_chat|a|b|c|t; the length-prefixed "
     "encoding keeps the fields apart",
     "id.illegal",
     "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"turn_key\":\"t\",\"calls\":["
     "{\"id\":\"a|b\",\"name\":\"c\"},{\"id\":\"a\",\"name\":\"b|c\"}]}]}"},
    {"null and empty IDs are different inputs", "id.missing id.empty",
     "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"gemini\",\"turn_key\":\"t0\",\"calls\":["
     "{\"id\":null,\"name\":\"glob\"},{\"id\":\"\",\"name\":\"glob\"}]},{\"role\":\"tool\",\"results\":["
     "{\"call_id\":null,\"name\":\"glob\",\"content\":\"a\"},{\"call_id\":\"\",\"name\":\"glob\",\"content\":\"b\"}]}]"
     "}"},
    {"the same tuple twice (repeated turn_key) is resolved by the attempt field", "id.dup_across_turns",
     "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"turn_key\":\"k\",\"calls\":["
     "{\"id\":\"call_0\",\"name\":\"glob\"}]},{\"role\":\"tool\",\"results\":[{\"call_id\":\"call_0\",\"name\":"
     "\"glob\"}]},"
     "{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"turn_key\":\"k\",\"calls\":[{\"id\":\"call_0\",\"name\":"
     "\"glob\"}]},{\"role\":\"tool\",\"results\":[{\"call_id\":\"call_0\",\"name\":\"glob\"}]}]}"},
    {"a canonical look-alike is kept; its duplicate is re-derived", "id.canonical_lookalike",
     "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"unknown\",\"turn_key\":\"t0\",\"calls\":["
     "{\"id\":\"hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA\",\"name\":\"edit\"},{\"id\":\"hist_tool_AAAAAAAAAAAAAAAAAAAAAAAA\","
     "\"name\":\"edit\"}]}]}"},
    {"a Kimi-produced history maps to itself on kimi", "native.kimi",
     "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"kimi\",\"turn_key\":\"t0\",\"calls\":["
     "{\"id\":\"functions.glob:0\",\"name\":\"glob\"},{\"id\":\"functions.read_file:1\",\"name\":\"read_file\"}]},"
     "{\"role\":\"tool\",\"results\":[{\"call_id\":\"functions.glob:0\",\"name\":\"glob\"},{\"call_id\":"
     "\"functions.read_file:1\",\"name\":\"read_file\"}]},{\"role\":\"assistant\",\"provider\":\"kimi\",\"turn_key\":"
     "\"t2\",\"calls\":[{\"id\":\"functions.glob:2\",\"name\":\"glob\"}]}]}"},
    {"a server call keeps its srvtoolu_ ID on anthropic and has no result", "native.server struct.server_call",
     "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"anthropic\",\"turn_key\":\"t0\",\"calls\":["
     "{\"id\":\"srvtoolu_01AbC\",\"name\":\"web_search\",\"server\":true},{\"id\":\"toolu_01XyZ\",\"name\":\"glob\"}]},"
     "{\"role\":\"tool\",\"results\":[{\"call_id\":\"toolu_01XyZ\",\"name\":\"glob\"}]}]}"},
    {"a server call whose ID fails the srvtoolu_ pattern gets srvtoolu_ and 24 base62 characters on anthropic",
     "struct.server_call",
     "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"anthropic\",\"turn_key\":\"t0\",\"calls\":["
     "{\"id\":\"srvtoolu-01AbC\",\"name\":\"web_search\",\"server\":true},{\"id\":\"toolu_01XyZ\",\"name\":\"glob\"}]},"
     "{\"role\":\"tool\",\"results\":[{\"call_id\":\"toolu_01XyZ\",\"name\":\"glob\"}]}]}"},
    {"sanitizing twins: a.b and a_b must stay distinct", "twin.sanitize id.illegal",
     "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"turn_key\":\"t0\",\"calls\":["
     "{\"id\":\"a.b\",\"name\":\"glob\"},{\"id\":\"a_b\",\"name\":\"glob\"}]},{\"role\":\"tool\",\"results\":["
     "{\"call_id\":\"a_b\",\"name\":\"glob\"},{\"call_id\":\"a.b\",\"name\":\"glob\"}]}]}"},
    {"an orphan result is dropped (null)", "struct.orphan_result",
     "{\"turns\":[{\"role\":\"tool\",\"results\":[{\"call_id\":\"call_gone\",\"name\":\"glob\"}]},"
     "{\"role\":\"assistant\",\"provider\":\"anthropic\",\"turn_key\":\"t1\",\"calls\":[{\"id\":\"toolu_1\",\"name\":"
     "\"glob\"}]}]}"},
};

static cJSON *answer_json(const cs_answer *a) {
  cJSON *o = cJSON_CreateObject();
  cJSON *c = cJSON_AddArrayToObject(o, "calls"), *r = cJSON_AddArrayToObject(o, "results");
  for (uint32_t i = 0; i < a->ncalls; i++)
    cJSON_AddItemToArray(c, a->calls[i].ptr ? cJSON_CreateString(a->calls[i].ptr) : cJSON_CreateNull());
  for (uint32_t i = 0; i < a->nresults; i++)
    cJSON_AddItemToArray(r, a->results[i].ptr ? cJSON_CreateString(a->results[i].ptr) : cJSON_CreateNull());
  return o;
}

/* Expected values of one history: {"canonical":..., "wire":{target:...}}; also checks rules. */
static int expectations(const cs_history *h, cs_ruleset *rs, const cs_digest *d, cs_arena *a, cJSON **canon_out,
                        cJSON **wire_out, char *why, size_t why_len) {
  cs_history_index ix;
  cs_history_index_build(h, a, &ix);
  cs_answer canon = cs_canonicalize(h, &ix, d, a);
  *canon_out = answer_json(&canon);
  *wire_out = cJSON_CreateObject();
  for (uint32_t c = 0; c < canon.ncalls; c++)
    if (!cs_is_canonical(canon.calls[c])) {
      snprintf(why, why_len, "canonical call %u is not ^hist_tool_[A-Za-z0-9_-]{24}$", c);
      return -1;
    }
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    cs_answer w = cs_reference_emit(h, &ix, &canon, rs, (cs_target_id)t, d, a);
    char rwhy[CS_RULE_WHY_MAX];
    for (uint32_t c = 0; c < w.ncalls; c++)
      if (cs_rule_check(rs, (cs_target_id)t, w.calls[c], c, ix.calls[c]->server, rwhy, sizeof rwhy) != CS_RULE_MET) {
        snprintf(why, why_len, "%s call %u: %s", cs_target_get((cs_target_id)t)->name, c, rwhy);
        return -1;
      }
    cJSON_AddItemToObject(*wire_out, cs_target_get((cs_target_id)t)->name, answer_json(&w));
  }
  return 0;
}

static cJSON *history_cjson(const cs_history *h) {
  cs_buf b = {0};
  cs_history_write(&b, h);
  cJSON *j = cJSON_ParseWithLength(b.data, b.len);
  cs_buf_free(&b);
  return j;
}

static bool same_json(const cJSON *a, const cJSON *b) {
  return a && b && cJSON_Compare(a, b, 1);
}

/* Finds the first place where the file's expectation `want` and the reference's `got` differ, in
 * the reference's order: appends its path (".mistral.calls[1]") to `path` and sets *w and *g to
 * the values there (NULL: absent on that side). False when they are the same. */
static bool first_difference(const cJSON *want, const cJSON *got, cs_buf *path, const cJSON **w, const cJSON **g) {
  size_t at = path->len;
  if (cJSON_IsObject(want) && cJSON_IsObject(got)) {
    for (const cJSON *x = got->child; x; x = x->next) {
      cs_buf_printf(path, ".%s", x->string);
      if (first_difference(cJSON_GetObjectItemCaseSensitive(want, x->string), x, path, w, g))
        return true;
      path->len = at, path->data[at] = 0;
    }
    for (const cJSON *x = want->child; x; x = x->next)
      if (!cJSON_GetObjectItemCaseSensitive(got, x->string)) {
        cs_buf_printf(path, ".%s", x->string);
        *w = x, *g = NULL;
        return true;
      }
    return false;
  }
  if (cJSON_IsArray(want) && cJSON_IsArray(got)) {
    const cJSON *x = want->child, *y = got->child;
    for (int i = 0; x || y; i++, x = x ? x->next : NULL, y = y ? y->next : NULL) {
      cs_buf_printf(path, "[%d]", i);
      if (first_difference(x, y, path, w, g))
        return true;
      path->len = at, path->data[at] = 0;
    }
    return false;
  }
  if (want && got && cJSON_Compare(want, got, 1))
    return false;
  *w = want, *g = got;
  return true;
}

/* A value of a vectors file for a message: compact JSON on one line, cut; "nothing" when absent. */
static const char *shown_value(cs_buf *b, const cJSON *v) {
  if (!v)
    return "nothing";
  char *text = cJSON_PrintUnformatted(v);
  cs_shown(b, text, 80);
  free(text);
  return b->data;
}

/* Prints which expectation of test `tc` disagrees with the reference, where, and both values. */
static void print_difference(int tc, const char *what, const cJSON *want, const cJSON *got) {
  cs_buf path = {0}, ws = {0}, gs = {0};
  const cJSON *w = NULL, *g = NULL;
  cs_buf_puts(&path, what);
  first_difference(want, got, &path, &w, &g);
  printf("tcId %d: %s differs from the reference: the file has %s, the reference gives %s\n", tc, path.data,
         shown_value(&ws, w), shown_value(&gs, g));
  cs_buf_free(&path);
  cs_buf_free(&ws);
  cs_buf_free(&gs);
}

static int check(const char *path, cs_ruleset *rs, const cs_digest *d) {
  cs_err err = {{0}};
  cJSON *root = cs_vectors_load(path, true, &err);
  if (!root)
    return cs_fail(CS_EXIT_USAGE, "%s", err.msg);
  cs_arena a = {0};
  int n = 0, bad = 0;
  const cJSON *groups = cJSON_GetObjectItemCaseSensitive(root, "testGroups");
  for (const cJSON *g = groups->child; g; g = g->next) {
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(g, "tests");
    for (const cJSON *t = tests ? tests->child : NULL; t; t = t->next, n++) {
      cs_arena_reset(&a);
      const cJSON *id = cJSON_GetObjectItemCaseSensitive(t, "tcId");
      int tc = cJSON_IsNumber(id) ? id->valueint : -1;
      cs_history h;
      if (cs_history_from_cjson(cJSON_GetObjectItemCaseSensitive(t, "history"), "history", NULL, &a, &h, &err)) {
        printf("tcId %d: %s\n", tc, err.msg);
        bad++;
        continue;
      }
      cJSON *canon = NULL, *wire = NULL;
      char why[300];
      if (expectations(&h, rs, d, &a, &canon, &wire, why, sizeof why)) {
        printf("tcId %d: %s\n", tc, why);
        bad++;
      } else if (!same_json(canon, cJSON_GetObjectItemCaseSensitive(t, "canonical"))) {
        print_difference(tc, "canonical", cJSON_GetObjectItemCaseSensitive(t, "canonical"), canon);
        bad++;
      } else if (!same_json(wire, cJSON_GetObjectItemCaseSensitive(t, "wire"))) {
        print_difference(tc, "wire", cJSON_GetObjectItemCaseSensitive(t, "wire"), wire);
        bad++;
      }
      cJSON_Delete(canon);
      cJSON_Delete(wire);
    }
  }
  cs_arena_free(&a);
  cJSON_Delete(root);
  if (bad)
    return cs_fail(CS_EXIT_FAIL, "vectors: %d of %d tests disagree with the reference (%s)", bad, n, path);
  printf("vectors: %d tests, all agree with the reference and satisfy every target's rule (%s)\n", n, path);
  return CS_EXIT_OK;
}

/* Plants implementation-aware twins with the reference itself, so vectors exercise those paths. */
static cs_history plant_reference_twins(const cs_gen_case *gc, cs_ruleset *rs, const cs_digest *d, cs_arena *a) {
  cs_history h = gc->h;
  cs_history_index ix;
  cs_history_index_build(&gc->h, a, &ix);
  cs_answer canon = cs_canonicalize(&gc->h, &ix, d, a);
  for (uint32_t i = 0; i < gc->ntwins; i++) {
    const cs_twin_plan *tp = &gc->twins[i];
    if (tp->from_call >= ix.ncalls || tp->to_call >= ix.ncalls)
      continue;
    cs_str out;
    if (tp->via_normalize)
      out = ix.calls[tp->from_call]->id.ptr
                ? cs_reference_normalize(rs, (cs_target_id)tp->target, ix.calls[tp->from_call]->id, d, a)
                : CS_NULL_STR;
    else
      out = cs_reference_emit(&gc->h, &ix, &canon, rs, (cs_target_id)tp->target, d, a).calls[tp->from_call];
    if (out.ptr)
      h = cs_transform_plant(&h, tp->to_call, out, a);
  }
  return h;
}

static void add_test(cJSON *tests, int tc, const char *comment, cJSON *flags, cJSON *hist, cJSON *canon, cJSON *wire) {
  cJSON *t = cJSON_CreateObject();
  cJSON_AddNumberToObject(t, "tcId", tc);
  cJSON_AddStringToObject(t, "comment", comment);
  cJSON_AddItemToObject(t, "flags", flags);
  cJSON_AddItemToObject(t, "history", hist);
  cJSON_AddItemToObject(t, "canonical", canon);
  cJSON_AddItemToObject(t, "wire", wire);
  cJSON_AddItemToArray(tests, t);
}

/* --generate refused: a new test needs a tcId past the largest, and none is left below the limit
 * that --check holds tcIds to. */
static int no_tcid_left(const char *path, int max_tc) {
  return cs_fail(CS_EXIT_USAGE, "vectors: %s: no tcId left for a new test: tcIds go from 1 to %d, and %d is taken",
                 path, CS_VECTORS_MAX_TCID, max_tc);
}

static int generate(const char *path, cs_ruleset *rs, const cs_digest *d) {
  cs_err err = {{0}};
  cJSON *old = NULL;
  FILE *probe = fopen(path, "r");
  /* Only a file that is not there is a new one: one that cannot be read must not be overwritten. */
  if (!probe && errno != ENOENT)
    return cs_fail(CS_EXIT_USAGE, "%s: cannot open: %s", path, strerror(errno));
  if (probe) {
    fclose(probe);
    if (!(old = cs_vectors_load(path, false, &err)))
      return cs_fail(CS_EXIT_USAGE, "%s", err.msg);
  }
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "algorithm", "callsign-canonical-v1");
  cJSON_AddStringToObject(root, "generatorVersion", CS_VERSION);
  cJSON *header = cJSON_AddArrayToObject(root, "header");
  cJSON_AddItemToArray(header, cJSON_CreateString("Test vectors of callsign canonical v1 and of the reference wire "
                                                  "mappers under the default target rules."));
  cJSON_AddItemToArray(header, cJSON_CreateString("canonical: hist_tool_ + first 24 chars of base64url(SHA-256("
                                                  "encode(provider, raw_id, tool_name, turn_key, call_index)))"));
  cJSON_AddItemToArray(header, cJSON_CreateString("encode: 'callsign-canonical-v1,' then each field as "
                                                  "'<byte length>:<bytes>,' or '~,' for null; duplicates append the "
                                                  "attempt number as a sixth field."));
  cJSON_AddItemToArray(header,
                       cJSON_CreateString("results take their call's ID by the PROTOCOL.md pairing rule; "
                                          "orphan results are null. tcIds are stable: regenerating keeps them."));
  cJSON *notes = cJSON_AddObjectToObject(root, "notes");
  for (int l = 0; l < CS_LABEL_COUNT; l++)
    cJSON_AddStringToObject(notes, cs_label_name((cs_label)l), cs_label_desc((cs_label)l));
  cJSON *count = cJSON_AddNumberToObject(root, "numberOfTests", 0);
  cJSON *groups = cJSON_AddArrayToObject(root, "testGroups");
  cJSON *group = cJSON_CreateObject();
  cJSON_AddStringToObject(group, "type", CS_VECTORS_GROUP_TYPE);
  cJSON *tests = cJSON_AddArrayToObject(group, "tests");
  cJSON_AddItemToArray(groups, group);

  cs_arena a = {0};
  int per_label[CS_LABEL_COUNT] = {0}, max_tc = 0, n = 0;
  char why[300];
  /* Keep every existing test: its tcId, comment, flags and history; recompute the expectations. */
  const cJSON *og = old ? cJSON_GetObjectItemCaseSensitive(old, "testGroups") : NULL;
  for (const cJSON *g = og ? og->child : NULL; g; g = g->next) {
    const cJSON *ot = cJSON_GetObjectItemCaseSensitive(g, "tests");
    for (const cJSON *t = ot ? ot->child : NULL; t; t = t->next) {
      cs_arena_reset(&a);
      cs_history h;
      const cJSON *hj = cJSON_GetObjectItemCaseSensitive(t, "history");
      int tc = cJSON_GetObjectItemCaseSensitive(t, "tcId") ? cJSON_GetObjectItemCaseSensitive(t, "tcId")->valueint : 0;
      if (cs_history_from_cjson(hj, "history", NULL, &a, &h, &err)) {
        cJSON_Delete(old);
        cJSON_Delete(root);
        return cs_fail(CS_EXIT_USAGE, "%s: tcId %d: %s", path, tc, err.msg);
      }
      cJSON *canon, *wire;
      if (expectations(&h, rs, d, &a, &canon, &wire, why, sizeof why)) {
        cJSON_Delete(old);
        cJSON_Delete(root);
        return cs_fail(CS_EXIT_FAIL, "tcId %d: the reference breaks a rule: %s", tc, why);
      }
      const cJSON *fl = cJSON_GetObjectItemCaseSensitive(t, "flags");
      for (const cJSON *f = fl ? fl->child : NULL; f; f = f->next)
        if (cJSON_IsString(f) && cs_label_find(f->valuestring) >= 0)
          per_label[cs_label_find(f->valuestring)]++;
      const cJSON *cm = cJSON_GetObjectItemCaseSensitive(t, "comment");
      add_test(tests, tc, cJSON_IsString(cm) ? cm->valuestring : "", cJSON_Duplicate(fl, 1), cJSON_Duplicate(hj, 1),
               canon, wire);
      max_tc = tc > max_tc ? tc : max_tc;
      n++;
    }
  }
  /* The named cases, once. */
  for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
    bool present = false;
    for (const cJSON *t = tests->child; t && !present; t = t->next) {
      const cJSON *cm = cJSON_GetObjectItemCaseSensitive(t, "comment");
      present = cJSON_IsString(cm) && !strcmp(cm->valuestring, named[i].comment);
    }
    if (present)
      continue;
    if (max_tc >= CS_VECTORS_MAX_TCID) {
      cJSON_Delete(root);
      cJSON_Delete(old);
      cs_arena_free(&a);
      return no_tcid_left(path, max_tc);
    }
    cs_arena_reset(&a);
    cs_history h;
    if (cs_history_parse(cs_str_c(named[i].history), NULL, &a, &h, &err)) {
      cJSON_Delete(root);
      cJSON_Delete(old);
      return cs_fail(CS_EXIT_USAGE, "named vector %zu: %s", i, err.msg);
    }
    cJSON *canon, *wire;
    if (expectations(&h, rs, d, &a, &canon, &wire, why, sizeof why)) {
      cJSON_Delete(root);
      cJSON_Delete(old);
      return cs_fail(CS_EXIT_FAIL, "named vector %zu: %s", i, why);
    }
    cJSON *flags = cJSON_CreateArray();
    char fl[256];
    snprintf(fl, sizeof fl, "%s", named[i].flags);
    for (char *tok = strtok(fl, " "); tok; tok = strtok(NULL, " ")) {
      cJSON_AddItemToArray(flags, cJSON_CreateString(tok));
      if (cs_label_find(tok) >= 0)
        per_label[cs_label_find(tok)]++;
    }
    add_test(tests, ++max_tc, named[i].comment, flags, history_cjson(&h), canon, wire);
    n++;
  }
  /* Generated cases until every class is covered. IDs are capped at 4 KiB to keep the file small. */
  cs_choices ch = {0};
  cs_gen_config gc = {.max_id_len = 4096, .max_rounds = 3, .max_calls = 3};
  for (uint64_t seed = 1; seed < 200000; seed++) {
    bool done = n >= MIN_TESTS;
    for (int l = 0; l < CS_LABEL_COUNT && done; l++)
      done = per_label[l] >= MIN_PER_LABEL;
    if (done)
      break;
    if (max_tc >= CS_VECTORS_MAX_TCID) {
      cJSON_Delete(root);
      cJSON_Delete(old);
      cs_choices_free(&ch);
      cs_arena_free(&a);
      return no_tcid_left(path, max_tc);
    }
    cs_arena_reset(&a);
    cs_choices_record(&ch, cs_seed_mix(0x7e57 ^ seed));
    cs_gen_case g;
    cs_gen_history(&ch, &gc, &a, &g);
    bool useful = n < MIN_TESTS && (seed % 7 == 0);
    for (int l = 0; l < CS_LABEL_COUNT && !useful; l++)
      useful = (g.labels >> l & 1u) && per_label[l] < MIN_PER_LABEL;
    if (!useful)
      continue;
    cs_history h = plant_reference_twins(&g, rs, d, &a);
    cJSON *hist = history_cjson(&h);
    bool dup = false;
    for (const cJSON *t = tests->child; t && !dup; t = t->next)
      dup = same_json(hist, cJSON_GetObjectItemCaseSensitive(t, "history"));
    if (dup) {
      cJSON_Delete(hist);
      continue;
    }
    cJSON *canon, *wire;
    if (expectations(&h, rs, d, &a, &canon, &wire, why, sizeof why)) {
      cJSON_Delete(hist);
      cJSON_Delete(root);
      cJSON_Delete(old);
      cs_choices_free(&ch);
      return cs_fail(CS_EXIT_FAIL, "generated vector (seed %llu): the reference breaks a rule: %s",
                     (unsigned long long)seed, why);
    }
    cJSON *flags = cJSON_CreateArray();
    cs_buf comment = {0};
    cs_buf_puts(&comment, "generated:");
    for (int l = 0; l < CS_LABEL_COUNT; l++)
      if (g.labels >> l & 1u) {
        cJSON_AddItemToArray(flags, cJSON_CreateString(cs_label_name((cs_label)l)));
        cs_buf_printf(&comment, " %s", cs_label_name((cs_label)l));
        per_label[l]++;
      }
    add_test(tests, ++max_tc, comment.data, flags, hist, canon, wire);
    cs_buf_free(&comment);
    n++;
  }
  cs_choices_free(&ch);
  cJSON_SetNumberValue(count, n);
  int status = CS_EXIT_OK;
  if (cs_write_json(path, root, &err))
    status = cs_fail(CS_EXIT_USAGE, "%s", err.msg);
  cJSON_Delete(root);
  cJSON_Delete(old);
  cs_arena_free(&a);
  if (status == CS_EXIT_OK) {
    int low = 0;
    for (int l = 0; l < CS_LABEL_COUNT; l++)
      low += per_label[l] < MIN_PER_LABEL;
    printf("vectors: wrote %d tests to %s (%d classes below %d tests)\n", n, path, low, MIN_PER_LABEL);
  }
  return status;
}

int cs_cmd_vectors(int argc, char **argv) {
  cs_options o;
  cs_err err = {{0}};
  if (cs_options_parse(&o, argc, argv, 2, CS_CMD_VECTORS, &err))
    return cs_fail(CS_EXIT_USAGE, "%s", err.msg);
  if (o.check && o.generate)
    return cs_fail(CS_EXIT_USAGE, "vectors: --check or --generate, not both");
  if (o.npositional > 1)
    return cs_fail(CS_EXIT_USAGE, "vectors: at most one file");
  /* --check finds the vectors as run does (here, else by the binary); --generate writes only the
   * file it is given, or the one here. */
  char located[4200];
  const char *path = o.npositional ? o.positional[0]
                     : o.generate  ? CS_VECTORS_DEFAULT
                                   : cs_vectors_locate(located, sizeof located);
  /* '-' is stdin to --check; --generate reads its file and writes it back, which stdin is not. */
  if (o.generate && !strcmp(path, "-"))
    return cs_fail(CS_EXIT_USAGE, "vectors: --generate rewrites a file in place, and '-' (stdin) is none: give a path "
                                  "(./- for a file named -)");
  cs_ruleset *rs = cs_ruleset_new(&err);
  cs_hasher *hs = cs_hasher_new();
  if (!rs || !hs) {
    cs_ruleset_free(rs);
    cs_hasher_free(hs);
    return cs_fail(CS_EXIT_USAGE, "%s", rs ? "OpenSSL provides no SHA-256" : err.msg);
  }
  cs_digest d = {hs, NULL, NULL};
  int status = o.generate ? generate(path, rs, &d) : check(path, rs, &d);
  cs_hasher_free(hs);
  cs_ruleset_free(rs);
  return status;
}
