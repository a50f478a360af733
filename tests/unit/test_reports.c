/* tests/unit/test_reports.c: the report layer: exit status, escaping, and each writer's output
 * checked by real parsers (xmllint for JUnit and HTML, cJSON and python3 for JSON) on a report
 * whose strings hold control characters, markup, "]]>", U+FFFE, bad UTF-8 and emoji. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/expect.h"
#include "impls/impl.h"
#include "reports/escape.h"
#include "reports/result.h"
#include "reports/tally.h"

#define HOSTILE                                                                                                        \
  "ctl\x01 esc\x1b[31m <script>alert(1)</script> & ]]> \"q\" 'a' nonchar\xEF\xBF\xBE bad\xFF emoji\xF0\x9F\x98\x80 "   \
  "pipe| nl\nend\r"

/* ---- fixture: two implementations, every verdict, hostile strings ---- */

typedef struct {
  cs_cell a[7], b[3];
  cs_impl_result impls[2];
  cs_stat stats[3];
  cs_report r;
} fixture;

static cs_cell fail_cell(const char *prop, const char *target, bool required, const char *history) {
  return (cs_cell){.property = prop,
                   .target = target,
                   .required = required,
                   .contract = "a contract with <b> & \"quotes\"",
                   .verdict = CS_VERDICT_FAIL,
                   .cases = 17,
                   .message = "message: " HOSTILE,
                   .history_json = history,
                   .answer_json = "{\"ids\":[\"" HOSTILE "\"]}",
                   .token = "AAECAwQ",
                   .replay = "callsign replay AAECAwQ --impl 'x<y>'",
                   .seed = 18446744073709551615ULL,
                   .case_index = 16,
                   .shrunk_turns = 2,
                   .shrunk_calls = 3,
                   .shrink_steps = 45};
}

static cs_cell plain_cell(const char *prop, const char *target, bool required, cs_verdict v) {
  return (cs_cell){.property = prop, .target = target, .required = required, .verdict = v, .cases = 1000};
}

static void fixture_init(fixture *f) {
  memset(f, 0, sizeof *f);
  static const char history[] = "{\"turns\":[{\"id\":\"" HOSTILE "\",\"code\":\"````\"}]}";
  f->a[0] = plain_cell("emit.regex", "anthropic", true, CS_VERDICT_PASS);
  f->a[1] = fail_cell("emit.regex", "mistral", true, history);
  f->a[2] = plain_cell("emit.pair", "anthropic", true, CS_VERDICT_EXPECTED_FAIL);
  f->a[2].message = "known: " HOSTILE;
  f->a[3] = plain_cell("emit.unique", "mistral", true, CS_VERDICT_FIXED);
  f->a[4] = plain_cell("canon.idempotent", "-", true, CS_VERDICT_PASS);
  f->a[5] = fail_cell("normalize.idempotent", "anthropic", false, "{\"ids\":[\"x\"]}");
  f->a[6] = plain_cell("emit.kimi_roundtrip", "anthropic", true, CS_VERDICT_NOT_APPLICABLE);

  f->b[0] = plain_cell("emit.regex", "anthropic", true, CS_VERDICT_PASS);
  f->b[1] = plain_cell("emit.regex", "mistral", true, CS_VERDICT_NOT_APPLICABLE);
  f->b[2] = fail_cell("emit.pair", "anthropic", true, "{\"h\":\"" HOSTILE "\"}");

  f->impls[0] = (cs_impl_result){.name = "alpha<&>",
                                 .version = "1.0",
                                 .kind = "built-in",
                                 .note = "gave up injectivity",
                                 .cells = f->a,
                                 .ncells = 7,
                                 .cases = 20000,
                                 .seconds = 1.25};
  f->impls[1] = (cs_impl_result){.name = "beta|x\ny",
                                 .version = "v" HOSTILE,
                                 .kind = "external",
                                 .cells = f->b,
                                 .ncells = 3,
                                 .cases = 500,
                                 .seconds = 0.5,
                                 .faults = {0, 3, 1, 0, 2},
                                 .stderr_tail = "line one\nline " HOSTILE "\nlast"};
  f->stats[0] = (cs_stat){"id.empty", "an empty ID", 120};
  f->stats[1] = (cs_stat){"id.<script>" HOSTILE, "desc " HOSTILE, 30};
  f->stats[2] = (cs_stat){"structure.orphan", "orphan results", 0};
  f->r = (cs_report){.tool_version = "0.1.0",
                     .command = "callsign run --junit out.xml " HOSTILE,
                     .seed = 18446744073709551615ULL,
                     .strict = false,
                     .impls = f->impls,
                     .nimpls = 2,
                     .stats = f->stats,
                     .nstats = 3,
                     .stat_cases = 1000,
                     .targets = {"anthropic", "mistral"},
                     .ntargets = 2};
}

/* ---- helpers ---- */

typedef int (*writer_fn)(const cs_report *r, FILE *out, cs_err *err);

/* Writes the report to a fresh temporary file; returns its contents (caller frees) and its path. */
static char *write_tmp(const cs_report *r, writer_fn w, char path[static 64], const char *suffix) {
  snprintf(path, 64, "/tmp/cs_report_XXXXXX%s", suffix);
  int fd = mkstemps(path, (int)strlen(suffix));
  cr_assert_geq(fd, 0);
  FILE *f = fdopen(fd, "w+");
  cr_assert_not_null(f);
  cs_err err = {{0}};
  cr_assert_eq(w(r, f, &err), 0, "writer failed: %s", err.msg);
  long n = ftell(f);
  cr_assert_gt(n, 0);
  rewind(f);
  char *data = malloc((size_t)n + 1);
  cr_assert_not_null(data);
  cr_assert_eq(fread(data, 1, (size_t)n, f), (size_t)n);
  data[n] = 0;
  fclose(f);
  return data;
}

static int write_terminal_color(const cs_report *r, FILE *out, cs_err *err) {
  return cs_report_terminal(r, out, true, err);
}
static int write_terminal_plain(const cs_report *r, FILE *out, cs_err *err) {
  return cs_report_terminal(r, out, false, err);
}

static size_t count_of(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

static int run_cmd(const char *fmt, const char *path) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, fmt, path);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* No byte of the data may reach a document raw if it is a control character (other than \n \t),
 * U+FFFE, or not UTF-8. */
static void assert_clean_bytes(const char *doc, bool allow_esc) {
  for (const unsigned char *p = (const unsigned char *)doc; *p; p++) {
    if (*p == 0x1b && allow_esc)
      continue;
    cr_assert(*p >= 0x20 || *p == '\n' || *p == '\t', "raw control byte 0x%02x at offset %td", *p,
              (const char *)p - doc);
  }
  cr_assert_null(strstr(doc, "\xEF\xBF\xBE"), "raw U+FFFE");
  size_t n = strlen(doc);
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    size_t k = cs_esc_decode(doc + i, n - i, &cp);
    cr_assert_neq(k, 0u, "invalid UTF-8 at offset %zu", i);
    i += k;
  }
}

/* ---- result model ---- */

Test(result, verdict_names) {
  cr_assert_str_eq(cs_verdict_name(CS_VERDICT_PASS), "pass");
  cr_assert_str_eq(cs_verdict_name(CS_VERDICT_FAIL), "fail");
  cr_assert_str_eq(cs_verdict_name(CS_VERDICT_EXPECTED_FAIL), "expected_fail");
  cr_assert_str_eq(cs_verdict_name(CS_VERDICT_FIXED), "fixed");
  cr_assert_str_eq(cs_verdict_name(CS_VERDICT_NOT_APPLICABLE), "not_applicable");
  cr_assert_str_eq(cs_verdict_name(CS_VERDICT_UNCHECKED), "unchecked");
  cr_assert_str_eq(cs_verdict_name((cs_verdict)CS_VERDICT_COUNT), "unknown", "out of range: a row, not a crash");
  cr_assert_str_eq(cs_verdict_name((cs_verdict)-1), "unknown");
}

/* Every verdict has a distinct name and word; a merged matrix cell shows the worst verdict. */
Test(result, verdict_table) {
  for (int i = 0; i < CS_VERDICT_COUNT; i++)
    for (int j = i + 1; j < CS_VERDICT_COUNT; j++) {
      cr_assert_str_neq(cs_verdict_of(i)->name, cs_verdict_of(j)->name);
      cr_assert_str_neq(cs_verdict_of(i)->word, cs_verdict_of(j)->word);
      cr_assert_neq(cs_verdict_of(i)->rank, cs_verdict_of(j)->rank);
    }
  cr_assert_str_eq(cs_verdict_of(CS_VERDICT_NOT_APPLICABLE)->word, "n/a");
  /* A cell checked on some target shows over one no case reached. */
  cs_verdict worst_first[] = {CS_VERDICT_FAIL, CS_VERDICT_FIXED,     CS_VERDICT_EXPECTED_FAIL,
                              CS_VERDICT_PASS, CS_VERDICT_UNCHECKED, CS_VERDICT_NOT_APPLICABLE};
  for (size_t i = 1; i < sizeof worst_first / sizeof *worst_first; i++)
    cr_assert_gt(cs_verdict_of(worst_first[i - 1])->rank, cs_verdict_of(worst_first[i])->rank, "%s",
                 cs_verdict_name(worst_first[i]));
}

Test(result, cell_fails_run) {
  cs_cell c = plain_cell("p", "t", true, CS_VERDICT_FAIL);
  cr_assert(cs_cell_fails_run(&c, false));
  c.required = false;
  cr_assert_not(cs_cell_fails_run(&c, false));
  cr_assert(cs_cell_fails_run(&c, true));
  c = plain_cell("p", "t", true, CS_VERDICT_FIXED);
  cr_assert(cs_cell_fails_run(&c, false), "a listed failure that holds means the list must shrink");
  cs_verdict others[] = {CS_VERDICT_PASS, CS_VERDICT_EXPECTED_FAIL, CS_VERDICT_NOT_APPLICABLE, CS_VERDICT_UNCHECKED};
  for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
    c = plain_cell("p", "t", true, others[i]);
    cr_assert_not(cs_cell_fails_run(&c, true), "%s", cs_verdict_name(others[i]));
  }
}

