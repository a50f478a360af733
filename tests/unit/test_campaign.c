/* tests/unit/test_campaign.c: fuzz campaigns: the window rule, selection and merging of findings
 * (two shards merged equal the unsharded campaign), distinct signatures, and the results
 * directory round trip. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/campaign.h"

/* Gives f the settings of a campaign run with the default options (a summary is written only with
 * its campaign's settings). */
static void default_settings(cs_findings *f, const cs_ruleset *rs) {
  cs_campaign_config cfg = {0};
  cs_findings_set_settings(f, &cfg, rs);
}

static cs_ruleset *ruleset(void) {
  cs_err err = {{0}};
  cs_ruleset *rs = cs_ruleset_new(&err);
  cr_assert_not_null(rs, "%s", err.msg);
  return rs;
}

Test(campaign, windows_grow_by_four) {
  cr_assert_eq(cs_campaign_window(0), 0);
  cr_assert_eq(cs_campaign_window(1), 1);
  cr_assert_eq(cs_campaign_window(3), 1);
  cr_assert_eq(cs_campaign_window(4), 2);
  cr_assert_eq(cs_campaign_window(15), 2);
  cr_assert_eq(cs_campaign_window(16), 3);
  cr_assert_eq(cs_campaign_window(UINT64_MAX - 1), 32);
  cr_assert_eq(cs_campaign_window(UINT64_MAX), CS_WINDOW_CORPUS);
}

static void add(cs_findings *f, const char *prop, const char *tgt, uint64_t index, const char *sig) {
  cs_findings one = {0};
  snprintf(one.impl, sizeof one.impl, "x");
  one.n = one.cap = 1;
  one.f = calloc(1, sizeof *one.f);
  snprintf(one.f[0].property, sizeof one.f[0].property, "%s", prop);
  snprintf(one.f[0].target, sizeof one.f[0].target, "%s", tgt);
  snprintf(one.f[0].signature, sizeof one.f[0].signature, "%s", sig);
  one.f[0].case_index = index;
  one.f[0].window = cs_campaign_window(index);
  one.f[0].history_json = strdup("{}");
  one.f[0].message = strdup("m");
  cs_err err;
  cr_assert_eq(cs_findings_merge(f, &one, &err), 0);
  cs_findings_free(&one);
}

Test(campaign, select_keeps_the_smallest_index_per_window) {
  cs_findings f = {0};
  add(&f, "emit.unique", "anthropic", 9, "aaaaaaaaaaaaaaaa");
  add(&f, "emit.unique", "anthropic", 5, "bbbbbbbbbbbbbbbb"); /* same window [4,16): wins */
  add(&f, "emit.unique", "anthropic", 20, "aaaaaaaaaaaaaaaa");
  add(&f, "emit.unique", "bedrock", 9, "aaaaaaaaaaaaaaaa");
  add(&f, "emit.pair", "-", UINT64_MAX, "cccccccccccccccc");
  add(&f, "emit.pair", "-", UINT64_MAX, "cccccccccccccccc"); /* the same corpus case twice */
  add(&f, "emit.pair", "-", UINT64_MAX, "dddddddddddddddd");
  add(&f, "emit.unique", "anthropic", 100, "bbbbbbbbbbbbbbbb"); /* another window, b's signature again */
  cr_assert_eq(f.n, 6);
  cr_assert_eq(f.cases, 0);
  bool saw5 = false, saw9 = false;
  for (size_t i = 0; i < f.n; i++) {
    if (!strcmp(f.f[i].target, "anthropic") && f.f[i].case_index == 5)
      saw5 = true;
    if (!strcmp(f.f[i].target, "anthropic") && f.f[i].case_index == 9)
      saw9 = true;
  }
  cr_assert(saw5 && !saw9);
  size_t idx[8];
  /* distinct: anthropic b (case 5, not 100), anthropic a (case 20), bedrock a, pair c, pair d */
  cr_assert_eq(cs_findings_distinct(&f, idx), 5);
  size_t b_count = 0;
  for (size_t k = 0; k < 5; k++)
    if (!strcmp(f.f[idx[k]].signature, "bbbbbbbbbbbbbbbb")) {
      b_count++;
      cr_assert_eq(f.f[idx[k]].case_index, 5, "the first of a signature's findings stands for it");
    }
  cr_assert_eq(b_count, 1);
  cs_findings_free(&f);
}

Test(campaign, merge_refuses_other_implementations) {
  cs_findings a = {0}, b = {0};
  snprintf(a.impl, sizeof a.impl, "one");
  snprintf(b.impl, sizeof b.impl, "two");
  cs_err err = {{0}};
  cr_assert_eq(cs_findings_merge(&a, &b, &err), -1);
  cr_assert(strstr(err.msg, "cannot merge") != NULL);
}

Test(campaign, merge_refuses_parts_that_share_cases) {
  static const struct {
    const char *a, *b;
    bool overlap;
  } c[] = {{"0/2", "0/2", true}, {"0/2", "1/2", false}, {"all", "1/4", true},          {"1/4", "3/8", false},
           {"1/4", "5/8", true}, {"0/3", "1/2", true},  {"0/4 2/4", "1/4 3/4", false}, {"0/4 2/4", "1/4 2/4", true}};
  for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
    cs_findings a = {0}, b = {0};
    snprintf(a.impl, sizeof a.impl, "x");
    snprintf(b.impl, sizeof b.impl, "x");
    a.parts = strdup(c[i].a);
    b.parts = strdup(c[i].b);
    cs_err err = {{0}};
    int rc = cs_findings_merge(&a, &b, &err);
    cr_assert_eq(rc, c[i].overlap ? -1 : 0, "%s with %s: %s", c[i].a, c[i].b, err.msg);
    if (c[i].overlap)
      cr_assert(strstr(err.msg, "share cases") != NULL, "%s", err.msg);
    cs_findings_free(&a);
    cs_findings_free(&b);
  }
}

static cs_findings campaign(uint32_t si, uint32_t sn, uint64_t cases) {
  cs_err err = {{0}};
  cs_ruleset *rs = cs_ruleset_new(&err);
  cr_assert_not_null(rs);
  cs_impl_env env = {rs, 1};
  cs_impl *impl = cs_builtin_find("anthropic-sanitize")->create(&env, &err);
  cr_assert_not_null(impl);
  cs_campaign_config cfg = {.run = {.seed = 1, .cases = cases, .shard_i = si, .shard_n = sn}};
  cs_findings f = {0};
  cr_assert_eq(cs_campaign_run(impl, rs, &cfg, &f, &err), 0, "%s", err.msg);
  cs_findings_select(&f);
  cs_impl_destroy(impl);
  cs_ruleset_free(rs);
  return f;
}