/* Failed, listed or not: what the known-failures list writes and the normalizer note reads. */
Test(result, cell_failed) {
  for (int v = 0; v < CS_VERDICT_COUNT; v++) {
    cs_cell c = plain_cell("p", "t", true, (cs_verdict)v);
    cr_assert_eq(cs_cell_failed(&c), v == CS_VERDICT_FAIL || v == CS_VERDICT_EXPECTED_FAIL, "%s",
                 cs_verdict_name((cs_verdict)v));
  }
}

static int status_of(cs_verdict v, bool required, bool strict, bool could_not_run) {
  cs_cell cells[2] = {plain_cell("a", "t", true, CS_VERDICT_PASS), plain_cell("b", "t", required, v)};
  cs_impl_result impls[2] = {{.name = "x", .cells = cells, .ncells = 2}, {.name = "y", .could_not_run = could_not_run}};
  cs_report r = {.impls = impls, .nimpls = 2, .strict = strict};
  return cs_report_exit_status(&r);
}

Test(result, exit_status) {
  cr_assert_eq(status_of(CS_VERDICT_PASS, true, false, false), 0);
  cr_assert_eq(status_of(CS_VERDICT_FAIL, true, false, false), 1);
  cr_assert_eq(status_of(CS_VERDICT_FAIL, false, false, false), 0, "recommended failure without --strict");
  cr_assert_eq(status_of(CS_VERDICT_FAIL, false, true, false), 1, "recommended failure with --strict");
  cr_assert_eq(status_of(CS_VERDICT_EXPECTED_FAIL, true, true, false), 0);
  cr_assert_eq(status_of(CS_VERDICT_FIXED, true, true, false), 1, "the --expect list must shrink");
  cr_assert_eq(status_of(CS_VERDICT_NOT_APPLICABLE, true, true, false), 0);
  cr_assert_eq(status_of(CS_VERDICT_UNCHECKED, true, true, false), 0, "neither held nor failed: not a failure");
  cr_assert_eq(status_of(CS_VERDICT_PASS, true, false, true), 3);
  cr_assert_eq(status_of(CS_VERDICT_FAIL, true, false, true), 3, "could not run wins over a failure");
  cs_report empty = {0};
  cr_assert_eq(cs_report_exit_status(&empty), 0);
  fixture f;
  fixture_init(&f);
  cr_assert_eq(cs_report_exit_status(&f.r), 1);
}

Test(result, cell_origin_names_the_seed_and_case_or_the_replay) {
  char buf[80];
  cs_cell c = fail_cell("emit.unique", "mistral", true, "{}");
  c.seed = 7;
  cr_assert_str_eq(cs_cell_origin(&c, buf, sizeof buf), "seed 7, case 16");
  c.case_index = CS_CASE_CORPUS;
  cr_assert_str_eq(cs_cell_origin(&c, buf, sizeof buf), "seed 7, a corpus case");
  c.case_index = CS_CASE_REPLAYED;
  cr_assert_str_eq(cs_cell_origin(&c, buf, sizeof buf), "the replayed case", "a replay's seed decides nothing");
}

Test(result, report_origin_is_the_seed_or_the_replay) {
  char buf[48];
  cs_report r = {.seed = 42};
  cr_assert_str_eq(cs_report_origin(&r, buf, sizeof buf), "seed 42");
  r.strict = true;
  cr_assert_str_eq(cs_report_origin(&r, buf, sizeof buf), "seed 42, strict");
  r.replay = true;
  cr_assert_str_eq(cs_report_origin(&r, buf, sizeof buf), "replay, strict");
}

Test(result, shrunk_size_says_call_and_turn_in_the_singular_when_one) {
  char buf[48];
  cs_cell c = fail_cell("emit.unique", "mistral", true, "{}");
  c.shrunk_turns = 3;
  c.shrunk_calls = 1;
  cr_assert_str_eq(cs_cell_shrunk_size(&c, buf, sizeof buf), "3 turns, 1 call");
  c.shrunk_turns = 1;
  c.shrunk_calls = 2;
  cr_assert_str_eq(cs_cell_shrunk_size(&c, buf, sizeof buf), "1 turn, 2 calls");
}

/* A vector's failure was decided by no seed and not shrunk: every report says so in one line. */
Test(result, case_line_names_the_vector_or_the_seed_and_the_shrinking) {
  char buf[200];
  cs_cell c = fail_cell("emit.unique", "mistral", true, "{}");
  c.seed = 7;
  c.shrunk_turns = 1;
  c.shrunk_calls = 2;
  c.shrink_steps = 9;
  cr_assert_str_eq(cs_cell_case_line(&c, buf, sizeof buf), "seed 7, case 16; shrunk to 1 turn, 2 calls in 9 steps");
  c.case_index = CS_CASE_VECTOR;
  c.shrink_steps = 0;
  cr_assert_str_eq(cs_cell_case_line(&c, buf, sizeof buf), "a canonical v1 vector (not shrunk): 1 turn, 2 calls");
}

Test(json, corpus_replayed_and_vector_case_index_is_null) {
  const uint64_t sentinels[] = {CS_CASE_CORPUS, CS_CASE_REPLAYED, CS_CASE_VECTOR};
  for (size_t i = 0; i < 3; i++) {
    fixture f;
    fixture_init(&f);
    f.a[1].case_index = sentinels[i];
    char path[64];
    char *doc = write_tmp(&f.r, cs_report_json, path, ".json");
    cJSON *root = cJSON_Parse(doc);
    cr_assert_not_null(root);
    cJSON *a = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "implementations"), 0);
    cJSON *fail = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(a, "cells"), 1), "failure");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(fail, "case_index")), "sentinel %zu", i);
    cr_assert_eq(cJSON_IsNull(cJSON_GetObjectItem(fail, "seed")), sentinels[i] != CS_CASE_CORPUS,
                 "a seed only for a corpus case of a run (sentinel %zu)", i);
    cJSON_Delete(root);
    free(doc);
    unlink(path);
  }
}

/* A replay's one case is decided by its token or file: no report states a seed for it. */
Test(output, a_replay_states_no_seed) {
  fixture f;
  fixture_init(&f);
  f.r.replay = true;
  f.a[1].case_index = CS_CASE_REPLAYED;
  char path[64];
  char *doc = write_tmp(&f.r, cs_report_json, path, ".json");
  cJSON *root = cJSON_Parse(doc);
  cr_assert_not_null(root);
  cr_assert(cJSON_IsNull(cJSON_GetObjectItem(root, "seed")), "%s", doc);
  cJSON *a = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "implementations"), 0);
  cJSON *fail = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(a, "cells"), 1), "failure");
  cr_assert(cJSON_IsNull(cJSON_GetObjectItem(fail, "seed")), "the replayed case's seed");
  cJSON_Delete(root);
  free(doc);
  unlink(path);

  doc = write_tmp(&f.r, cs_report_junit, path, ".xml");
  cr_assert_null(strstr(doc, "name=\"seed\""), "%s", doc);
  cr_assert_not_null(strstr(doc, "<property name=\"replay\" value=\"true\"/>"), "%s", doc);
  free(doc);
  unlink(path);

  doc = write_tmp(&f.r, cs_report_failures, path, ".txt");
  cr_assert_null(strstr(doc, "seed"), "%s", doc);
  cr_assert_not_null(strstr(doc, ", replay, from:"), "%s", doc);
  free(doc);
  unlink(path);
}

Test(result, format_table) {
  size_t n = 0;
  const cs_report_format *fm = cs_report_formats(&n);
  const char *want[] = {"junit", "json", "markdown", "html", "failures"};
  writer_fn fns[] = {cs_report_junit, cs_report_json, cs_report_markdown, cs_report_html, cs_report_failures};
  cr_assert_eq(n, 5u);
  for (size_t i = 0; i < n; i++) {
    cr_assert_str_eq(fm[i].name, want[i]);
    cr_assert_eq(fm[i].write, fns[i]);
    cr_assert(fm[i].summary && fm[i].summary[0]);
  }
}

/* ---- escaping ---- */

static char *esc_plain(const char *s, bool keep_lines, cs_buf *b) {
  cs_buf_clear(b);
  cs_esc_plain(b, s, strlen(s), keep_lines);
  return b->data;
}

static char *esc_markup(const char *s, cs_esc_markup_ctx ctx, cs_buf *b) {
  cs_buf_clear(b);
  cs_esc_markup(b, s, strlen(s), ctx);
  return b->data;
}

Test(escape, markup_and_plain) {
  cs_buf b = {0};
  cr_assert_str_eq(esc_markup("a<b>&\"'", CS_ESC_TEXT, &b), "a&lt;b&gt;&amp;&quot;&#39;");
  cr_assert_str_eq(esc_markup("x\x01y\x1b\xEF\xBF\xBE\xFF]]>", CS_ESC_TEXT, &b), "x\\u0001y\\u001B\\uFFFE\\xFF]]&gt;");
  cr_assert_str_eq(esc_markup("a\nb\tc\rd", CS_ESC_TEXT, &b), "a\nb\tc\\rd");
  cr_assert_str_eq(esc_markup("a\nb\tc\rd", CS_ESC_LINE, &b), "a\\nb\\tc\\rd");
  cr_assert_str_eq(esc_markup("a\nb\tc", CS_ESC_ATTR, &b), "a&#10;b&#9;c");
  cr_assert_str_eq(esc_markup("\xF0\x9F\x98\x80\xC2\x85\xF0\x9F\xBF\xBE", CS_ESC_LINE, &b),
                   "\xF0\x9F\x98\x80\\u0085\\U0001FFFE");
  cr_assert_str_eq(esc_plain("a\nb\x1b", false, &b), "a\\nb\\u001B");
  cr_assert_str_eq(esc_plain("a\nb\x1b", true, &b), "a\nb\\u001B");
  /* Overlong and surrogate encodings are bad bytes, one escape per byte. */
  cr_assert_str_eq(esc_plain("\xC0\xAF\xED\xA0\x80", false, &b), "\\xC0\\xAF\\xED\\xA0\\x80");
  cs_buf_free(&b);
}

Test(escape, markdown_and_json) {
  cs_buf b = {0};
  cs_esc_md_inline(&b, "a|b\nc<d>_e`", strlen("a|b\nc<d>_e`"));
  cr_assert_str_eq(b.data, "a\\|b<br>c\\<d\\>\\_e\\`");
  cs_buf_clear(&b);
  cs_esc_json(&b, "ok\xFF\x01");
  cr_assert_str_eq(b.data, "\"ok\\ufffd\\u0001\"");
  cs_buf_clear(&b);
  cs_esc_json(&b, NULL);
  cr_assert_str_eq(b.data, "null");
  cs_buf_free(&b);
  cr_assert_eq(cs_esc_backtick_run("a``b````c`", 10), 4u);
  cr_assert_eq(cs_esc_backtick_run("abc", 3), 0u);
  const char *emoji = "ab\xF0\x9F\x98\x80";
  cr_assert_eq(cs_esc_cut(emoji, 6, 5), 2u, "never split a character");
  cr_assert_eq(cs_esc_cut(emoji, 6, 6), 6u);
  cr_assert_eq(cs_esc_cut("a\xFF\xFF", 3, 2), 2u);
}

/* Invisible characters make two IDs differ while they read the same: every format shows them
 * escaped; JSON escapes them (and DEL, C1) as \u, which reads back as the same text. */
Test(escape, invisible_characters_and_json) {
  const uint32_t hidden[] = {0x7F, 0x85, 0x9B, 0xAD, 0x61C, 0x200B, 0x200C, 0x200F, 0x2060, 0x2066, 0xFEFF, 0xE0001};
  for (size_t i = 0; i < sizeof hidden / sizeof *hidden; i++)
    cr_assert(cs_esc_is_hidden(hidden[i]), "U+%04X is shown raw", (unsigned)hidden[i]);
  /* Emoji and their parts: the joiner, the variation selectors, the tags of a subdivision flag. */
  const uint32_t shown[] = {' ',    'a',    0xA0,   0xE9,   0x5D0,   0x2010,  0x20AC,
                            0x4E2D, 0x26A1, 0x200D, 0xFE0F, 0x1F600, 0xE0067, 0xE007F};
  for (size_t i = 0; i < sizeof shown / sizeof *shown; i++)
    cr_assert(!cs_esc_is_hidden(shown[i]), "U+%04X is escaped", (unsigned)shown[i]);
  cs_buf b = {0};
  cs_esc_plain(&b,
               "a\xE2\x80\x8B"
               "b",
               5, false);
  cr_assert_str_eq(b.data, "a\\u200Bb");
  cs_buf_clear(&b);
  cs_esc_json(&b, "x\x7F\xC2\x85\xE2\x80\x8F\xF3\xA0\x80\x81\xC3\xA9\n");
  cr_assert_str_eq(b.data, "\"x\\u007f\\u0085\\u200f\\udb40\\udc01\xC3\xA9\\u000a\"");
  cs_buf_clear(&b);
  cs_esc_json(&b, "fast\xE2\x9A\xA1\xEF\xB8\x8F"); /* an emoji stays one */
  cr_assert_str_eq(b.data, "\"fast\xE2\x9A\xA1\xEF\xB8\x8F\"");
  cs_buf_clear(&b);
  /* Whole JSON text: hidden characters inside strings escaped, the printer's layout left alone. */
  cs_esc_json_text(&b, "{\n\t\"k\xE2\x80\xA8\":\t\"\xC2\x9B\xEF\xBB\xBF\xC3\xA9\"\n}");
  cr_assert_str_eq(b.data, "{\n\t\"k\\u2028\":\t\"\\u009b\\ufeff\xC3\xA9\"\n}");
  cs_buf_free(&b);
}

/* ---- JUnit ---- */

Test(junit, well_formed_and_complete) {
  fixture f;
  fixture_init(&f);
  char path[64];
  char *doc = write_tmp(&f.r, cs_report_junit, path, ".xml");
  cr_assert_eq(run_cmd("xmllint --noout %s", path), 0, "xmllint rejected the JUnit report:\n%s", doc);
  cr_assert_eq(count_of(doc, "<testcase "), 10u);
  cr_assert_eq(count_of(doc, "<testsuite "), 2u);
  cr_assert_eq(count_of(doc, "<failure message="), 2u, "two required FAIL cells");
  cr_assert_eq(count_of(doc, "<skipped message=\"recommended property failed"), 1u,
               "a recommended failure without --strict is skipped, not red");
  cr_assert_eq(count_of(doc, "<failure type=\"fixed\""), 1u);
  cr_assert_eq(count_of(doc, "<skipped message=\"expected failure (listed in --expect)\"/>"), 1u);
  cr_assert_eq(count_of(doc, "<skipped message=\"not applicable\"/>"), 2u);
  cr_assert_not_null(strstr(doc, "classname=\"alpha&lt;&amp;&gt;.emit.regex\" name=\"mistral\""));
  cr_assert_not_null(strstr(doc, "type=\"emit.regex\""));
  cr_assert_not_null(strstr(doc, "case: seed 18446744073709551615, case "));
  cr_assert_not_null(strstr(doc, "replay: callsign replay AAECAwQ --impl &#39;x&lt;y&gt;&#39;"));
  cr_assert_not_null(strstr(doc, "<testsuite name=\"alpha&lt;&amp;&gt;\" tests=\"7\" failures=\"2\" errors=\"0\" "
                                 "skipped=\"3\" time=\"1.250\">"));
  cr_assert_not_null(strstr(doc, "tests=\"10\" failures=\"3\" errors=\"0\" skipped=\"4\""));
  cr_assert_null(strstr(doc, "<script>"));
  cr_assert_null(strstr(doc, "CDATA"));
  assert_clean_bytes(doc, false);
  free(doc);
  unlink(path);
}

Test(junit, could_not_run_is_an_error_testcase) {
  fixture f;
  fixture_init(&f);
  f.impls[1].could_not_run = true;
  f.impls[1].error = "exec failed: \x01<nope>";
  char path[64];
  char *doc = write_tmp(&f.r, cs_report_junit, path, ".xml");
  cr_assert_eq(run_cmd("xmllint --noout %s", path), 0);
  cr_assert_eq(count_of(doc, "<testcase "), 11u);
  cr_assert_not_null(strstr(doc, "<error type=\"could_not_run\" message=\"exec failed: \\u0001&lt;nope&gt;\"/>"));
  free(doc);
  unlink(path);
}

/* ---- JSON ---- */

Test(json, parses_with_documented_keys) {
  fixture f;
  fixture_init(&f);
  char path[64];
  char *doc = write_tmp(&f.r, cs_report_json, path, ".json");
  cr_assert_eq(run_cmd("python3 -m json.tool %s > /dev/null", path), 0, "python3 rejected:\n%s", doc);
  cJSON *root = cJSON_Parse(doc);
  cr_assert_not_null(root, "cJSON rejected the JSON report");
  const char *keys[] = {"schema",  "tool_version", "command",         "seed",      "strict", "exit_status",
                        "targets", "summary",      "implementations", "statistics"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    cr_assert_not_null(cJSON_GetObjectItemCaseSensitive(root, keys[i]), "missing key %s", keys[i]);
  cr_assert_str_eq(cJSON_GetObjectItem(root, "schema")->valuestring, "callsign-report/1");
  cr_assert_str_eq(cJSON_GetObjectItem(root, "seed")->valuestring, "18446744073709551615");
  cr_assert_eq(cJSON_GetObjectItem(root, "exit_status")->valueint, 1);
  cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(root, "strict")));
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "targets")), 2);

  cJSON *sum = cJSON_GetObjectItem(root, "summary");
  cr_assert_eq(cJSON_GetObjectItem(sum, "failed")->valueint, 3);
  cr_assert_eq(cJSON_GetObjectItem(sum, "passed")->valueint, 3);
  cr_assert_eq(cJSON_GetObjectItem(sum, "fixed")->valueint, 1);
  cr_assert_eq(cJSON_GetObjectItem(sum, "failing_run")->valueint, 3,
               "the required failures and the fixed entry count; the recommended failure does not");
  cr_assert_eq(cJSON_GetObjectItem(sum, "faults")->valueint, 6);

  cJSON *impls = cJSON_GetObjectItem(root, "implementations");
  cr_assert_eq(cJSON_GetArraySize(impls), 2);
  cJSON *a = cJSON_GetArrayItem(impls, 0);
  cr_assert_str_eq(cJSON_GetObjectItem(a, "name")->valuestring, "alpha<&>");
  cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(a, "cells")), 7);
  cJSON *failing = cJSON_GetArrayItem(cJSON_GetObjectItem(a, "cells"), 1);
  cr_assert_str_eq(cJSON_GetObjectItem(failing, "verdict")->valuestring, "fail");
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(failing, "fails_run")));
  cJSON *fail = cJSON_GetObjectItem(failing, "failure");
  cr_assert(cJSON_IsObject(fail));
  const char *msg = cJSON_GetObjectItem(fail, "message")->valuestring;
  cr_assert_not_null(strstr(msg, "ctl\x01 esc\x1b[31m <script>"), "control characters round-trip as escapes");
  cr_assert_not_null(strstr(msg, "bad\xEF\xBF\xBD emoji\xF0\x9F\x98\x80"), "bad byte becomes U+FFFD");
  cr_assert_not_null(strstr(msg, "nonchar\xEF\xBF\xBE"), "valid noncharacters are kept");
  cr_assert_eq(cJSON_GetObjectItem(fail, "case_index")->valueint, 16);
  cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(a, "cells"), 0), "failure")));
  cJSON *b = cJSON_GetArrayItem(impls, 1);
  cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "faults"), "rejected")->valueint, 3);
  cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "faults"), "protocol")->valueint, 2);

  cJSON *labels = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "statistics"), "labels");
  cr_assert_eq(cJSON_GetArraySize(labels), 3);
  cr_assert_float_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(labels, 0), "share")->valuedouble, 0.12, 1e-9);
  cJSON_Delete(root);
  free(doc);
  unlink(path);
}