static void same_findings(const cs_findings *x, const cs_findings *y) {
  cr_assert_eq(x->n, y->n);
  for (size_t i = 0; i < x->n; i++) {
    cr_assert_str_eq(x->f[i].property, y->f[i].property);
    cr_assert_str_eq(x->f[i].target, y->f[i].target);
    cr_assert_eq(x->f[i].case_index, y->f[i].case_index);
    cr_assert_str_eq(x->f[i].signature, y->f[i].signature);
    cr_assert_str_eq(x->f[i].history_json, y->f[i].history_json);
  }
}

Test(campaign, shards_merged_equal_the_whole_campaign) {
  cs_findings all = campaign(0, 0, 300), s0 = campaign(0, 2, 300), s1 = campaign(1, 2, 300), merged = {0};
  cr_assert_gt(all.n, 3, "a buggy implementation should fail several properties");
  cr_assert_eq(all.cases, 300);
  cs_err err = {{0}};
  cr_assert_eq(cs_findings_merge(&merged, &s1, &err), 0);
  cr_assert_eq(cs_findings_merge(&merged, &s0, &err), 0);
  cr_assert_eq(merged.cases, 300);
  cr_assert_str_eq(merged.parts, "1/2 0/2");
  same_findings(&all, &merged);
  for (size_t i = 0; i < all.n; i++) {
    cr_assert_eq(strlen(all.f[i].signature), 16);
    cr_assert_not_null(all.f[i].token);
  }
  cs_findings_free(&all);
  cs_findings_free(&s0);
  cs_findings_free(&s1);
  cs_findings_free(&merged);
}

Test(campaign, results_directory_round_trip) {
  char dir[64];
  snprintf(dir, sizeof dir, "/tmp/cs-campaign-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  cs_findings f = campaign(0, 0, 100), back;
  cs_err err = {{0}};
  cr_assert_eq(cs_findings_write(dir, &f, true, &err), 0, "%s", err.msg);
  cr_assert_eq(cs_findings_read(dir, &back, &err), 0, "%s", err.msg);
  cr_assert_str_eq(back.impl, "anthropic-sanitize");
  cr_assert_eq(back.seed, 1);
  cr_assert_eq(back.cases, 100);
  cr_assert_str_eq(back.parts, "all");
  /* the settings of a campaign with the default options, as it recorded them */
  cs_findings_difference d;
  cr_assert_not(cs_findings_differ(&f, &back, &d), "%s: %s and %s", d.name, d.a, d.b);
  cr_assert_eq(back.settings.max_id_len, 65536);
  cr_assert_eq(back.settings.targets, (1u << CS_TARGET_COUNT) - 1);
  size_t np;
  cs_properties(&np);
  cr_assert_eq(back.settings.properties, (1ull << np) - 1);
  cr_assert_not(back.settings.strict);
  cs_buf overrides = {0};
  cr_assert_eq(cs_findings_rule_overrides(&back, &overrides), 0, "the default rules need no override");
  cs_findings_select(&back);
  same_findings(&f, &back);
  for (size_t i = 0; i < f.n; i++)
    cr_assert_str_eq(f.f[i].token, back.f[i].token);
  size_t idx[256];
  size_t nd = cs_findings_distinct(&f, idx);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "test $(ls '%s/cases/anthropic-sanitize' | wc -l) -eq %zu", dir, nd);
  cr_assert_eq(system(cmd), 0, "one case file per distinct finding");
  /* 64-bit seeds come back exactly (a JSON number above 2^53 would not) */
  cs_findings big = {0};
  cs_ruleset *rs = ruleset();
  default_settings(&big, rs);
  cs_ruleset_free(rs);
  snprintf(big.impl, sizeof big.impl, "x");
  cs_findings_set_shard(&big, 0, 0);
  big.seed = UINT64_MAX;
  /* so do the request kinds given up (a merge reports them) */
  big.given_up = 1u << 0 | 1u << (CS_KIND_COUNT - 1);
  cr_assert_not(back.interrupted, "a campaign that ran its course reads as not interrupted");
  big.interrupted = true; /* and so does an interrupted campaign */
  cr_assert_eq(cs_findings_write(dir, &big, false, &err), 0, "%s", err.msg);
  cs_findings again;
  cr_assert_eq(cs_findings_read(dir, &again, &err), 0, "%s", err.msg);
  cr_assert_eq(again.seed, UINT64_MAX);
  cr_assert_eq(again.given_up, big.given_up, "given up: %#x", again.given_up);
  cr_assert(again.interrupted);
  /* a merge is interrupted when any of its parts was */
  cs_findings merged = {0};
  cr_assert_eq(cs_findings_merge(&merged, &again, &err), 0, "%s", err.msg);
  cr_assert(merged.interrupted);
  cs_findings_free(&merged);
  cs_findings_free(&again);
  snprintf(cmd, sizeof cmd, "sed -i 's/\"interrupted\":\\s*true/\"interrupted\": \"yes\"/' '%s/summary.json'", dir);
  cr_assert_eq(system(cmd), 0);
  cr_assert_eq(cs_findings_read(dir, &again, &err), -1, "a summary whose interrupted is no boolean was read");
  cr_assert(strstr(err.msg, "interrupted is not true or false") != NULL, "%s", err.msg);
  cr_assert_eq(cs_findings_write(dir, &big, false, &err), 0, "%s", err.msg);
  /* a name that is no request kind is refused, not dropped */
  snprintf(cmd, sizeof cmd, "sed -i 's/\"canonicalize\"/\"canonicalise\"/' '%s/summary.json'", dir);
  cr_assert_eq(system(cmd), 0);
  cr_assert_eq(cs_findings_read(dir, &again, &err), -1);
  cr_assert(strstr(err.msg, "given_up is not a list of request kinds") != NULL, "%s", err.msg);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
  cs_findings_free(&f);
  cs_findings_free(&back);
  cs_findings_free(&big);
}

/* A summary keeps answers whole, and an answer may take up to 64 MiB: one such finding made a summary
 * past the JSON reader's default limit, which a merge, and the parent of a --jobs campaign, refused,
 * losing every finding. What callsign writes, it reads back. */