/* ---- Markdown ---- */

Test(markdown, table_rows_stay_whole) {
  fixture f;
  fixture_init(&f);
  char path[64];
  char *doc = write_tmp(&f.r, cs_report_markdown, path, ".md");
  cr_assert_not_null(strstr(doc, "| property | tier | anthropic | mistral | - |"), "%s", doc);
  cr_assert_not_null(strstr(doc, "| property | tier | alpha\\<\\&\\> | beta\\|x<br>y |"), "overview header");
  cr_assert_not_null(strstr(doc, "## callsign: \xE2\x9D\x8C failed"));
  cr_assert_not_null(strstr(doc, "remove these from the list"));
  /* The history holds a run of four backticks: its fence must be longer. */
  cr_assert_not_null(strstr(doc, "\n`````json\n"));
  cr_assert_not_null(strstr(doc, "callsign replay AAECAwQ --impl 'x<y>'"));
  cr_assert_eq(count_of(doc, "<details><summary>\xE2\x9D\x8C"), 3u);
  cr_assert_not_null(strstr(doc, "(beta|x\\ny): message: ctl\\u0001 esc\\u001B[31m &lt;script&gt;"));

  /* Walk the lines: table rows open and close with a pipe (a raw newline from the data would
   * break one), and raw "<script>" appears only inside fenced code blocks. */
  size_t rows = 0, fence = 0;
  char *save = NULL;
  for (char *line = strtok_r(doc, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    size_t ticks = strspn(line, "`");
    if (ticks >= 3 && (fence == 0 || (ticks == fence && line[ticks] == 0))) {
      fence = fence ? 0 : ticks;
      continue;
    }
    if (fence)
      continue;
    cr_assert_null(strstr(line, "<script>"), "raw markup outside code: %s", line);
    if (line[0] == '|') {
      rows++;
      cr_assert_eq(line[strlen(line) - 1], '|', "broken table row: %s", line);
    }
  }
  cr_assert_eq(fence, 0u, "unclosed fence");
  cr_assert_geq(rows, 12u);
  free(doc);
  unlink(path);
}

/* ---- HTML ---- */

/* IDs of DEL bytes grow six times when escaped (\u007F): however many failures, and however large,
 * the job summary stays below GitHub's 1 MiB per step and says where the rest is. */
Test(markdown, stays_below_a_mebibyte_whatever_the_failures) {
  enum { NIMPLS = 4, NCELLS = 200, ID = 60000 };
  char *del = malloc(ID + 64);
  cr_assert_not_null(del);
  memcpy(del, "{\"id\":\"", 7);
  memset(del + 7, 0x7F, ID);
  memcpy(del + 7 + ID, "\"}", 3);
  static char msg[600];
  memset(msg, 0x7F, sizeof msg - 1);
  static cs_cell cells[NIMPLS][NCELLS];
  static cs_impl_result impls[NIMPLS];
  for (int k = 0; k < NIMPLS; k++) {
    for (int i = 0; i < NCELLS; i++) {
      cells[k][i] = fail_cell("emit.regex", "anthropic", true, del);
      cells[k][i].answer_json = del;
      cells[k][i].replay = del;
      cells[k][i].message = msg;
      if (i % 2)
        cells[k][i].verdict = CS_VERDICT_EXPECTED_FAIL;
    }
    impls[k] = (cs_impl_result){.name = "big", .cells = cells[k], .ncells = NCELLS, .stderr_tail = del};
  }
  cs_report r = {.tool_version = "0.1.0", .command = del, .impls = impls, .nimpls = NIMPLS};
  char path[64];
  char *doc = write_tmp(&r, cs_report_markdown, path, ".md");
  size_t n = strlen(doc);
  cr_assert_lt(n, 1u << 20, "%zu bytes", n);
  cr_assert_not_null(strstr(doc, "more failures are in the JSON and JUnit reports"));
  cr_assert_not_null(strstr(doc, "more are in the JSON and JUnit reports"), "the expected-failure list is cut too");
  cr_assert_not_null(strstr(doc, "\\u007F"), "the IDs are shown, escaped");
  free(doc);
  unlink(path);
  free(del);
}

/* An implementation may answer up to 64 MiB: HTML and JUnit show a history, an answer or a message
 * cut as the terminal cuts it, between characters (the cut falls inside an emoji here), saying how
 * much was left out; the JSON report keeps every byte. */
Test(output, html_and_junit_cut_long_strings_and_json_keeps_them) {
  enum { BIG = 3000000, MSG = 5000 };
  const size_t before = CS_REPORT_MAX_SHOWN - 2; /* the emoji's 4 bytes straddle the limit */
  char *big = malloc(BIG + 1);
  cr_assert_not_null(big);
  memset(big, '<', BIG);
  memset(big, 'a', before);
  memcpy(big + before, "\xF0\x9F\x98\x80", 4);
  big[BIG] = 0;
  static char msg[MSG + 1];
  memset(msg, 'm', MSG);
  fixture f;
  fixture_init(&f);
  cs_cell *cells[] = {&f.a[1], &f.a[5], &f.b[2]};
  for (size_t i = 0; i < sizeof cells / sizeof *cells; i++) {
    cells[i]->history_json = big;
    cells[i]->answer_json = big;
    cells[i]->message = msg;
  }
  char left[80], msg_left[80];
  snprintf(left, sizeof left, "%zu more bytes not shown", (size_t)BIG - before);
  snprintf(msg_left, sizeof msg_left, "%zu more bytes not shown", (size_t)MSG - CS_REPORT_MAX_SHOWN);
  writer_fn cut[] = {cs_report_html, cs_report_junit};
  const char *suffix[] = {".html", ".xml"};
  for (size_t w = 0; w < 2; w++) {
    char path[64];
    char *doc = write_tmp(&f.r, cut[w], path, suffix[w]);
    size_t n = strlen(doc);
    cr_assert_lt(n, 256u << 10, "%s: %zu bytes", suffix[w], n);
    cr_assert_geq(count_of(doc, left), 3u, "%s: each history and answer says what it left out", suffix[w]);
    cr_assert_geq(count_of(doc, msg_left), 2u, "%s: the long messages are cut too", suffix[w]);
    cr_assert_null(strstr(doc, "\\xF0"), "%s: the cut split a character", suffix[w]);
    cr_assert_eq(run_cmd("xmllint --noout %s", path), 0, "%s: not well-formed", suffix[w]);
    assert_clean_bytes(doc, false);
    free(doc);
    unlink(path);
  }
  char path[64];
  char *doc = write_tmp(&f.r, cs_report_json, path, ".json");
  cJSON *root = cJSON_Parse(doc);
  cr_assert_not_null(root);
  cJSON *cell = cJSON_GetArrayItem(
      cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "implementations"), 0), "cells"), 1);
  cJSON *fail = cJSON_GetObjectItem(cell, "failure");
  cr_assert_str_eq(cJSON_GetObjectItem(fail, "answer_json")->valuestring, big, "JSON keeps the answer whole");
  cr_assert_str_eq(cJSON_GetObjectItem(fail, "history_json")->valuestring, big);
  cr_assert_str_eq(cJSON_GetObjectItem(fail, "message")->valuestring, msg);
  cJSON_Delete(root);
  free(doc);
  unlink(path);
  free(big);
}

/* A hello's name and version may be 64 MiB, and the name is repeated for every cell: the terminal,
 * HTML, JUnit and Markdown show the first CS_REPORT_MAX_NAME bytes of each (the overview's column
 * too), saying how much was left out; the JSON report keeps them whole. */
Test(output, a_long_name_and_version_are_cut_except_in_json) {
  enum { BIG = 1000000 };
  char *name = malloc(BIG + 1), *version = malloc(BIG + 1);
  cr_assert(name && version);
  memset(name, 'n', BIG);
  name[BIG] = 0;
  memset(version, '<', BIG);
  version[BIG] = 0;
  fixture f;
  fixture_init(&f);
  f.impls[0].name = name;
  f.impls[0].version = version;
  char left[80], kept[CS_REPORT_MAX_NAME + 3];
  snprintf(left, sizeof left, " [%zu more bytes not shown: the JSON report keeps them]",
           (size_t)BIG - CS_REPORT_MAX_NAME);
  memset(kept, 'n', CS_REPORT_MAX_NAME);
  memcpy(kept + CS_REPORT_MAX_NAME, " [", 3);
  writer_fn cut[] = {write_terminal_plain, cs_report_html, cs_report_junit, cs_report_markdown};
  const char *suffix[] = {".txt", ".html", ".xml", ".md"};
  for (size_t w = 0; w < 4; w++) {
    char path[64];
    char *doc = write_tmp(&f.r, cut[w], path, suffix[w]);
    size_t n = strlen(doc);
    cr_assert_lt(n, 64u << 10, "%s: %zu bytes", suffix[w], n);
    cr_assert_geq(count_of(doc, left), 3u, "%s: the name and the version say what they left out", suffix[w]);
    cr_assert_not_null(strstr(doc, kept), "%s: the name is cut at CS_REPORT_MAX_NAME bytes", suffix[w]);
    if (w == 1 || w == 2)
      cr_assert_eq(run_cmd("xmllint --noout %s", path), 0, "%s: not well-formed", suffix[w]);
    free(doc);
    unlink(path);
  }
  char path[64];
  char *doc = write_tmp(&f.r, cs_report_json, path, ".json");
  cJSON *root = cJSON_Parse(doc);
  cr_assert_not_null(root);
  cJSON *impl = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "implementations"), 0);
  cr_assert_str_eq(cJSON_GetObjectItem(impl, "name")->valuestring, name, "JSON keeps the name whole");
  cr_assert_str_eq(cJSON_GetObjectItem(impl, "version")->valuestring, version, "JSON keeps the version whole");
  cJSON_Delete(root);
  free(doc);
  unlink(path);
  free(name);
  free(version);
}

Test(html, safe_and_parsable) {
  fixture f;
  fixture_init(&f);
  char path[64];
  char *doc = write_tmp(&f.r, cs_report_html, path, ".html");
  cr_assert_null(strstr(doc, "<script"), "data reached the page as markup");
  cr_assert_not_null(strstr(doc, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  cr_assert_eq(count_of(doc, "http"), count_of(doc, "http://www.w3.org/2000/svg"), "no external resources");
  cr_assert_null(strstr(doc, "<link"));
  cr_assert_null(strstr(doc, "src="));
  assert_clean_bytes(doc, false);
  cr_assert_eq(count_of(doc, "<rect "), 3u, "one bar per statistics label");
  cr_assert_not_null(strstr(doc, "120 (12.0%)"));
  cr_assert_not_null(strstr(doc, "<td class=\"fail\"><a href=\"#f-0-1\">FAIL</a></td>"));
  cr_assert_not_null(strstr(doc, "id=\"f-0-1\""));
  cr_assert_not_null(strstr(doc, "<th>rejected</th>"));
  cr_assert_not_null(strstr(doc, "<h2 id=\"impl-1\">beta|x\\ny v"), "a newline in a name is shown, not collapsed");
  cr_assert_not_null(strstr(doc, "<pre>\nline one\nline ctl\\u0001"), "the stderr tail keeps its lines");

  /* Well-formed as XML, and the HTML parser has nothing to say about the data: its only
   * complaints may be the SVG element names, which an HTML4 parser does not know. */
  cr_assert_eq(run_cmd("xmllint --noout %s", path), 0, "not well-formed XML");
  char errpath[80];
  snprintf(errpath, sizeof errpath, "%s.err", path);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "xmllint --html --noout %s 2> %s", path, errpath);
  int st = system(cmd);
  cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  FILE *ef = fopen(errpath, "r");
  cr_assert_not_null(ef);
  char line[4096];
  while (fgets(line, sizeof line, ef)) {
    if (!strstr(line, "error"))
      continue;
    cr_assert(strstr(line, "Tag svg invalid") || strstr(line, "Tag rect invalid") || strstr(line, "Tag text invalid"),
              "xmllint --html: %s", line);
  }
  fclose(ef);
  unlink(errpath);
  free(doc);
  unlink(path);
}

/* An HTML parser drops a newline right after <pre>: every block starts with one of its own, so a
 * stderr tail, a history or a replay that starts with a newline keeps it. */
Test(html, a_block_keeps_its_leading_newline) {
  fixture f;
  fixture_init(&f);
  f.impls[1].stderr_tail = "\n\nafter two empty lines";
  f.a[1].history_json = "\n{\"turns\":[]}";
  char path[64];
  char *doc = write_tmp(&f.r, cs_report_html, path, ".html");
  cr_assert_not_null(strstr(doc, "<pre>\n\n\nafter two empty lines</pre>"), "%s", doc);
  cr_assert_not_null(strstr(doc, "<pre>\n\n{&quot;turns&quot;:[]}</pre>"), "%s", doc);
  cr_assert_gt(count_of(doc, "<pre>"), 3u);
  cr_assert_eq(count_of(doc, "<pre>"), count_of(doc, "<pre>\n"), "a block starts without its newline");
  cr_assert_eq(run_cmd("xmllint --noout %s", path), 0, "not well-formed XML");
  free(doc);
  unlink(path);
}

/* ---- terminal ---- */

Test(terminal, matrix_failures_and_summary) {
  fixture f;
  fixture_init(&f);
  char path[64];
  char *doc = write_tmp(&f.r, write_terminal_plain, path, ".txt");
  cr_assert_null(strchr(doc, '\x1b'), "no escape sequence without color, not even from the data");
  assert_clean_bytes(doc, false);
  cr_assert_not_null(strstr(doc, "overview"));
  cr_assert_not_null(strstr(doc, "property"));
  cr_assert_not_null(strstr(doc, "anthropic  mistral"));
  cr_assert_not_null(strstr(doc, "FAIL emit.regex on mistral"));
  cr_assert_not_null(strstr(doc, "replay:  callsign replay AAECAwQ --impl 'x<y>'"));
  cr_assert_not_null(strstr(doc, "esc\\u001B[31m"));
  cr_assert_not_null(strstr(doc, "FIXED emit.unique on mistral: listed in --expect but now passes"));
  cr_assert_not_null(strstr(doc, "xfail emit.pair on anthropic"));
  cr_assert_not_null(strstr(doc, "recommended: does not fail the run"));
  cr_assert_not_null(strstr(doc, "faults: 3 rejected, 1 crash, 2 protocol"));
  cr_assert_not_null(strstr(doc, "    | line one\n"));
  cr_assert_not_null(strstr(
      doc,
      "callsign: 2 implementations, 3 failed, 3 passed, 1 expected failure, 1 fixed, 2 n/a (cases 20500, 1.8 s)\n"));
  /* Matrix rows: required first, the recommended one marked. */
  const char *req = strstr(doc, "canon.idempotent");
  const char *rec = strstr(doc, "normalize.idempotent");
  cr_assert(req && rec && req < rec);
  cr_assert_not_null(strstr(rec, " rec "));
  cr_assert_null(strstr(doc, "none: unchecked"), "no cell shows none: the legend leaves it out");
  free(doc);
  unlink(path);
}

/* --quiet: the failures a person must act on and the summary, without the matrices. */
Test(terminal, brief_keeps_failures_fixed_entries_and_the_summary) {
  fixture f;
  fixture_init(&f);
  f.r.brief = true;
  char path[64];
  char *doc = write_tmp(&f.r, write_terminal_plain, path, ".txt");
  cr_assert_null(strstr(doc, "overview"), "%s", doc);
  cr_assert_null(strstr(doc, "property "), "no matrix header: %s", doc);
  cr_assert_null(strstr(doc, "xfail"), "%s", doc);
  cr_assert_not_null(strstr(doc, "FAIL emit.regex on mistral"));
  cr_assert_not_null(strstr(doc, "replay:  callsign replay AAECAwQ --impl 'x<y>'"));
  cr_assert_not_null(strstr(doc, "FIXED emit.unique on mistral"));
  cr_assert_not_null(strstr(doc, "callsign: 2 implementations, 3 failed,"));
  free(doc);
  unlink(path);
}

Test(terminal, color_and_truncation) {
  fixture f;
  fixture_init(&f);
  static char big[6001];
  memset(big, 'x', sizeof big - 1);
  f.a[1].history_json = big;
  char path[64];
  char *doc = write_tmp(&f.r, write_terminal_color, path, ".txt");
  cr_assert_not_null(strstr(doc, "\x1b[1;31mFAIL\x1b[0m"));
  cr_assert_not_null(strstr(doc, "4000 more bytes not shown"));
  cr_assert_null(strstr(doc, "\x1b[31m <script>"), "the data's own escape sequence stays escaped");
  free(doc);
  unlink(path);
}

/* ---- the known-failures list ---- */

/* What --failures writes, --expect reads back: the cells still failing (listed or not), none that
 * passes or is fixed; a name --expect could not read as one word matches any implementation. */
Test(failures, the_list_reads_back_as_exactly_the_failing_cells) {
  fixture f;
  fixture_init(&f);
  char path[64];
  char *doc = write_tmp(&f.r, cs_report_failures, path, ".txt");
  assert_clean_bytes(doc, false);
  cr_assert_not_null(strstr(doc, "\nemit.regex mistral alpha<&>\n"), "%s", doc);
  /* alpha's expected failure of emit.pair is beta's too, whose line names no implementation and
   * so covers alpha's: --expect refuses a covered line, so alpha's is a comment. */
  cr_assert_not_null(strstr(doc, "\n# emit.pair anthropic: listed once for every implementation\n"), "%s", doc);
  cr_assert_null(strstr(doc, "\nemit.pair anthropic alpha"), "%s", doc);
  cr_assert_not_null(strstr(doc, "\nnormalize.idempotent anthropic alpha<&>  # recommended\n"), "%s", doc);
  cr_assert_not_null(strstr(doc, "\nemit.pair anthropic\n"), "beta's name holds a newline: %s", doc);
  cr_assert_not_null(strstr(doc, "# beta|x\\ny (not one word"), "%s", doc);
  cr_assert_null(strstr(doc, "emit.unique"), "a fixed cell is left out: %s", doc);
  cr_assert_null(strstr(doc, "emit.regex anthropic"), "a passing cell is left out: %s", doc);

  cs_expect x;
  cs_err err = {{0}};
  cr_assert_eq(cs_expect_load(path, &x, &err), 0, "%s", err.msg);
  cr_assert_eq(x.n, 3u);
  cr_assert_not_null(cs_expect_find(&x, "alpha<&>", "emit.regex", "mistral"));
  cr_assert_not_null(cs_expect_find(&x, "alpha<&>", "emit.pair", "anthropic"), "an expected failure stays listed");
  cr_assert_not_null(cs_expect_find(&x, "alpha<&>", "normalize.idempotent", "anthropic"));
  cr_assert_not_null(cs_expect_find(&x, "beta|x\ny", "emit.pair", "anthropic"));
  cr_assert_null(cs_expect_find(&x, "alpha<&>", "emit.unique", "mistral"));
  cr_assert_null(cs_expect_find(&x, "alpha<&>", "emit.regex", "anthropic"));
  cs_expect_free(&x);
  free(doc);
  unlink(path);

  /* An empty list says whether anything was checked: a program that could not start fails nothing,
   * and one whose --jobs run lost a worker (could_not_run) held on the cases the others ran. */
  cs_cell held = {.property = "emit.pair", .target = "anthropic", .verdict = CS_VERDICT_PASS},
          unjudged = {.property = "emit.pair", .target = "anthropic", .verdict = CS_VERDICT_UNCHECKED};
  cs_impl_result ran = {.name = "ok", .cases = 5, .cells = &held, .ncells = 1},
                 part = {.name = "part", .cases = 200, .could_not_run = true, .cells = &held, .ncells = 1},
                 dead = {.name = "dead", .could_not_run = true, .cells = &unjudged, .ncells = 1};
  const struct {
    cs_impl_result *impl;
    const char *says;
  } empties[] = {{NULL, "# nothing was checked"},
                 {&dead, "# nothing was checked"},
                 {&ran, "# no failures\n"},
                 {&part, "# no failures\n"}};
  for (size_t k = 0; k < sizeof empties / sizeof *empties; k++) {
    cs_report empty = {.impls = empties[k].impl, .nimpls = empties[k].impl ? 1 : 0};
    doc = write_tmp(&empty, cs_report_failures, path, ".txt");
    cr_assert_not_null(strstr(doc, empties[k].says), "%s", doc);
    cr_assert(!strstr(empties[k].says, "nothing") || !strstr(doc, "no failures\n"), "%s", doc);
    cr_assert_eq(cs_expect_load(path, &x, &err), 0, "%s", err.msg);
    cr_assert_eq(x.n, 0u);
    cs_expect_free(&x);
    free(doc);
    unlink(path);
  }
}

/* Lines of --expect the run did not check stay in the list, as read; one a written line without an
 * implementation already covers is left out, as --expect would refuse the pair. */
Test(failures, lines_not_checked_are_kept_unless_a_written_line_covers_them) {
  fixture f;
  fixture_init(&f);
  const cs_expect_line kept[] = {{"canon.unique", "-", "gamma"},
                                 {"emit.no_loss", "kimi", ""},
                                 {"emit.pair", "anthropic", "gamma"}}; /* beta's line covers it */
  f.r.expect_not_checked = kept;
  f.r.nexpect_not_checked = 3;
  char path[64];
  char *doc = write_tmp(&f.r, cs_report_failures, path, ".txt");
  cr_assert_not_null(strstr(doc, "\n# listed in --expect and not checked by this run"), "%s", doc);
  cr_assert_not_null(strstr(doc, "\ncanon.unique - gamma\n"), "%s", doc);
  cr_assert_not_null(strstr(doc, "\nemit.no_loss kimi\n"), "%s", doc);
  cr_assert_null(strstr(doc, "emit.pair anthropic gamma"), "%s", doc);
  cs_expect x;
  cs_err err = {{0}};
  cr_assert_eq(cs_expect_load(path, &x, &err), 0, "%s", err.msg);
  cr_assert_eq(x.n, 5u);
  cr_assert_not_null(cs_expect_find(&x, "gamma", "canon.unique", "-"));
  cr_assert_not_null(cs_expect_find(&x, "anyone", "emit.no_loss", "kimi"));
  cs_expect_free(&x);
  free(doc);
  unlink(path);
}

/* A name holding a character no report shows raw (C1 CSI, a bidi override), or bytes outside UTF-8,
 * is not one word: its line names no implementation and the name goes, escaped, into a comment. */
Test(failures, a_name_with_hidden_characters_is_not_written_raw) {
  static const char *const names[] = {"evil\xc2\x9b"
                                      "2J",
                                      "evil\xe2\x80\xaeRTL", "evil\xff"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    fixture f;
    fixture_init(&f);
    f.impls[0].name = names[i];
    char path[64];
    char *doc = write_tmp(&f.r, cs_report_failures, path, ".txt");
    cr_assert_null(strstr(doc, names[i]), "name %zu written raw:\n%s", i, doc);
    cr_assert_not_null(strstr(doc, "\nemit.regex mistral\n"), "name %zu: %s", i, doc);
    free(doc);
    unlink(path);
  }
}

/* ---- I/O errors ---- */

Test(output, write_errors_are_reported) {
  fixture f;
  fixture_init(&f);
  writer_fn fns[] = {cs_report_junit, cs_report_json,       cs_report_markdown,
                     cs_report_html,  write_terminal_plain, cs_report_failures};
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    FILE *full = fopen("/dev/full", "w");
    cr_assert_not_null(full);
    cs_err err = {{0}};
    cr_assert_eq(fns[i](&f.r, full, &err), -1, "writer %zu", i);
    cr_assert_not_null(strstr(err.msg, "write failed"), "%s", err.msg);
    fclose(full);
  }
  cs_err err = {{0}};
  cr_assert_eq(cs_report_json(NULL, stdout, &err), -1);
  cr_assert_eq(cs_report_html(&f.r, NULL, &err), -1);
  cr_assert_not_null(strstr(err.msg, "no output stream"));
}