Test(campaign, a_summary_past_64_mib_is_read_back) {
  char dir[64];
  snprintf(dir, sizeof dir, "/tmp/cs-campaign-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  cs_findings f = campaign(0, 0, 100), back;
  cr_assert(f.n > 0);
  const size_t id_len = (size_t)65 << 20;
  char *answer = malloc(id_len + 32);
  cr_assert_not_null(answer);
  size_t o = (size_t)sprintf(answer, "{\"ids\":[\"");
  memset(answer + o, 'x', id_len);
  o += id_len;
  strcpy(answer + o, "\"]}");
  free(f.f[0].answer_json);
  f.f[0].answer_json = answer;
  cs_err err = {{0}};
  cr_assert_eq(cs_findings_write(dir, &f, false, &err), 0, "%s", err.msg);
  cr_assert_eq(cs_findings_read(dir, &back, &err), 0, "%s", err.msg);
  cr_assert_eq(back.n, f.n);
  bool found = false;
  for (size_t i = 0; i < back.n; i++)
    found |= back.f[i].answer_json && strlen(back.f[i].answer_json) == strlen(answer);
  cr_assert(found, "the 65 MiB answer did not come back whole");
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
  cs_findings_free(&f);
  cs_findings_free(&back);
}

Test(campaign, reading_a_non_summary_is_an_error) {
  cs_findings f;
  cs_err err = {{0}};
  cr_assert_eq(cs_findings_read("/nonexistent-callsign-dir", &f, &err), -1);
  cr_assert(strstr(err.msg, "summary.json") != NULL, "%s", err.msg);
}

/* A merge refuses parts that share cases; parts it could not read would share none, so the same
 * shard given twice would be counted twice. Such parts are refused when the summary is read. */
Test(campaign, a_summary_with_unreadable_parts_is_an_error) {
  char dir[64];
  snprintf(dir, sizeof dir, "/tmp/cs-campaign-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  cs_findings f = {0}, back;
  cs_ruleset *rs = ruleset();
  default_settings(&f, rs);
  cs_ruleset_free(rs);
  snprintf(f.impl, sizeof f.impl, "x");
  f.parts = strdup("0/4 2/4");
  cs_err err = {{0}};
  cr_assert_eq(cs_findings_write(dir, &f, false, &err), 0, "%s", err.msg);
  cr_assert_eq(cs_findings_read(dir, &back, &err), 0, "%s", err.msg);
  cr_assert_str_eq(back.parts, "0/4 2/4");
  cs_findings_free(&back);
  static const char *bad[] = {"\"garbage\"", "5",        "null",     "\"\"",         "\"0/4 x\"", "\"4/4\"",  "\"1/0\"",
                              "\"-1/4\"",    "\" 0/4\"", "\"0/4 \"", "\"0/4  1/4\"", "\"0x1/4\"", "\"1/4/4\""};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "sed -i 's|\"parts\":[^,]*,|\"parts\": %s,|' '%s/summary.json'", bad[i], dir);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(cs_findings_read(dir, &back, &err), -1, "parts %s was read", bad[i]);
    cr_assert(strstr(err.msg, "summary.json: parts is not") != NULL, "%s", err.msg);
    cr_assert_eq(cs_findings_write(dir, &f, false, &err), 0, "%s", err.msg);
  }
  /* Parts that share cases within one summary would count those cases twice in the next merge. */
  char cmd[256];
  snprintf(cmd, sizeof cmd, "sed -i 's|\"parts\":[^,]*,|\"parts\": \"2/4 0/2\",|' '%s/summary.json'", dir);
  cr_assert_eq(system(cmd), 0);
  cr_assert_eq(cs_findings_read(dir, &back, &err), -1, "parts 2/4 0/2 was read");
  cr_assert(strstr(err.msg, "summary.json: parts 2/4 and 0/2 share cases") != NULL, "%s", err.msg);
  /* and such parts, or none, are not written */
  free(f.parts);
  f.parts = strdup("1/3 1/3");
  cr_assert_eq(cs_findings_write(dir, &f, false, &err), -1, "parts 1/3 1/3 were written");
  cr_assert(strstr(err.msg, "parts 1/3 and 1/3 share cases") != NULL, "%s", err.msg);
  cs_findings_free(&f);
  rs = ruleset();
  default_settings(&f, rs);
  cs_ruleset_free(rs);
  cr_assert_eq(cs_findings_write(dir, &f, false, &err), -1, "a summary without parts was written");
  cs_findings_free(&f);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

/* `s` with its first `from` replaced by `to` (heap). */
static char *replaced(const char *s, const char *from, const char *to) {
  const char *at = strstr(s, from);
  cr_assert_not_null(at, "no '%s' in the summary", from);
  size_t head = (size_t)(at - s), n = strlen(s) - strlen(from) + strlen(to) + 1;
  char *out = malloc(n);
  cr_assert_not_null(out);
  snprintf(out, n, "%.*s%s%s", (int)head, s, to, at + strlen(from));
  return out;
}

/* The text of a summary that cs_findings_write gives `f` (no findings). */
static char *summary_of(const char *dir, const cs_findings *f) {
  cs_err err = {{0}};
  cr_assert_eq(cs_findings_write(dir, f, false, &err), 0, "%s", err.msg);
  char path[128];
  snprintf(path, sizeof path, "%s/summary.json", dir);
  FILE *fp = fopen(path, "r");
  cr_assert_not_null(fp);
  char *text = calloc(1, 1 << 16);
  cr_assert_not_null(text);
  size_t n = fread(text, 1, (1 << 16) - 1, fp);
  fclose(fp);
  cr_assert(n > 0 && n < (1 << 16) - 1);
  return text;
}

/* The summary of implementation x whose settings are `settings` (NULL: the default options) and
 * whose findings are the JSON text `findings` (the array's members), "extra" members before them. */
static char *summary_with(const char *dir, const cs_findings_settings *settings, const char *extra,
                          const char *findings) {
  cs_findings f = {0};
  snprintf(f.impl, sizeof f.impl, "x");
  cs_findings_set_shard(&f, 0, 0);
  f.cases = 10;
  if (settings) {
    f.settings = *settings;
  } else {
    cs_ruleset *rs = ruleset();
    default_settings(&f, rs);
    cs_ruleset_free(rs);
  }
  char *text = summary_of(dir, &f);
  if (settings)
    memset(&f.settings, 0, sizeof f.settings); /* the caller's */
  cs_findings_free(&f);
  size_t n = strlen(extra) + strlen(findings) + 32;
  char *members = malloc(n);
  cr_assert_not_null(members);
  snprintf(members, n, "%s\"findings\": [%s]}", extra, findings);
  char *at = strstr(text, "\"findings\":");
  cr_assert_not_null(at);
  *at = 0; /* findings are the last member */
  char *whole = malloc(strlen(text) + strlen(members) + 1);
  cr_assert_not_null(whole);
  snprintf(whole, strlen(text) + strlen(members) + 1, "%s%s", text, members);
  free(members);
  free(text);
  return whole;
}

/* Writes DIR/summary.json from its text, and frees the text. */
static void write_text(const char *dir, char *text) {
  char path[128];
  snprintf(path, sizeof path, "%s/summary.json", dir);
  FILE *fp = fopen(path, "w");
  cr_assert_not_null(fp);
  fputs(text, fp);
  cr_assert_eq(fclose(fp), 0);
  free(text);
}

/* Reads DIR/summary.json: NULL `why` expects it read, else refused with `why` in the message. */
static void expect_read(const char *dir, const char *why, const char *label) {
  cs_findings back;
  cs_err err = {{0}};
  int rc = cs_findings_read(dir, &back, &err);
  if (!why) {
    cr_assert_eq(rc, 0, "%s: %s", label, err.msg);
    cs_findings_free(&back);
    return;
  }
  cr_assert_eq(rc, -1, "%s was read", label);
  cr_assert(strstr(err.msg, why) != NULL, "%s: %s", label, err.msg);
  cr_assert(strstr(err.msg, "summary.json: ") != NULL, "%s: the message names no file: %s", label, err.msg);
}

/* A token case and a literal one (two calls, which its planted twin names) that read. */
#define TOKEN_CASE                                                                                                     \
  "\"property\":\"emit.unique\",\"target\":\"mistral\",\"window\":2,\"case_index\":5,"                                 \
  "\"signature\":\"5728b844ba825afe\",\"token\":\"cs1.AAE\",\"message\":\"m\",\"history\":{\"turns\":[]},"             \
  "\"answer\":null"
#define TWO_CALLS                                                                                                      \
  "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"calls\":[{\"id\":\"a\",\"name\":\"f\"},"         \
  "{\"id\":\"b\",\"name\":\"f\"}]}]}"
#define LITERAL_CASE                                                                                                   \
  "\"property\":\"emit.unique\",\"target\":\"mistral\",\"window\":-1,\"case_index\":null,"                             \
  "\"signature\":\"59cc93a60f62610c\",\"token\":null,\"planted_twin\":[0,1],\"message\":\"m\",\"history\":" TWO_CALLS

/* Every finding is checked when its summary is read, so that a merge refuses it before writing
 * anything: a token that does not parse, a literal history that is none, a property on a target it
 * is not checked on, a planted twin beyond the history's calls, a signature that is no file name
 * callsign makes, a member named twice. The message names the file and the finding. */
Test(campaign, a_summary_with_a_finding_no_campaign_makes_is_an_error) {
  char dir[64];
  snprintf(dir, sizeof dir, "/tmp/cs-campaign-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  static const struct {
    const char *finding, *why;
  } rows[] = {
      {"{" TOKEN_CASE "}", NULL},
      {"{" LITERAL_CASE "}", NULL},
      /* A signature is recomputed: a merge counts distinct failures by it. */
      {"{\"property\":\"emit.unique\",\"target\":\"mistral\",\"window\":2,\"case_index\":5,"
       "\"signature\":\"0123456789abcdef\",\"token\":\"cs1.AAE\",\"history\":{\"turns\":[]}}",
       "findings[0]: signature 0123456789abcdef is not that of its property, target and history (5728b844ba825afe)"},
      {"{" LITERAL_CASE ",\"planted_twin\":null}", "findings[0]: the member \"planted_twin\" occurs twice"},
      {"{\"token\":\"cs1.!!!\"," TOKEN_CASE "}", "findings[0]: the member \"token\" occurs twice"},
      {"{\"property\":\"emit.unique\",\"target\":\"mistral\",\"case_index\":5,\"signature\":\"0123456789abcdef\","
       "\"token\":\"cs1.!!!\",\"history\":{\"turns\":[]}}",
       "findings[0]: replay token: invalid character '!' at offset 4"},
      {"{\"property\":\"emit.unique\",\"target\":\"mistral\",\"case_index\":5,\"signature\":\"0123456789abcdef\","
       "\"token\":5,\"history\":{\"turns\":[]}}",
       "findings[0]: token is not a replay token or null"},
      {"{\"property\":\"emit.unique\",\"target\":\"mistral\",\"case_index\":null,\"signature\":\"0123456789abcdef\","
       "\"token\":null,\"planted_twin\":null,\"history\":5}",
       "findings[0]: history: expected an object"},
      {"{\"property\":\"emit.unique\",\"target\":\"mistral\",\"case_index\":null,\"signature\":\"0123456789abcdef\","
       "\"token\":null,\"planted_twin\":null,\"history\":{\"turns\":[{\"role\":\"user\",\"text\":\"a\",\"text\":\"b\"}]"
       "}}",
       "findings[0]: history.turns[0]: the member \"text\" occurs twice"},
      {"{\"property\":\"emit.unique\",\"target\":\"mistral\",\"case_index\":null,\"signature\":\"0123456789abcdef\","
       "\"token\":null,\"planted_twin\":[0,99],\"history\":" TWO_CALLS "}",
       "findings[0]: planted_twin is not null or [from, to], two call numbers with from < to < 2"},
      {"{\"property\":\"emit.unique\",\"target\":\"mistral\",\"case_index\":null,\"signature\":\"0123456789abcdef\","
       "\"token\":null,\"history\":" TWO_CALLS "}",
       "findings[0]: planted_twin is not null or [from, to]"},
      {"{\"property\":\"emit.unique\",\"target\":\"mistral\",\"case_index\":3,\"signature\":\"0123456789abcdef\","
       "\"token\":null,\"planted_twin\":null,\"history\":" TWO_CALLS "}",
       "findings[0]: a literal case (token null) comes from the corpus: its case_index is null"},
      {"{\"planted_twin\":[0,1]," TOKEN_CASE "}", "findings[0]: a token case has no planted_twin"},
      {"{\"property\":\"emit.kimi_roundtrip\",\"target\":\"-\",\"case_index\":5,\"signature\":\"0123456789abcdef\","
       "\"token\":\"cs1.AAE\",\"history\":{\"turns\":[]}}",
       "findings[0]: emit.kimi_roundtrip is checked per target: its target names one, not \"-\""},
      {"{\"property\":\"emit.kimi_roundtrip\",\"target\":\"mistral\",\"case_index\":5,"
       "\"signature\":\"0123456789abcdef\",\"token\":\"cs1.AAE\",\"history\":{\"turns\":[]}}",
       "findings[0]: emit.kimi_roundtrip is checked on kimi only, not on mistral"},
      {"{\"property\":\"canon.charset\",\"target\":\"mistral\",\"case_index\":5,\"signature\":\"0123456789abcdef\","
       "\"token\":\"cs1.AAE\",\"history\":{\"turns\":[]}}",
       "findings[0]: canon.charset takes no target: its target is \"-\", not 'mistral'"},
      {"{\"property\":\"vectors.canonical_v1\",\"target\":\"-\",\"case_index\":5,\"signature\":\"0123456789abcdef\","
       "\"token\":\"cs1.AAE\",\"history\":{\"turns\":[]}}",
       "findings[0]: vectors.canonical_v1 is checked outside the cases"},
      {"{\"property\":\"emit.uniqueness\",\"target\":\"mistral\"}",
       "findings[0]: names an unknown property or target ('emit.uniqueness'"},
      {"{\"property\":\"emit.unique\",\"target\":\"mistralai\"}", "findings[0]: names an unknown property or target"},
      {"{\"property\":\"emit.unique\"}", "findings[0]: property or target is missing"},
      {"{\"property\":\"emit.unique\",\"target\":\"mistral\",\"case_index\":5,\"signature\":\"zzzzzzzzzzzzzzzz\","
       "\"token\":\"cs1.AAE\",\"history\":{\"turns\":[]}}",
       "findings[0]: signature is not 16 lowercase hex digits"},
      {"{\"property\":\"emit.unique\",\"target\":\"mistral\",\"case_index\":5,\"signature\":\"../../../../../x\","
       "\"token\":\"cs1.AAE\",\"history\":{\"turns\":[]}}",
       "findings[0]: signature is not 16 lowercase hex digits"},
      {"{\"property\":\"emit.unique\",\"target\":\"mistral\",\"case_index\":5,\"signature\":\"0123456789ABCDEF\","
       "\"token\":\"cs1.AAE\",\"history\":{\"turns\":[]}}",
       "findings[0]: signature is not 16 lowercase hex digits"},
      {"{\"property\":\"emit.unique\",\"target\":\"mistral\",\"case_index\":5,\"signature\":\"0123456789abcdef0\","
       "\"token\":\"cs1.AAE\",\"history\":{\"turns\":[]}}",
       "findings[0]: signature is not 16 lowercase hex digits"},
      {"{\"property\":\"emit.unique\",\"target\":\"mistral\",\"case_index\":\"18446744073709551615\","
       "\"signature\":\"0123456789abcdef\",\"token\":\"cs1.AAE\",\"history\":{\"turns\":[]}}",
       "findings[0]: case_index is missing, or not a case number or null"},
      {"{\"window\":7," TOKEN_CASE "}", "findings[0]: the member \"window\" occurs twice"},
      {"{\"property\":\"emit.unique\",\"target\":\"mistral\",\"window\":7,\"case_index\":5,"
       "\"signature\":\"0123456789abcdef\",\"token\":\"cs1.AAE\",\"history\":{\"turns\":[]}}",
       "findings[0]: window is not 2, the window of its case_index"},
      {"{\"property\":\"emit.unique\",\"target\":\"mistral\",\"case_index\":5,\"signature\":\"0123456789abcdef\","
       "\"token\":\"cs1.AAE\",\"message\":5,\"history\":{\"turns\":[]}}",
       "findings[0]: message is not a string"},
      {"{\"property\":\"emit.unique\",\"target\":\"mistral\",\"case_index\":5,\"signature\":\"0123456789abcdef\","
       "\"token\":\"cs1.AAE\",\"answer\":\"x\",\"history\":{\"turns\":[]}}",
       "findings[0]: message is not a string, or answer not an object or null"},
      {"{\"property\":\"emit.unique\",\"target\":\"mistral\",\"case_index\":5,\"signature\":\"0123456789abcdef\","
       "\"token\":\"cs1.AAE\"}",
       "findings[0]: history is missing"},
      {"5", "findings[0]: not an object"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    write_text(dir, summary_with(dir, NULL, "", rows[i].finding));
    char label[32];
    snprintf(label, sizeof label, "row %zu", i);
    expect_read(dir, rows[i].why, label);
    if (rows[i].why) { /* the finding second: its index is named */
      char two[4096];
      snprintf(two, sizeof two, "{" TOKEN_CASE "},%s", rows[i].finding);
      write_text(dir, summary_with(dir, NULL, "", two));
      char second[128];
      snprintf(second, sizeof second, "findings[1]%s", strchr(rows[i].why, ':'));
      expect_read(dir, second, label);
    }
  }
  /* A member the summary itself names twice, and an implementation's name callsign would cut into its
   * fixed field (two long names could then merge as one). */
  write_text(dir, summary_with(dir, NULL, "\"impl\":\"y\",", ""));
  expect_read(dir, "summary.json: the member \"impl\" occurs twice", "impl twice");
  char *text = summary_with(dir, NULL, "", "");
  write_text(dir, replaced(text, "\"x\"",
                           "\"0123456789012345678901234567890123456789012345678901234567890123456789012345678901"
                           "23456789012345678901234567890123456789012345678\""));
  free(text);
  expect_read(dir, "impl is longer than 127 bytes", "a long impl");
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

/* The settings of a campaign run with --max-id-len 10 --target mistral --property emit.unique
 * --property canon. --strict --rule anthropic.pattern= --rule openai_chat.max_len=64 (heap). */
static cs_findings_settings narrow_settings(void) {
  cs_ruleset *rs = ruleset();
  cs_err err = {{0}};
  cr_assert_eq(cs_ruleset_override(rs, "anthropic.pattern=", &err), 0, "%s", err.msg);
  cr_assert_eq(cs_ruleset_override(rs, "openai_chat.max_len=64", &err), 0, "%s", err.msg);
  static const char *const only[] = {"emit.unique", "canon."};
  cs_campaign_config cfg = {
      .run = {.gen = {.max_id_len = 10}, .targets = 1u << CS_PROV_MISTRAL, .only = only, .nonly = 2}, .strict = true};
  cs_findings f = {0};
  cs_findings_set_settings(&f, &cfg, rs);
  cs_ruleset_free(rs);
  return f.settings;
}

/* What defines the case space and what was judged in it is recorded, read back as it was, and
 * parts that differ in any of it are not merged: the same shard index means another case under
 * another --max-id-len, and a finding another failure under other rules or another selection. */
Test(campaign, settings_are_recorded_and_parts_merge_only_when_they_agree) {
  char dir[64];
  snprintf(dir, sizeof dir, "/tmp/cs-campaign-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  cs_findings f = {0};
  snprintf(f.impl, sizeof f.impl, "x");
  cs_findings_set_shard(&f, 0, 2);
  f.seed = 1;
  f.settings = narrow_settings();
  cs_err err = {{0}};
  cr_assert_eq(cs_findings_write(dir, &f, false, &err), 0, "%s", err.msg);
  cs_findings back;
  cr_assert_eq(cs_findings_read(dir, &back, &err), 0, "%s", err.msg);
  cs_findings_difference d;
  cr_assert_not(cs_findings_differ(&f, &back, &d), "%s: %s and %s", d.name, d.a, d.b);
  cr_assert_eq(back.settings.max_id_len, 10);
  cr_assert_eq(back.settings.targets, 1u << CS_PROV_MISTRAL);
  cr_assert_eq(__builtin_popcountll(back.settings.properties), 6, "emit.unique and the five canon.*");
  cr_assert(back.settings.strict);
  cr_assert_null(back.settings.rules[CS_PROV_ANTHROPIC].pattern);
  cr_assert_eq(back.settings.rules[CS_PROV_OPENAI_CHAT].max_len, 64);
  /* the overrides a replay needs: exactly the two given */
  cs_buf text = {0};
  cr_assert_eq(cs_findings_rule_overrides(&back, &text), 2);
  cr_assert_eq(text.len, sizeof "anthropic.pattern=" + sizeof "openai_chat.max_len=64");
  cr_assert_str_eq(text.data, "anthropic.pattern=");
  cr_assert_str_eq(text.data + sizeof "anthropic.pattern=", "openai_chat.max_len=64");
  cs_buf_free(&text);
  static const char *const why[] = {
      "impl 'y' with results of impl 'x'",
      "seed 2 with results of seed 1",
      "max_id_len 11 with results of max_id_len 10",
      "targets anthropic mistral with results of targets mistral",
      "properties all with results of properties emit.unique canon.deterministic canon.unique canon.pair "
      "canon.idempotent canon.charset",
      "strict false with results of strict true",
      "rules.anthropic.pattern '^a$' with results of rules.anthropic.pattern null",
      "rules.mistral.max_len 12 with results of rules.mistral.max_len 9",
      "rules.anthropic.server_pattern null with results of rules.anthropic.server_pattern '^srvtoolu_[a-zA-Z0-9_]+$'",
  };
  size_t np;
  cs_properties(&np);
  for (size_t i = 0; i < sizeof why / sizeof *why; i++) {
    cs_findings other, into = {0};
    cr_assert_eq(cs_findings_read(dir, &other, &err), 0, "%s", err.msg);
    free(other.parts);
    other.parts = strdup("1/2");
    cs_findings_settings *o = &other.settings;
    switch (i) {
    case 0:
      snprintf(other.impl, sizeof other.impl, "y");
      break;
    case 1:
      other.seed = 2;
      break;
    case 2:
      o->max_id_len = 11;
      break;
    case 3:
      o->targets |= 1u << CS_PROV_ANTHROPIC;
      break;
    case 4:
      o->properties = (1ull << np) - 1;
      break;
    case 5:
      o->strict = false;
      break;
    case 6:
      o->rules[CS_PROV_ANTHROPIC].pattern = strdup("^a$");
      break;
    case 7:
      o->rules[CS_PROV_MISTRAL].max_len = 12;
      break;
    default:
      free(o->rules[CS_PROV_ANTHROPIC].server_pattern);
      o->rules[CS_PROV_ANTHROPIC].server_pattern = NULL;
    }
    cr_assert_eq(cs_findings_merge(&into, &back, &err), 0, "%s", err.msg);
    cr_assert(cs_findings_differ(&other, &into, &d), "row %zu", i);
    cr_assert_eq(cs_findings_merge(&into, &other, &err), -1, "row %zu was merged", i);
    char want[512];
    snprintf(want, sizeof want, "cannot merge results of %s", why[i]);
    cr_assert_str_eq(err.msg, want);
    cr_assert_str_eq(into.parts, "0/2", "a refused part leaves the results as they were");
    cs_findings_free(&into);
    cs_findings_free(&other);
  }
  cs_findings_free(&back);
  cs_findings_free(&f);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

/* Settings a campaign cannot have are refused, naming the member; so is a summary of version 1,
 * which lacks them: nothing would say which of its parts share a case space. */
Test(campaign, a_summary_with_settings_no_campaign_has_is_an_error) {
  char dir[64];
  snprintf(dir, sizeof dir, "/tmp/cs-campaign-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  static const struct {
    const char *from, *to, *why;
  } rows[] = {
      {"\"callsign_fuzz\":\t2", "\"callsign_fuzz\":\t1",
       "summary.json: callsign_fuzz 1, from an earlier callsign, does not record the settings a merge compares"},
      {"\"callsign_fuzz\":\t2", "\"callsign_fuzz\":\t3", "callsign_fuzz 3 is not the version this callsign reads (2)"},
      {"\"callsign_fuzz\":\t2", "\"callsign_fuzz\":\t2.0000001",
       "callsign_fuzz 2.0000001 is not the version this callsign reads (2)"},
      {"\"max_id_len\":\t65536", "\"max_id_len\":\t0", "summary.json: max_id_len is not a length of 1 to 1048576"},
      {"\"max_id_len\":\t65536", "\"max_id_len\":\t1048577", "max_id_len is not a length of 1 to 1048576"},
      {"\"max_id_len\":\t65536,", "", "max_id_len is not a length of 1 to 1048576"},
      {"\"targets\":\t[", "\"targets\":\t[], \"x\":\t[", "summary.json: targets is not a list of names"},
      {"\"targets\":\t[", "\"targets\":\t[\"mistral\", ", "summary.json: targets names 'mistral' twice"},
      {"\"targets\":\t[", "\"targets\":\t[\"mistralai\", ", "targets names 'mistralai', which callsign does not know"},
      {"\"properties\":\t[", "\"properties\":\t[\"emit.unique\", ",
       "summary.json: properties names 'emit.unique' twice"},
      {"\"properties\":\t[", "\"properties\":\t[5, ", "summary.json: properties is not a list of names"},
      {"\"strict\":\tfalse", "\"strict\":\t\"no\"", "summary.json: strict is not true or false"},
      {"\"rules\":\t{", "\"rules\":\t5, \"x\":\t{", "summary.json: rules is not an object of one rule per target"},
      {"\"rules\":\t{", "\"rules\":\t{}, \"x\":\t{", "summary.json: rules.anthropic: no rule"},
      {"\"bedrock\":\t{", "\"bedrock_\":\t{", "summary.json: rules names 'bedrock_', which is not a target"},
      {"\"mistral\":\t{", "\"mistral\":\t{\"pattern\": \"x\", ",
       "summary.json: rules.mistral: the member \"pattern\" occurs twice"},
      {"\"^[a-zA-Z0-9]{9}$\"", "\"(\"", "summary.json: rules: mistral: pattern '(' does not compile"},
      {"\"^[a-zA-Z0-9]{9}$\"", "\"\"", "summary.json: rules.mistral: pattern is not a pattern or null"},
      {"\"max_len\":\t9,", "\"max_len\":\t8,", "summary.json: rules: rule for mistral: min_len 9 is above max_len 8"},
      {"\"max_len\":\t9,", "\"max_len\":\t2147483648,", "rules.mistral: max_len is not a length up to 2147483647"},
      {"\"max_len\":\t9,", "\"max_len\":\t-1,", "rules.mistral: max_len is not a length up to 2147483647"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    char *text = summary_with(dir, NULL, "", "");
    write_text(dir, replaced(text, rows[i].from, rows[i].to));
    free(text);
    char label[32];
    snprintf(label, sizeof label, "row %zu", i);
    expect_read(dir, rows[i].why, label);
  }
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

/* A finding outside what its summary selects was not made by that campaign. */
Test(campaign, a_finding_outside_the_selection_is_an_error) {
  char dir[64];
  snprintf(dir, sizeof dir, "/tmp/cs-campaign-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  cs_findings_settings narrow = narrow_settings();
  narrow.strict = false;
  static const struct {
    bool narrow;
    const char *finding, *why;
  } rows[] = {
      {true, "{" TOKEN_CASE "}", NULL},
      {true,
       "{\"property\":\"protocol.answer\",\"target\":\"-\",\"case_index\":5,\"signature\":\"a631be9b8e9fab11\","
       "\"token\":\"cs1.AAE\",\"history\":{\"turns\":[]}}",
       NULL},
      {true,
       "{\"property\":\"emit.unique\",\"target\":\"anthropic\",\"case_index\":5,\"signature\":\"0123456789abcdef\","
       "\"token\":\"cs1.AAE\",\"history\":{\"turns\":[]}}",
       "findings[0]: target anthropic is not among the targets the summary selects"},
      {true,
       "{\"property\":\"emit.pair\",\"target\":\"mistral\",\"case_index\":5,\"signature\":\"0123456789abcdef\","
       "\"token\":\"cs1.AAE\",\"history\":{\"turns\":[]}}",
       "findings[0]: emit.pair is not among the properties the summary selects"},
      {false,
       "{\"property\":\"normalize.idempotent\",\"target\":\"mistral\",\"case_index\":5,"
       "\"signature\":\"0123456789abcdef\",\"token\":\"cs1.AAE\",\"history\":{\"turns\":[]}}",
       "findings[0]: normalize.idempotent is recommended: it makes a finding only with strict true"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    write_text(dir, summary_with(dir, rows[i].narrow ? &narrow : NULL, "", rows[i].finding));
    char label[32];
    snprintf(label, sizeof label, "row %zu", i);
    expect_read(dir, rows[i].why, label);
  }
  cs_findings f = {.settings = narrow};
  cs_findings_free(&f);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

/* The results of an external implementation record its argv, so that a merge's replay commands name
 * --impl-cmd and not the name from its hello (which may be a built-in's), and its deadline, under
 * which its timeouts were judged. A built-in and an external implementation of one name are not
 * merged; one implementation started from other paths is. */
Test(campaign, an_external_implementation_is_recorded_and_not_merged_with_a_built_in) {
  char dir[64];
  snprintf(dir, sizeof dir, "/tmp/cs-campaign-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  cs_ruleset *rs = ruleset();
  char *argv[] = {"python3", "my normalizer.py", NULL}, *elsewhere[] = {"python3", "/ci/my normalizer.py", NULL};
  cs_campaign_config ext = {.impl_cmd = argv}, ext2 = {.impl_cmd = elsewhere},
                     quick = {.impl_cmd = argv, .deadline_ms = 400}, builtin = {0};
  cs_findings f = {0}, back, other = {0}, into = {0};
  snprintf(f.impl, sizeof f.impl, "reference");
  cs_findings_set_shard(&f, 0, 2);
  cs_findings_set_settings(&f, &ext, rs);
  cs_err err = {{0}};
  cr_assert_eq(cs_findings_write(dir, &f, false, &err), 0, "%s", err.msg);
  cr_assert_eq(cs_findings_read(dir, &back, &err), 0, "%s", err.msg);
  cr_assert_not_null(back.settings.impl_cmd);
  cr_assert_str_eq(back.settings.impl_cmd[0], "python3");
  cr_assert_str_eq(back.settings.impl_cmd[1], "my normalizer.py");
  cr_assert_null(back.settings.impl_cmd[2]);
  cr_assert_eq(back.settings.deadline_ms, 5000, "the default deadline, recorded");
  cs_findings_difference d;
  cr_assert_not(cs_findings_differ(&f, &back, &d), "%s", d.name);
  snprintf(other.impl, sizeof other.impl, "reference");
  cs_findings_set_shard(&other, 1, 2);
  const struct {
    const cs_campaign_config *cfg;
    const char *why;
  } rows[] = {
      {&builtin,
       "cannot merge results of impl_cmd null (a built-in) with results of impl_cmd python3 'my normalizer.py'"},
      {&quick, "cannot merge results of deadline_ms 400 with results of deadline_ms 5000"},
      {&ext2, NULL},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    cs_findings_set_settings(&other, rows[i].cfg, rs);
    cr_assert_eq(cs_findings_merge(&into, &back, &err), 0, "%s", err.msg);
    int rc = cs_findings_merge(&into, &other, &err);
    if (rows[i].why) {
      cr_assert_eq(rc, -1, "row %zu was merged", i);
      cr_assert_str_eq(err.msg, rows[i].why);
    } else {
      cr_assert_eq(rc, 0, "%s", err.msg);
      cr_assert_str_eq(into.settings.impl_cmd[1], "my normalizer.py", "the first part's argv is kept");
    }
    cs_findings_free(&into);
  }
  /* an argv or deadline that no campaign records is refused */
  static const struct {
    const char *from, *to, *why;
  } bad[] = {
      {"\"impl_cmd\":\t[", "\"impl_cmd\":\t[], \"x\":\t[", "summary.json: impl_cmd is not null or a program's argv"},
      {"\"impl_cmd\":\t[", "\"impl_cmd\":\t[\"\", ", "summary.json: impl_cmd is not null or a program's argv"},
      {"\"impl_cmd\":\t[", "\"impl_cmd\":\t[5, ", "summary.json: impl_cmd is not null or a program's argv"},
      {"\"deadline_ms\":\t5000", "\"deadline_ms\":\t0", "summary.json: deadline_ms is not a deadline of 1 to 3600000"},
      {"\"deadline_ms\":\t5000", "\"deadline_ms\":\tnull",
       "summary.json: deadline_ms is not a deadline of 1 to 3600000"},
  };
  char *text = summary_of(dir, &f);
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    write_text(dir, replaced(text, bad[i].from, bad[i].to));
    expect_read(dir, bad[i].why, bad[i].to);
  }
  free(text);
  cs_findings_set_settings(&f, &builtin, rs);
  text = summary_of(dir, &f);
  write_text(dir, replaced(text, "\"deadline_ms\":\tnull", "\"deadline_ms\":\t5000"));
  free(text);
  expect_read(dir, "summary.json: deadline_ms is not null, as a built-in's is", "a built-in's deadline");
  cs_ruleset_free(rs);
  cs_findings_free(&f);
  cs_findings_free(&back);
  cs_findings_free(&other);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

/* Cases summed past 2^64 - 1 would wrap and claim fewer cases than were run. */
Test(campaign, merge_refuses_cases_that_add_up_past_64_bits) {
  static const uint64_t rows[][4] = {{UINT64_MAX, 0, 1, 0}, {UINT64_MAX - 1, 0, 2, 0}, {1, UINT64_MAX, 1, 1}};
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    cs_findings a = {0}, b = {0};
    snprintf(a.impl, sizeof a.impl, "x");
    snprintf(b.impl, sizeof b.impl, "x");
    a.parts = strdup("0/2");
    b.parts = strdup("1/2");
    a.cases = rows[i][0], a.cases_cut = rows[i][1], b.cases = rows[i][2], b.cases_cut = rows[i][3];
    cs_err err = {{0}};
    cr_assert_eq(cs_findings_merge(&a, &b, &err), -1, "row %zu was merged", i);
    cr_assert_str_eq(err.msg, "cannot merge: the parts' cases add up to more than 18446744073709551615");
    cr_assert_eq(a.cases, rows[i][0], "a refused merge leaves the results as they were");
    cs_findings_free(&a);
    cs_findings_free(&b);
  }
  cs_findings a = {0}, b = {0};
  snprintf(a.impl, sizeof a.impl, "x");
  snprintf(b.impl, sizeof b.impl, "x");
  a.parts = strdup("0/2");
  b.parts = strdup("1/2");
  a.cases = UINT64_MAX - 1, b.cases = 1;
  cs_err err = {{0}};
  cr_assert_eq(cs_findings_merge(&a, &b, &err), 0, "%s", err.msg);
  cr_assert_eq(a.cases, UINT64_MAX);
  cs_findings_free(&a);
  cs_findings_free(&b);
}

/* Parts are never cut: many shards merged, in halves, then merged again, still name every shard,
 * so a shard given twice is refused however long the list, and what is written reads back. */
Test(campaign, many_shards_merged_and_merged_again) {
  char dir[64];
  snprintf(dir, sizeof dir, "/tmp/cs-campaign-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  enum { N = 1000 };
  cs_findings half[2], *shard = calloc(N, sizeof *shard);
  cr_assert_not_null(shard);
  memset(half, 0, sizeof half);
  cs_err err = {{0}};
  cs_ruleset *rs = ruleset();
  for (int i = 0; i < N; i++) {
    default_settings(&shard[i], rs);
    snprintf(shard[i].impl, sizeof shard[i].impl, "x");
    shard[i].cases = 10;
    cs_findings_set_shard(&shard[i], (uint64_t)i, N);
    cr_assert_eq(cs_findings_merge(&half[i >= N / 2], &shard[i], &err), 0, "%s", err.msg);
  }
  cs_ruleset_free(rs);
  cs_findings all = {0}, back, again = {0};
  cr_assert_eq(cs_findings_merge(&all, &half[0], &err), 0, "%s", err.msg);
  cr_assert_eq(cs_findings_merge(&all, &half[1], &err), 0, "%s", err.msg);
  cr_assert_eq(cs_findings_merge(&all, &shard[N - 1], &err), -1, "the last shard was merged twice");
  cr_assert_str_eq(err.msg, "cannot merge: parts 999/1000 and 999/1000 share cases (give each shard once)");
  cr_assert_eq(all.cases, 10 * N);
  cr_assert_eq(cs_findings_write(dir, &all, false, &err), 0, "%s", err.msg);
  cr_assert_eq(cs_findings_read(dir, &back, &err), 0, "%s", err.msg);
  cr_assert_str_eq(back.parts, all.parts);
  cr_assert_eq(strncmp(back.parts, "0/1000 1/1000 ", 14), 0, "%.40s", back.parts);
  cr_assert_not_null(strstr(back.parts, " 998/1000 999/1000"));
  cr_assert_eq(cs_findings_merge(&again, &back, &err), 0, "%s", err.msg);
  cr_assert_eq(cs_findings_merge(&again, &shard[0], &err), -1, "the first shard was merged twice");
  cr_assert_str_eq(err.msg, "cannot merge: parts 0/1000 and 0/1000 share cases (give each shard once)");
  for (int i = 0; i < N; i++)
    cs_findings_free(&shard[i]);
  free(shard);
  cs_findings_free(&half[0]);
  cs_findings_free(&half[1]);
  cs_findings_free(&all);
  cs_findings_free(&back);
  cs_findings_free(&again);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}