/* ---- degenerate reports ---- */

Test(output, empty_and_could_not_run_reports_stay_valid) {
  cs_impl_result dead = {.name = "dead", .could_not_run = true, .error = "spawn failed", .stderr_tail = "boom\n"};
  cs_report reports[2] = {{0}, {.impls = &dead, .nimpls = 1}};
  for (size_t k = 0; k < 2; k++) {
    char path[64];
    char *doc = write_tmp(&reports[k], cs_report_json, path, ".json");
    cJSON *root = cJSON_Parse(doc);
    cr_assert_not_null(root, "%s", doc);
    cr_assert_eq(cJSON_GetObjectItem(root, "exit_status")->valueint, k == 0 ? 0 : 3);
    cJSON_Delete(root);
    free(doc);
    unlink(path);

    doc = write_tmp(&reports[k], cs_report_junit, path, ".xml");
    cr_assert_eq(run_cmd("xmllint --noout %s", path), 0, "%s", doc);
    cr_assert_eq(count_of(doc, "<testcase "), k);
    free(doc);
    unlink(path);

    doc = write_tmp(&reports[k], cs_report_html, path, ".html");
    cr_assert_eq(run_cmd("xmllint --noout %s", path), 0, "%s", doc);
    cr_assert_not_null(strstr(doc, "No statistics were recorded."));
    free(doc);
    unlink(path);

    doc = write_tmp(&reports[k], cs_report_markdown, path, ".md");
    cr_assert_not_null(strstr(doc, k == 0 ? "## callsign: \xE2\x9C\x85 passed" : "Could not run:** spawn failed"), "%s",
                       doc);
    free(doc);
    unlink(path);

    doc = write_tmp(&reports[k], write_terminal_plain, path, ".txt");
    cr_assert_not_null(
        strstr(doc, k == 0 ? "callsign: 0 implementations, 0 failed, 0 passed" : "could not run: spawn failed"), "%s",
        doc);
    free(doc);
    unlink(path);
  }
}

/* Every case cut off by --time: no cell was judged. Each format says "unchecked" (never "ok") and
 * how many cases were cut. */
Test(output, unchecked_cells_and_cut_cases) {
  cs_cell cells[2] = {plain_cell("emit.regex", "anthropic", true, CS_VERDICT_UNCHECKED),
                      plain_cell("emit.regex", "mistral", true, CS_VERDICT_NOT_APPLICABLE)};
  cells[0].cases = 0;
  cs_impl_result slow = {.name = "slow", .cells = cells, .ncells = 2, .cases_cut = 3};
  cs_report r = {.impls = &slow, .nimpls = 1};
  char path[64];
  char *doc = write_tmp(&r, cs_report_json, path, ".json");
  cJSON *root = cJSON_Parse(doc);
  cr_assert_not_null(root, "%s", doc);
  cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "summary"), "unchecked")->valueint, 1);
  cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "summary"), "passed")->valueint, 0);
  cJSON *impl = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "implementations"), 0);
  cr_assert_eq(cJSON_GetObjectItem(impl, "cases_cut")->valueint, 3);
  cJSON *cell = cJSON_GetArrayItem(cJSON_GetObjectItem(impl, "cells"), 0);
  cr_assert_str_eq(cJSON_GetObjectItem(cell, "verdict")->valuestring, "unchecked");
  cr_assert_eq(cJSON_GetObjectItem(root, "exit_status")->valueint, 0);
  cJSON_Delete(root);
  free(doc);
  unlink(path);

  doc = write_tmp(&r, cs_report_junit, path, ".xml");
  cr_assert_eq(run_cmd("xmllint --noout %s", path), 0, "%s", doc);
  cr_assert_not_null(strstr(doc, "skipped=\"2\""), "%s", doc);
  cr_assert_not_null(strstr(doc, "<skipped message=\"unchecked: no case was judged"), "%s", doc);
  cr_assert_not_null(strstr(doc, "<property name=\"cases_cut\" value=\"3\"/>"), "%s", doc);
  cr_assert_not_null(strstr(doc, "<system-out>3 cases cut off by --time: still waiting for answers"), "%s", doc);
  free(doc);
  unlink(path);

  doc = write_tmp(&r, cs_report_html, path, ".html");
  cr_assert_eq(run_cmd("xmllint --noout %s", path), 0, "%s", doc);
  cr_assert_not_null(strstr(doc, "class=\"none\""), "%s", doc);
  cr_assert_not_null(strstr(doc, "<p class=\"cut\">3 cases cut off by --time: still waiting for answers"), "%s", doc);
  free(doc);
  unlink(path);

  doc = write_tmp(&r, cs_report_markdown, path, ".md");
  cr_assert_not_null(strstr(doc, "| none |"), "%s", doc);
  cr_assert_not_null(strstr(doc, "3 cases cut off by `--time`"), "%s", doc);
  cr_assert_not_null(strstr(doc, "none: unchecked, no case was judged on it before the run ended"),
                     "the legend explains the mark: %s", doc);
  free(doc);
  unlink(path);

  doc = write_tmp(&r, write_terminal_plain, path, ".txt");
  cr_assert_not_null(strstr(doc, "3 cases cut off by --time"), "%s", doc);
  cr_assert_not_null(strstr(doc, "0 failed, 0 passed, 1 n/a, 1 unchecked"), "%s", doc);
  cr_assert_not_null(strstr(doc, "none: unchecked, no case was judged on it before the run ended)"), "%s", doc);
  cr_assert_null(strstr(doc, " ok "), "%s", doc);
  free(doc);
  unlink(path);
}

/* Whether each text format (JUnit, HTML, Markdown, terminal) holds `line`: all must, or none. */
static void assert_text_formats_say(const cs_report *r, const char *line, bool said) {
  static const struct {
    writer_fn write;
    const char *ext;
  } formats[] = {{cs_report_junit, ".xml"},
                 {cs_report_html, ".html"},
                 {cs_report_markdown, ".md"},
                 {write_terminal_plain, ".txt"}};
  for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
    char path[64];
    char *doc = write_tmp(r, formats[i].write, path, formats[i].ext);
    cr_assert_eq(strstr(doc, line) != NULL, said, "%s %s \"%s\": %s", formats[i].ext, said ? "lacks" : "holds", line,
                 doc);
    free(doc);
    unlink(path);
  }
}

/* A run that stopped because every property had failed: every format says so, and the JSON report
 * says when it did not. */
Test(output, a_run_that_ended_early_says_so) {
  cs_cell cells[1] = {plain_cell("emit.regex", "anthropic", true, CS_VERDICT_FAIL)};
  cs_impl_result short_run = {.name = "short", .cells = cells, .ncells = 1, .cases = 32, .ended_early = true};
  cs_report r = {.impls = &short_run, .nimpls = 1};
  const char *line = "ended after 32 cases: every selected property had failed, leaving no request to send";
  char path[64];
  char *doc = write_tmp(&r, cs_report_json, path, ".json");
  cJSON *root = cJSON_Parse(doc);
  cr_assert_not_null(root, "%s", doc);
  cJSON *impl = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "implementations"), 0);
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(impl, "ended_early")), "%s", doc);
  cJSON_Delete(root);
  free(doc);
  unlink(path);
  assert_text_formats_say(&r, line, true);
  short_run.ended_early = false;
  assert_text_formats_say(&r, "ended after", false);
  doc = write_tmp(&r, cs_report_json, path, ".json");
  cr_assert_not_null(strstr(doc, "\"ended_early\": false"), "%s", doc);
  free(doc);
  unlink(path);
}

/* Request kinds a run stopped sending: every format names them. */
Test(output, given_up_kinds_are_named) {
  cs_cell cells[1] = {plain_cell("emit.regex", "anthropic", true, CS_VERDICT_UNCHECKED)};
  cells[0].cases = 0;
  cs_request canon = {.op = CS_OP_CANONICALIZE}, emit = {.op = CS_OP_EMIT, .target = CS_PROV_MISTRAL};
  cs_impl_result dead = {.name = "dead",
                         .cells = cells,
                         .ncells = 1,
                         .faults = {0, 0, 40, 0, 0},
                         .given_up = 1u << cs_request_kind(&canon) | 1u << cs_request_kind(&emit),
                         .given_up_after = 20};
  cs_report r = {.impls = &dead, .nimpls = 1};
  const char *line =
      "not sent any more after 20 faults and no answer, 200 in all, or restarts that failed: canonicalize, emit "
      "mistral (their properties";
  char path[64];
  char *doc = write_tmp(&r, cs_report_json, path, ".json");
  cJSON *root = cJSON_Parse(doc);
  cr_assert_not_null(root, "%s", doc);
  cJSON *list = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "implementations"), 0), "given_up");
  cr_assert_eq(cJSON_GetArraySize(list), 2, "%s", doc);
  cr_assert_str_eq(cJSON_GetArrayItem(list, 0)->valuestring, "canonicalize");
  cr_assert_str_eq(cJSON_GetArrayItem(list, 1)->valuestring, "emit mistral");
  cJSON_Delete(root);
  free(doc);
  unlink(path);
  assert_text_formats_say(&r, line, true);
}

/* ---- the schema document lists every key the writer emits ---- */

static void assert_keys_documented(const cJSON *node, const char *doc, const char *path) {
  for (const cJSON *c = node ? node->child : NULL; c; c = c->next) {
    if (c->string) {
      char code[96], quoted[96], item[128];
      snprintf(code, sizeof code, "`%s`", c->string);
      snprintf(quoted, sizeof quoted, "\"%s\"", c->string);
      snprintf(item, sizeof item, "[].%s`", c->string);
      cr_assert(strstr(doc, code) || strstr(doc, quoted) || strstr(doc, item),
                "key %s.%s is not in docs/report-schema.md", path, c->string);
    }
    assert_keys_documented(c, doc, c->string ? c->string : path);
  }
}

Test(json, every_key_is_documented) {
  FILE *df = fopen("docs/report-schema.md", "r");
  if (!df)
    cr_skip_test("run from the repository root to check docs/report-schema.md");
  static char schema_doc[65536];
  size_t n = fread(schema_doc, 1, sizeof schema_doc - 1, df);
  schema_doc[n] = 0;
  fclose(df);
  cr_assert_not_null(strstr(schema_doc, "callsign-report/1"));
  fixture f;
  fixture_init(&f);
  char path[64];
  char *out = write_tmp(&f.r, cs_report_json, path, ".json");
  cJSON *root = cJSON_Parse(out);
  cr_assert_not_null(root);
  assert_keys_documented(root, schema_doc, "");
  cJSON_Delete(root);
  free(out);
  unlink(path);
}

/* The line of docs/report-schema.md that starts with `start` (a table row), or NULL; skips the test
 * when the file is not there (run from elsewhere than the repository root). */
static char *schema_row(const char *start, char *line, size_t size) {
  FILE *df = fopen("docs/report-schema.md", "r");
  if (!df)
    cr_skip_test("run from the repository root to check docs/report-schema.md");
  char *found = NULL;
  while (!found && fgets(line, (int)size, df))
    if (!strncmp(line, start, strlen(start)))
      found = line;
  fclose(df);
  return found;
}

/* summary.failing_run counts what fails the run: a required failure and a fixed entry (the list
 * must shrink), not a recommended failure without --strict. JUnit counts the same cells as
 * failures, the recommended failure as skipped, and the schema says so. */
Test(json, failing_run_counts_fixed_cells_and_junit_agrees) {
  for (int strict = 0; strict < 2; strict++) {
    cs_cell cells[4] = {plain_cell("emit.regex", "anthropic", true, CS_VERDICT_PASS),
                        plain_cell("emit.unique", "mistral", true, CS_VERDICT_FIXED),
                        plain_cell("emit.pair", "anthropic", true, CS_VERDICT_FAIL),
                        plain_cell("normalize.idempotent", "anthropic", false, CS_VERDICT_FAIL)};
    cs_impl_result impl = {.name = "x", .cells = cells, .ncells = 4};
    cs_report r = {.impls = &impl, .nimpls = 1, .strict = strict};
    size_t want = strict ? 3 : 2;
    char path[64];
    char *doc = write_tmp(&r, cs_report_json, path, ".json");
    cJSON *root = cJSON_Parse(doc);
    cr_assert_not_null(root, "%s", doc);
    cJSON *sum = cJSON_GetObjectItem(root, "summary");
    cr_assert_eq((size_t)cJSON_GetObjectItem(sum, "failing_run")->valueint, want, "strict %d: %s", strict, doc);
    size_t marked = 0;
    cJSON *impl0 = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "implementations"), 0);
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(impl0, "cells")) {
      marked += cJSON_IsTrue(cJSON_GetObjectItem(c, "fails_run"));
    }
    cr_assert_eq(marked, want, "failing_run is the number of cells whose fails_run is true");
    cJSON_Delete(root);
    free(doc);
    unlink(path);

    doc = write_tmp(&r, cs_report_junit, path, ".xml");
    char want_suite[96];
    snprintf(want_suite, sizeof want_suite, "tests=\"4\" failures=\"%zu\" errors=\"0\" skipped=\"%d\"", want,
             strict ? 0 : 1);
    cr_assert_eq(count_of(doc, want_suite), 2u, "the suite and the whole agree with failing_run: %s", doc);
    free(doc);
    unlink(path);
  }
  char line[1024];
  const char *row = schema_row("| `failing_run` |", line, sizeof line);
  cr_assert_not_null(row, "docs/report-schema.md has no failing_run row");
  cr_assert_not_null(strstr(row, "`fixed`"), "the schema must say fixed cells count: %s", row);
}

/* A --min-coverage below 0.01% is still a threshold: JSON keeps the exact number (0 would mean
 * none), and the text formats show digits enough that it does not read as 0.00%. */
Test(output, min_coverage_keeps_its_precision) {
  cs_buf b = {0};
  const struct {
    double share;
    const char *text;
  } pct[] = {{0.2, "20.00%"}, {0.123, "12.30%"}, {0, "0.00%"}, {0.00005, "0.0050%"}, {1e-7, "0.000010%"}};
  for (size_t i = 0; i < sizeof pct / sizeof *pct; i++) {
    cs_buf_clear(&b);
    cs_percent(&b, pct[i].share);
    cr_assert_str_eq(b.data, pct[i].text);
  }
  cs_buf_clear(&b);
  cs_percent(&b, 1e-300);
  cr_assert_str_eq(b.data, "1e-298%", "no run of zeros that reads as none");
  cs_buf_free(&b);

  cs_stat stats[2] = {{"id.empty", "an empty ID", 1}, {"id.huge", "a huge ID", 0}};
  cs_report r = {.stats = stats, .nstats = 2, .stat_cases = 3, .min_coverage = 1e-7};
  char path[64];
  char *doc = write_tmp(&r, cs_report_json, path, ".json");
  cr_assert_eq(run_cmd("python3 -m json.tool %s > /dev/null", path), 0, "python3 rejected:\n%s", doc);
  cJSON *root = cJSON_Parse(doc);
  cr_assert_not_null(root, "%s", doc);
  cJSON *st = cJSON_GetObjectItem(root, "statistics");
  cr_assert(cJSON_GetObjectItem(st, "min_coverage")->valuedouble == 1e-7, "%s", doc);
  cJSON *labels = cJSON_GetObjectItem(st, "labels");
  cr_assert(cJSON_GetObjectItem(cJSON_GetArrayItem(labels, 0), "share")->valuedouble == 1.0 / 3, "exact: %s", doc);
  cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetArrayItem(labels, 0), "below_min_coverage")));
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(labels, 1), "below_min_coverage")));
  cr_assert_eq(cJSON_GetObjectItem(root, "exit_status")->valueint, 1);
  cJSON_Delete(root);
  free(doc);
  unlink(path);

  doc = write_tmp(&r, cs_report_junit, path, ".xml");
  cr_assert_eq(run_cmd("xmllint --noout %s", path), 0, "%s", doc);
  cr_assert_not_null(strstr(doc, "message=\"1 pathology class occurred in fewer than 0.000010% of cases\""), "%s", doc);
  cr_assert_null(strstr(doc, "0.00%"), "%s", doc);
  free(doc);
  unlink(path);
}

/* --min-coverage the only reason the run fails: Markdown and HTML say so, with the threshold and
 * each label below it, and say nothing of it when no label is below. */
Test(output, markdown_and_html_name_the_labels_below_min_coverage) {
  cs_cell cells[1] = {plain_cell("emit.regex", "anthropic", true, CS_VERDICT_PASS)};
  cs_impl_result impl = {.name = "x", .cells = cells, .ncells = 1, .cases = 100};
  cs_stat stats[4] = {{"id.missing", "null ID", 21},
                      {"id.empty", "empty-string ID", 17},
                      {"id.huge", "huge", 0},
                      {"id.<script>" HOSTILE, "hostile", 1}};
  cs_report r = {.impls = &impl, .nimpls = 1, .stats = stats, .nstats = 4, .stat_cases = 100, .min_coverage = 0.2};
  cr_assert_eq(cs_report_exit_status(&r), 1);
  const char *line = "3 pathology classes occurred in fewer than 20.00% of cases";
  char path[64];
  char *doc = write_tmp(&r, cs_report_markdown, path, ".md");
  cr_assert_not_null(strstr(doc, line), "%s", doc);
  cr_assert_not_null(strstr(doc, "min\\-coverage"), "%s", doc);
  cr_assert_not_null(strstr(doc, "> - **id.empty**: 17 of 100 cases (17.00%)\n"), "%s", doc);
  cr_assert_not_null(strstr(doc, "> - **id.huge**: 0 of 100 cases (0.00%)\n"), "%s", doc);
  cr_assert_null(strstr(doc, "id.missing"), "a label above the threshold is not listed: %s", doc);
  cr_assert_null(strstr(doc, "<script>"), "%s", doc);
  assert_clean_bytes(doc, false);
  free(doc);
  unlink(path);

  doc = write_tmp(&r, cs_report_html, path, ".html");
  cr_assert_eq(run_cmd("xmllint --noout %s", path), 0, "%s", doc);
  cr_assert_not_null(strstr(doc, line), "%s", doc);
  cr_assert_not_null(strstr(doc, "<li><code>id.empty</code>: 17 of 100 cases (17.00%)</li>"), "%s", doc);
  cr_assert_not_null(strstr(doc, "<li><code>id.huge</code>: 0 of 100 cases (0.00%)</li>"), "%s", doc);
  cr_assert_null(strstr(doc, "<li><code>id.missing"), "%s", doc);
  cr_assert_not_null(strstr(doc, "<th>--min-coverage 20.00%</th>"), "%s", doc);
  cr_assert_eq(count_of(doc, "<td class=\"below\">below</td>"), 3u, "%s", doc);
  cr_assert_null(strstr(doc, "<script"), "%s", doc);
  assert_clean_bytes(doc, false);
  free(doc);
  unlink(path);

  r.min_coverage = 0;
  writer_fn fns[] = {cs_report_markdown, cs_report_html};
  for (size_t k = 0; k < 2; k++) {
    doc = write_tmp(&r, fns[k], path, k ? ".html" : ".md");
    cr_assert_null(strstr(doc, "pathology class"), "no label below: %s", doc);
    free(doc);
    unlink(path);
  }
}

/* An input the run could not use (the vectors file) makes the run incomplete: every format says
 * exit status 2 and why, and none of them may read as a pass. */
Test(output, an_input_error_is_exit_2_in_every_format) {
  cs_cell cells[1] = {plain_cell("emit.regex", "anthropic", true, CS_VERDICT_PASS)};
  cs_impl_result impl = {.name = "x", .cells = cells, .ncells = 1, .cases = 10};
  cs_report r = {.impls = &impl, .nimpls = 1, .input_error = "v.json: cannot open: <gone> & \x01"};
  cr_assert_eq(cs_report_exit_status(&r), 2);
  cs_report failing = r;
  cs_cell failed[1] = {plain_cell("emit.regex", "anthropic", true, CS_VERDICT_FAIL)};
  cs_impl_result failed_impl = {.name = "x", .cells = failed, .ncells = 1, .cases = 10};
  failing.impls = &failed_impl;
  cr_assert_eq(cs_report_exit_status(&failing), 2, "an incomplete run is not judged on what it did check");
  failed_impl.could_not_run = true;
  cr_assert_eq(cs_report_exit_status(&failing), 3, "an implementation that could not run still wins");

  char path[64];
  char *doc = write_tmp(&r, cs_report_json, path, ".json");
  cJSON *root = cJSON_Parse(doc);
  cr_assert_not_null(root, "%s", doc);
  cr_assert_eq(cJSON_GetObjectItem(root, "exit_status")->valueint, 2);
  cr_assert_str_eq(cJSON_GetObjectItem(root, "input_error")->valuestring, "v.json: cannot open: <gone> & \x01");
  cJSON_Delete(root);
  free(doc);
  unlink(path);

  doc = write_tmp(&r, cs_report_junit, path, ".xml");
  cr_assert_eq(run_cmd("xmllint --noout %s", path), 0, "%s", doc);
  cr_assert_not_null(strstr(doc, "<testsuites name=\"callsign\" tests=\"2\" failures=\"0\" errors=\"1\""), "%s", doc);
  cr_assert_not_null(strstr(doc, "<error message=\"v.json: cannot open: &lt;gone&gt; &amp; \\u0001\"/>"), "%s", doc);
  free(doc);
  unlink(path);

  doc = write_tmp(&r, cs_report_markdown, path, ".md");
  cr_assert_not_null(strstr(doc, "## callsign: \xE2\x9B\x94 an input could not be used"), "%s", doc);
  cr_assert_not_null(strstr(doc, "**Exit status 2**"), "%s", doc);
  cr_assert_not_null(strstr(doc, "cannot open"), "%s", doc);
  cr_assert_null(strstr(doc, "passed\n"), "%s", doc);
  assert_clean_bytes(doc, false);
  free(doc);
  unlink(path);

  doc = write_tmp(&r, cs_report_html, path, ".html");
  cr_assert_eq(run_cmd("xmllint --noout %s", path), 0, "%s", doc);
  cr_assert_not_null(strstr(doc, "<strong>An input could not be used</strong> (exit status 2)"), "%s", doc);
  cr_assert_not_null(strstr(doc, "v.json: cannot open: &lt;gone&gt; &amp; "), "%s", doc);
  assert_clean_bytes(doc, false);
  free(doc);
  unlink(path);

  r.input_error = NULL;
  doc = write_tmp(&r, cs_report_json, path, ".json");
  cr_assert_not_null(strstr(doc, "\"input_error\": null"), "%s", doc);
  free(doc);
  unlink(path);
}

/* Asserts that report `w` of `r` holds each of the NULL-ended `needles`. */
static void report_holds(const cs_report *r, writer_fn w, const char *suffix, const char *const *needles) {
  char path[64];
  char *doc = write_tmp(r, w, path, suffix);
  for (; *needles; needles++)
    cr_assert_not_null(strstr(doc, *needles), "%s lacks '%s': %s", suffix, *needles, doc);
  if (!strcmp(suffix, ".xml"))
    cr_assert_eq(run_cmd("xmllint --noout %s", path), 0, "%s", doc);
  free(doc);
  unlink(path);
}

/* An output of the run that could not be written (stdout, another report) is exit status 2 in the
 * reports that were written, and they say which kind of failure it was. */
Test(output, an_output_error_is_exit_2_and_named) {
  cs_cell cells[1] = {plain_cell("emit.regex", "anthropic", true, CS_VERDICT_PASS)};
  cs_impl_result impl = {.name = "x", .cells = cells, .ncells = 1, .cases = 10};
  cs_report r = {.impls = &impl, .nimpls = 1, .output_error = true};
  cr_assert_eq(cs_report_exit_status(&r), 2);
  impl.could_not_run = true;
  cr_assert_eq(cs_report_exit_status(&r), 3, "an implementation that could not run still wins");
  impl.could_not_run = false;
  report_holds(&r, cs_report_json, ".json",
               (const char *const[]){"\"exit_status\": 2", "\"input_error\": null", "\"output_error\": true", NULL});
  report_holds(&r, cs_report_markdown, ".md",
               (const char *const[]){"## callsign: \xE2\x9B\x94 an output could not be written", NULL});
  report_holds(&r, cs_report_html, ".html",
               (const char *const[]){"<strong>An output could not be written</strong> (exit status 2)", NULL});
  report_holds(&r, cs_report_junit, ".xml",
               (const char *const[]){"<testsuites name=\"callsign\" tests=\"2\" failures=\"0\" errors=\"1\"",
                                     "<testcase classname=\"output\" name=\"output\">", NULL});
}
