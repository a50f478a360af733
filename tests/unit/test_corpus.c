/* tests/unit/test_corpus.c: the regression corpus: token cases and literal history cases are
 * saved, loaded and told apart; a literal case keeps its history byte for byte; a case saved again
 * keeps its file; a malformed file is skipped with an error naming it, and the others still load;
 * a case file is read once (a FIFO works) and a member of the wrong type is named; a token that
 * no longer makes its saved history gives way to that history. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/history_json.h"
#include "generators/transforms.h"
#include "harness/corpus.h"
#include "harness/property.h"

static char dir[64];

static void make_dir(void) {
  snprintf(dir, sizeof dir, "/tmp/cs-corpus-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

TestSuite(corpus, .init = make_dir, .fini = remove_dir);

static const char *pair_json =
    "{\"turns\":[{\"role\":\"assistant\",\"provider\":\"openai_chat\",\"turn_key\":\"t0\",\"calls\":["
    "{\"id\":\"a|1\",\"name\":\"read_file\",\"args\":{}},{\"id\":\"a|2\",\"name\":\"read_file\",\"args\":{}}]},"
    "{\"role\":\"tool\",\"turn_key\":\"t1\",\"results\":[{\"call_id\":\"a|1\",\"name\":\"read_file\",\"content\":\"x\"}"
    ","
    "{\"call_id\":\"a|2\",\"name\":\"read_file\",\"content\":\"y\"}]}]}";

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
}

/* What cs_corpus_read_file gives for one file. */
typedef struct {
  int kind;
  cs_err err;
  cs_arena a;
  cs_history h;
  cs_literal_twin twin;
  uint64_t *v;
  size_t n;
  uint32_t bound;
  char prop[64], tgt[32];
} case_read;

static void read_case(const char *path, case_read *r) {
  memset(r, 0, sizeof *r);
  r->kind = cs_corpus_read_file(path, &r->a, &r->h, &r->twin, &r->v, &r->n, &r->bound, r->prop, sizeof r->prop, r->tgt,
                                sizeof r->tgt, &r->err);
}

static void case_read_free(case_read *r) {
  free(r->v);
  cs_arena_free(&r->a);
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "%s", path);
  static char text[8192];
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = 0;
  fclose(f);
  return text;
}

/* The history `v` makes, as a case file saves it (heap): a token case's saved history is its own. */
static char *made_json(const uint64_t *v, size_t n) {
  cs_choices c = {0};
  cs_arena a = {0};
  cs_gen_case g;
  cs_choices_replay(&c, v, n);
  cs_gen_history(&c, NULL, &a, &g);
  cs_buf b = {0};
  cs_history_write(&b, &g.h);
  cs_arena_free(&a);
  cs_choices_free(&c);
  return b.data;
}

/* The case files of `impl`, counted. */
static int count_files(const char *impl) {
  char cmd[200];
  snprintf(cmd, sizeof cmd, "ls %s/%s/*.json 2>/dev/null | wc -l", dir, impl);
  FILE *ls = popen(cmd, "r");
  cr_assert_not_null(ls);
  int n = -1;
  cr_assert_eq(fscanf(ls, "%d", &n), 1);
  pclose(ls);
  return n;
}

/* The only case file of `impl`, into path. */
static void only_file(const char *impl, char *path, size_t cap) {
  char cmd[200];
  cr_assert_eq(count_files(impl), 1);
  snprintf(cmd, sizeof cmd, "ls %s/%s/*.json", dir, impl);
  FILE *ls = popen(cmd, "r");
  cr_assert_not_null(ls);
  cr_assert_not_null(fgets(path, (int)cap, ls));
  pclose(ls);
  path[strcspn(path, "\n")] = 0;
}

Test(corpus, literal_case_round_trip) {
  cs_arena a = {0};
  cs_history h;
  cs_err err = {{0}};
  cr_assert_eq(cs_history_parse(cs_str_c(pair_json), NULL, &a, &h, &err), 0, "%s", err.msg);
  char *path = NULL, *again = NULL;
  const cs_literal_twin pair = {true, 0, 1};
  cr_assert_eq(cs_corpus_save_literal(dir, "some impl", "emit.unique", "mistral", "collision", &h, &pair, &path, &err),
               0, "%s", err.msg);
  cr_assert(strstr(path, "/some_impl-") && strstr(path, "/emit.unique@mistral-") != NULL, "%s", path);
  /* Saving the same history again writes the same file. */
  cr_assert_eq(cs_corpus_save_literal(dir, "some impl", "emit.unique", "mistral", "collision", &h, &pair, &again, &err),
               0);
  cr_assert_str_eq(path, again);
  free(again);

  cs_corpus c;
  cr_assert_eq(cs_corpus_load(dir, "some impl", &c, &err), 0, "%s", err.msg);
  cr_assert_eq(c.n, 0);
  cr_assert_eq(c.nlit, 1);
  cr_assert(c.lit_twin[0].set && c.lit_twin[0].from == 0 && c.lit_twin[0].to == 1);
  cs_buf x = {0}, y = {0};
  cs_history_write(&x, &h);
  cs_history_write(&y, c.lit[0]);
  cr_assert_str_eq(x.data, y.data);
  cs_buf_free(&x);
  cs_buf_free(&y);
  cs_corpus_free(&c);

  cs_arena b = {0};
  cs_history lit;
  char prop[64], tgt[32];
  uint64_t *v = (uint64_t *)1;
  size_t n = 5;
  cs_literal_twin twin = {0};
  uint32_t bound;
  cr_assert_eq(cs_corpus_read_file(path, &b, &lit, &twin, &v, &n, &bound, prop, sizeof prop, tgt, sizeof tgt, &err), 1,
               "%s", err.msg);
  cr_assert(twin.set && twin.from == 0 && twin.to == 1);
  cr_assert(strstr(slurp(path), "\"planted_twin\": [0, 1]") != NULL, "the file says which call collided");
  cr_assert_str_eq(prop, "emit.unique");
  cr_assert_str_eq(tgt, "mistral");
  cr_assert_eq(cs_history_ncalls(&lit), 2);
  cr_assert_null(v);
  cr_assert_eq(n, 0);
  free(path);
  cs_arena_free(&a);
  cs_arena_free(&b);
}

/* A literal case says which call collided with which; a file from before the member is a collide
 * pair when it has two calls, and a hand-written case of other calls plants nothing. */
Test(corpus, planted_twin_is_read_from_the_file) {
  static const struct {
    const char *member; /* NULL: absent */
    bool history3;      /* three calls instead of two */
    int kind;
    bool set;
    uint32_t from, to;
  } rows[] = {
      {NULL, false, 1, true, 0, 1},    {NULL, true, 1, false, 0, 0},        {"null", false, 1, false, 0, 0},
      {"[0, 2]", true, 1, true, 0, 2}, {"[1, 0]", false, -1, false, 0, 0},  {"[0, 2]", false, -1, false, 0, 0},
      {"[0]", false, -1, false, 0, 0}, {"\"0,1\"", false, -1, false, 0, 0}, {"[0.5, 1]", false, -1, false, 0, 0},
  };
  const char *call = "{\"id\":\"c%d\",\"name\":\"f\",\"args\":{}}";
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    char calls[256] = "", one[64], path[512], text[1024];
    for (int k = 0; k < (rows[i].history3 ? 3 : 2); k++) {
      snprintf(one, sizeof one, call, k);
      if (k)
        strcat(calls, ",");
      strcat(calls, one);
    }
    snprintf(path, sizeof path, "%s/twin%zu.json", dir, i);
    snprintf(
        text, sizeof text,
        "{\"impl\":\"x\",\"property\":\"emit.unique\",\"target\":\"mistral\",%s%s%s\"history\":{\"turns\":[{\"role\":"
        "\"assistant\",\"provider\":\"openai_chat\",\"calls\":[%s]}]}}",
        rows[i].member ? "\"planted_twin\":" : "", rows[i].member ? rows[i].member : "", rows[i].member ? "," : "",
        calls);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    case_read r;
    read_case(path, &r);
    cr_assert_eq(r.kind, rows[i].kind, "row %zu: %s", i, r.err.msg);
    if (r.kind < 0)
      cr_assert(strstr(r.err.msg, "planted_twin"), "row %zu: %s", i, r.err.msg);
    else
      cr_assert(r.twin.set == rows[i].set && r.twin.from == rows[i].from && r.twin.to == rows[i].to, "row %zu", i);
    case_read_free(&r);
  }
}

/* A token regenerates its case under the ID bound it was found under: a case found under another
 * bound than the default says which, replay reads it back, and the corpus (run under the default)
 * skips it with a reason rather than replay another case. */
Test(corpus, a_case_found_under_another_bound_records_it) {
  cs_err err = {{0}};
  uint64_t choices[] = {1, 0, 1};
  /* No history: this token makes another than pair_json, and the saved history would be replayed. */
  cs_outcome oc = {.prop = cs_property_find("emit.unique"), .choices = choices, .nchoices = 3};
  cr_assert_eq(cs_corpus_save(dir, "bound", &oc, "anthropic", 10, &err), 0, "%s", err.msg);
  char pattern[200], path[300] = "";
  snprintf(pattern, sizeof pattern, "ls %s/bound/*.json", dir);
  FILE *ls = popen(pattern, "r");
  cr_assert_not_null(ls);
  cr_assert_not_null(fgets(path, sizeof path, ls));
  pclose(ls);
  path[strcspn(path, "\n")] = 0;
  case_read r;
  read_case(path, &r);
  cr_assert_eq(r.kind, 0, "%s", r.err.msg);
  cr_assert_eq(r.bound, 10);
  case_read_free(&r);
  cs_corpus corpus;
  cr_assert_eq(cs_corpus_load(dir, "bound", &corpus, &err), -1, "a case of another bound loaded");
  cr_assert(strstr(err.msg, "found under --max-id-len 10") != NULL, "%s", err.msg);
  cr_assert_eq(corpus.n, 0);
  cs_corpus_free(&corpus);
  /* the default bound is not written, and a bad one is refused */
  cr_assert_eq(cs_corpus_save(dir, "unbound", &oc, "anthropic", CS_GEN_DEFAULT_MAX_ID_LEN, &err), 0, "%s", err.msg);
  snprintf(pattern, sizeof pattern, "! grep -q max_id_len %s/unbound/*.json", dir);
  cr_assert_eq(system(pattern), 0, "the default bound was written");
  write_file(path, "{\"property\":\"emit.unique\",\"target\":\"anthropic\",\"token\":\"cs1.AQAB\",\"max_id_len\":0}");
  read_case(path, &r);
  cr_assert_eq(r.kind, -1);
  cr_assert(strstr(r.err.msg, "\"max_id_len\" is not a whole number from 1 to") != NULL, "%s", r.err.msg);
  case_read_free(&r);
}

/* A case found again is the same case: its file keeps the message it was first saved with (an
 * implementation with random IDs words each failure anew), so a committed corpus stays as it is. */
Test(corpus, a_case_saved_again_keeps_its_file) {
  cs_err err = {{0}};
  uint64_t choices[] = {1, 0, 1};
  cs_outcome oc = {.prop = cs_property_find("emit.unique"), .choices = choices, .nchoices = 3};
  snprintf(oc.message, sizeof oc.message, "calls 0 and 1 get the same wire ID \"a1b2\"");
  oc.history_json = made_json(choices, 3);
  cr_assert_eq(cs_corpus_save(dir, "rand", &oc, "anthropic", 0, &err), 0, "%s", err.msg);
  char pattern[200], path[300] = "";
  snprintf(pattern, sizeof pattern, "ls %s/rand/*.json", dir);
  FILE *ls = popen(pattern, "r");
  cr_assert_not_null(ls);
  cr_assert_not_null(fgets(path, sizeof path, ls));
  pclose(ls);
  path[strcspn(path, "\n")] = 0;
  cr_assert(strstr(slurp(path), "a1b2") != NULL);
  snprintf(oc.message, sizeof oc.message, "calls 0 and 1 get the same wire ID \"c3d4\"");
  cr_assert_eq(cs_corpus_save(dir, "rand", &oc, "anthropic", 0, &err), 0, "%s", err.msg);
  cr_assert(strstr(slurp(path), "a1b2") != NULL, "the file was rewritten: %s", slurp(path));
  /* a different case under the same property and target is a file of its own */
  uint64_t other[] = {2, 0, 1};
  oc.choices = other;
  free(oc.history_json);
  oc.history_json = made_json(other, 3);
  cr_assert_eq(cs_corpus_save(dir, "rand", &oc, "anthropic", 0, &err), 0, "%s", err.msg);
  free(oc.history_json);
  snprintf(pattern, sizeof pattern, "test $(ls %s/rand/*.json | wc -l) -eq 2", dir);
  cr_assert_eq(system(pattern), 0);
  /* a literal case found again keeps its file too */
  cs_arena a = {0};
  cs_history h;
  cr_assert_eq(cs_history_parse(cs_str_c(pair_json), NULL, &a, &h, &err), 0, "%s", err.msg);
  char *lit = NULL;
  cr_assert_eq(cs_corpus_save_literal(dir, "rand", "emit.unique", "mistral", "first", &h, NULL, NULL, &err), 0);
  cr_assert_eq(cs_corpus_save_literal(dir, "rand", "emit.unique", "mistral", "second", &h, NULL, &lit, &err), 0);
  cr_assert(strstr(slurp(lit), "\"first\"") != NULL, "%s", slurp(lit));
  free(lit);
  cs_arena_free(&a);
}

Test(corpus, token_and_literal_cases_load_side_by_side) {
  cs_err err = {{0}};
  char sub[256], path[512];
  snprintf(sub, sizeof sub, "%s/x", dir);
  cr_assert_eq(mkdir(sub, 0777), 0);
  snprintf(path, sizeof path, "%s/a.json", sub);
  write_file(path, "{\"property\":\"emit.unique\",\"target\":\"anthropic\",\"token\":\"cs1.AQAB\"}");
  snprintf(path, sizeof path, "%s/b.json", sub);
  char body[2048];
  snprintf(body, sizeof body, "{\"property\":\"emit.unique\",\"target\":\"anthropic\",\"history\":%s}", pair_json);
  write_file(path, body);
  cs_corpus c;
  cr_assert_eq(cs_corpus_load(dir, "x", &c, &err), 0, "%s", err.msg);
  cr_assert_eq(c.n, 1);
  cr_assert_eq(c.len[0], 3);
  cr_assert_eq(c.nlit, 1);
  case_read r;
  snprintf(path, sizeof path, "%s/a.json", sub);
  read_case(path, &r);
  cr_assert_eq(r.kind, 0, "%s", r.err.msg);
  cr_assert_eq(r.n, 3);
  cr_assert_str_eq(r.prop, "emit.unique");
  cr_assert_str_eq(r.tgt, "anthropic");
  case_read_free(&r);
  cs_corpus_free(&c);
}

Test(corpus, malformed_literal_history_names_the_file) {
  cs_err err = {{0}};
  char sub[256], path[512];
  snprintf(sub, sizeof sub, "%s/y", dir);
  cr_assert_eq(mkdir(sub, 0777), 0);
  snprintf(path, sizeof path, "%s/bad.json", sub);
  write_file(path, "{\"history\":{\"turns\":[{\"role\":\"assistant\",\"calls\":[{\"id\":5,\"name\":\"x\"}]}]}}");
  cs_corpus c;
  cr_assert_eq(cs_corpus_load(dir, "y", &c, &err), -1);
  cr_assert(strstr(err.msg, "bad.json") != NULL, "%s", err.msg);
  cr_assert(strstr(err.msg, "calls[0].id") != NULL, "%s", err.msg);
  cs_corpus_free(&c);
  snprintf(path, sizeof path, "%s/none.json", sub);
  write_file(path, "{\"property\":\"emit.unique\"}");
  case_read r;
  read_case(path, &r);
  cr_assert_eq(r.kind, -1);
  cr_assert(strstr(r.err.msg, "no \"token\"") != NULL, "%s", r.err.msg);
  case_read_free(&r);
}

/* A case file of the wrong shape is refused with what is wrong with it: {"token":5,"history":[]}
 * was said to have "no token and no history". Each message names the file, in one line. A null
 * token is no token (a fuzz summary's literal finding has one). */
Test(corpus, a_member_of_the_wrong_type_is_named) {
  const struct {
    const char *body, *why;
  } c[] = {
      {"{\"token\":null,\"history\":[]}", "\"history\" is not an object"},
      {"{\"token\":null}", "no \"token\" and no \"history\""},
      {"{\"token\":5}", "\"token\" is not a string"},
      {"{\"token\":{},\"history\":null}", "\"token\" is not a string"},
      {"{\"history\":null}", "\"history\" is not an object"},
      {"{\"history\":[]}", "\"history\" is not an object"},
      {"{\"history\":\"{}\"}", "\"history\" is not an object"},
      {"{\"property\":\"emit.unique\"}", "no \"token\" and no \"history\""},
      {"[]", "not a JSON object"},
      {"{\"token\":\"cs1.AB\"}", "not a canonical base64url ending"},
      {"{\"history\":{\"turns\":[]},\"target\":5}", "\"target\" is not a string"},
  };
  char path[512];
  snprintf(path, sizeof path, "%s/case.json", dir);
  for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
    write_file(path, c[i].body);
    case_read r;
    read_case(path, &r);
    cr_assert_eq(r.kind, -1, "%s taken", c[i].body);
    cr_assert(strstr(r.err.msg, c[i].why) && strstr(r.err.msg, "case.json: ") && !strchr(r.err.msg, '\n'), "%s: %s",
              c[i].body, r.err.msg);
    cr_assert_null(r.v);
    case_read_free(&r);
  }
}

/* A finding copied from a fuzz summary ("token": null beside its history) replays as a literal case. */
Test(corpus, a_null_token_is_a_literal_case) {
  char path[512];
  snprintf(path, sizeof path, "%s/case.json", dir);
  write_file(path, "{\"property\":\"emit.pair\",\"target\":\"mistral\",\"token\":null,"
                   "\"history\":{\"turns\":[{\"role\":\"user\",\"text\":\"hi\"}]}}");
  case_read r;
  read_case(path, &r);
  cr_assert_eq(r.kind, 1, "%s", r.err.msg);
  cr_assert_eq(r.h.nturns, 1);
  cr_assert_str_eq(r.prop, "emit.pair");
  cr_assert_str_eq(r.tgt, "mistral");
  cr_assert_null(r.v);
  case_read_free(&r);
}

/* A case is read once: a FIFO (or a pipe on stdin) has its bytes only one time, and a second read
 * found it empty ("JSON ends early") or waited for a writer that never came. */
Test(corpus, a_case_is_read_from_a_fifo_once) {
  char path[512];
  snprintf(path, sizeof path, "%s/case.fifo", dir);
  cr_assert_eq(mkfifo(path, 0600), 0);
  pid_t writer = fork();
  cr_assert_neq(writer, -1);
  if (writer == 0) {
    alarm(30); /* a reader that never comes must not leave the writer behind */
    FILE *f = fopen(path, "w");
    if (f)
      fputs("{\"token\":\"cs1.AQAB\",\"property\":\"emit.unique\",\"target\":\"anthropic\"}", f);
    _exit(f && fclose(f) == 0 ? 0 : 1);
  }
  case_read r;
  read_case(path, &r);
  int status = 0;
  waitpid(writer, &status, 0);
  cr_assert_eq(r.kind, 0, "%s", r.err.msg);
  cr_assert_eq(r.n, 3);
  cr_assert_str_eq(r.prop, "emit.unique");
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  case_read_free(&r);
}

/* A bad file is skipped, not the end of the load: the cases sorted after it still replay. */
Test(corpus, a_bad_file_skips_only_itself) {
  cs_err err = {{0}};
  char sub[256], path[512];
  snprintf(sub, sizeof sub, "%s/z", dir);
  cr_assert_eq(mkdir(sub, 0777), 0);
  snprintf(path, sizeof path, "%s/0-bad.json", sub);
  write_file(path, "garbage");
  snprintf(path, sizeof path, "%s/1-bad.json", sub);
  write_file(path, "{\"token\":\"zz\"}");
  snprintf(path, sizeof path, "%s/2-bad.json", sub); /* refused by replay, so skipped here too */
  write_file(path, "{\"property\":\"emit.nope\",\"target\":\"anthropic\",\"token\":\"cs1.AQAB\"}");
  snprintf(path, sizeof path, "%s/a.json", sub);
  write_file(path, "{\"property\":\"emit.unique\",\"target\":\"anthropic\",\"token\":\"cs1.AQAB\"}");
  snprintf(path, sizeof path, "%s/b.json", sub);
  char body[2048];
  snprintf(body, sizeof body, "{\"property\":\"emit.unique\",\"target\":\"anthropic\",\"history\":%s}", pair_json);
  write_file(path, body);
  cs_corpus c;
  cr_assert_eq(cs_corpus_load(dir, "z", &c, &err), -1);
  cr_assert_eq(c.n, 1);
  cr_assert_eq(c.nlit, 1);
  cr_assert(strstr(err.msg, "0-bad.json") != NULL, "%s", err.msg);
  cr_assert(strstr(err.msg, "(corpus case skipped, and 2 more bad case files)") != NULL, "%s", err.msg);
  cs_corpus_free(&c);
}

/* An implementation names its own directory: the name cannot lead out of the corpus. */
Test(corpus, implementation_names_stay_inside_the_corpus) {
  const struct {
    const char *name, *dir; /* dir: the whole directory, or its start before "-" and 8 hex digits */
    bool changed;
  } c[] = {{"..", "__", true},         {".", "_", true}, {"...", "___", true},
           {"a/../b", "a_.._b", true}, {"", "_", true},  {"ref.v1", "ref.v1", false}};
  for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
    char out[64];
    cs_corpus_dirname(c[i].name, out, sizeof out);
    size_t n = strlen(c[i].dir);
    cr_assert(!strncmp(out, c[i].dir, n), "'%s' -> '%s'", c[i].name, out);
    if (c[i].changed)
      cr_assert(strlen(out) == n + 9 && out[n] == '-' && strspn(out + n + 1, "0123456789abcdef") == 8, "'%s' -> '%s'",
                c[i].name, out);
    else
      cr_assert_str_eq(out, c[i].dir);
  }
}

/* Names that read alike once made safe, or alike up to where they are cut, keep apart. */
Test(corpus, implementation_names_that_read_alike_get_their_own_directories) {
  char long_a[400], long_b[400];
  memset(long_a, 'x', sizeof long_a - 1);
  long_a[sizeof long_a - 1] = 0;
  memcpy(long_b, long_a, sizeof long_b);
  long_b[sizeof long_b - 2] = 'y';
  const char *pairs[][2] = {{"my/echo impl", "my echo impl"}, {"my_echo_impl", "my echo impl"}, {long_a, long_b}};
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
    char a[256], b[256];
    cs_corpus_dirname(pairs[i][0], a, sizeof a);
    cs_corpus_dirname(pairs[i][1], b, sizeof b);
    cr_assert(strcmp(a, b) != 0, "pair %zu: both '%s'", i, a);
    cr_assert(strlen(a) < sizeof a && strlen(b) < sizeof b);
  }
}

Test(corpus, an_empty_implementation_directory_is_an_empty_corpus) {
  char sub[300];
  snprintf(sub, sizeof sub, "%s/empty-impl", dir);
  cr_assert_eq(mkdir(sub, 0700), 0);
  cs_corpus c;
  cs_err err = {{0}};
  cr_assert_eq(cs_corpus_load(dir, "empty-impl", &c, &err), 0, "%s", err.msg);
  cr_assert_eq(c.n + c.nlit, 0);
  cs_corpus_free(&c);
}

/* A missing directory is an empty corpus; one that cannot be read (here a file in its place) is said,
 * and a FIFO named like a case is skipped without being opened (that would wait for a writer). */
Test(corpus, an_unreadable_directory_is_said_and_a_fifo_skipped) {
  cs_corpus c;
  cs_err err = {{0}};
  cr_assert_eq(cs_corpus_load(dir, "nobody", &c, &err), 0, "%s", err.msg);
  cr_assert_eq(c.n + c.nlit, 0);
  cs_corpus_free(&c);
  char path[256];
  snprintf(path, sizeof path, "%s/a-file", dir);
  write_file(path, "x");
  cr_assert_eq(cs_corpus_load(dir, "a-file", &c, &err), -1);
  cr_assert_not_null(strstr(err.msg, "cannot read the corpus directory"), "%s", err.msg);
  cr_assert_not_null(strstr(err.msg, "Not a directory (its cases are not replayed)"), "%s", err.msg);
  cs_corpus_free(&c);
  snprintf(path, sizeof path, "%s/fifo", dir);
  cr_assert_eq(mkdir(path, 0700), 0);
  snprintf(path, sizeof path, "%s/fifo/a.json", dir);
  cr_assert_eq(mkfifo(path, 0600), 0);
  cr_assert_eq(cs_corpus_load(dir, "fifo", &c, &err), -1);
  cr_assert_not_null(strstr(err.msg, "a.json: not a regular file (corpus case skipped)"), "%s", err.msg);
  cs_corpus_free(&c);
}

/* ---- a token that no longer makes its saved history ---- */

/* A case file for the history seed `s` makes (its token, and `saved` as its history; NULL: the
 * history the token makes, with `plant` planted at each twin plan's call when not NULL). Returns
 * whether the case plans twins. */
static bool write_seed_case(const char *path, uint64_t s, const char *property, const cs_history *saved,
                            const char *plant, const char *extra) {
  cs_choices c = {0};
  cs_arena a = {0};
  cs_gen_case g;
  cs_choices_record(&c, s);
  cs_gen_history(&c, NULL, &a, &g);
  cs_history h = saved ? *saved : g.h;
  /* "=from": each twin planted with its from-call's raw ID, as an implementation passing IDs
   * through plants it; then the calls the plantings pair may differ from those of other IDs. */
  for (uint32_t i = 0; !saved && plant && i < g.ntwins; i++)
    h = cs_transform_plant(&h, g.twins[i].to_call,
                           strcmp(plant, "=from") ? cs_str_c(plant) : g.ix.calls[g.twins[i].from_call]->id, &a);
  if (!saved && property && (cs_property_find(property)->needs & CS_NEED_KIMI) && (!plant || !strcmp(plant, "=from"))) {
    cs_history_index ix;
    cs_history_index_build(&h, &a, &ix);
    h = cs_transform_kimi_native(&h, &ix, &a);
  }
  cs_buf tok = {0}, hist = {0}, body = {0};
  cs_choices_token(c.v, c.n, &tok);
  cs_history_write(&hist, &h);
  cs_buf_printf(&body, "{\"property\":\"%s\",\"target\":\"-\",\"token\":\"%s\",%s\"history\":%s}",
                property ? property : "emit.unique", tok.data, extra ? extra : "", hist.data);
  write_file(path, body.data);
  bool twins = g.ntwins > 0;
  cs_buf_free(&tok);
  cs_buf_free(&hist);
  cs_buf_free(&body);
  cs_arena_free(&a);
  cs_choices_free(&c);
  return twins;
}

/* The first seed from `from` whose history plans twins (or plans none). */
static uint64_t seed_with_twins(uint64_t from, bool want) {
  cs_choices c = {0};
  cs_arena a = {0};
  for (uint64_t s = from;; s++) {
    cs_gen_case g;
    cs_arena_reset(&a);
    cs_choices_record(&c, s);
    cs_gen_history(&c, NULL, &a, &g);
    if ((g.ntwins > 0) == want) {
      cs_arena_free(&a);
      cs_choices_free(&c);
      return s;
    }
  }
}

/* The saved history is the case: a token that makes it replays as a token case; one that makes
 * another (the generator changed since the case was saved) loads as a literal case of the saved
 * history, counted and named, and replay reads it the same way. IDs planted as implementation-aware
 * twins are not compared, and a Kimi case may hold the history as Kimi produced it or as generated. */
Test(corpus, a_token_that_makes_another_history_replays_the_saved_one) {
  char sub[256], path[512];
  snprintf(sub, sizeof sub, "%s/x", dir);
  cr_assert_eq(mkdir(sub, 0777), 0);
  uint64_t plain = seed_with_twins(1, false), twinned = seed_with_twins(1, true);
  snprintf(path, sizeof path, "%s/a-same.json", sub);
  write_seed_case(path, plain, NULL, NULL, NULL, NULL);
  snprintf(path, sizeof path, "%s/b-twins.json", sub);
  cr_assert(write_seed_case(path, twinned, NULL, NULL, "planted_by_the_impl", NULL));
  snprintf(path, sizeof path, "%s/c-kimi.json", sub);
  write_seed_case(path, plain, "emit.kimi_roundtrip", NULL, NULL, NULL);
  snprintf(path, sizeof path, "%s/d-kimi-generated.json", sub);
  write_seed_case(path, plain, "emit.kimi_roundtrip", NULL, "unused", NULL);
  /* The history another seed makes, saved with this seed's token. */
  cs_history other;
  cs_arena oa = {0};
  cs_err err = {{0}};
  cr_assert_eq(cs_history_parse(cs_str_c(pair_json), NULL, &oa, &other, &err), 0, "%s", err.msg);
  char stale[512];
  snprintf(stale, sizeof stale, "%s/e-stale.json", sub);
  write_seed_case(stale, plain, NULL, &other, NULL, NULL);

  cs_corpus c;
  cr_assert_eq(cs_corpus_load(dir, "x", &c, &err), 0, "%s", err.msg);
  cr_assert_eq(c.n, 4, "token cases: %zu", c.n);
  cr_assert_eq(c.nlit, 1);
  cr_assert_eq(c.nstale, 1);
  cr_assert_not(c.lit_twin[0].set);
  cr_assert_str_eq(c.lit_path[0], stale);
  cs_buf b = {0};
  cs_history_write(&b, c.lit[0]);
  cs_buf o = {0};
  cs_history_write(&o, &other);
  cr_assert_str_eq(b.data, o.data, "the saved history is the literal case");
  cs_buf_free(&b);
  cs_buf_free(&o);
  cr_assert_eq(cs_corpus_stale(&c, &err), -1);
  cr_assert(strstr(err.msg, "1 corpus case no longer makes the saved history from the token") && strstr(err.msg, stale),
            "%s", err.msg);
  cs_corpus_free(&c);

  case_read r;
  read_case(stale, &r);
  cr_assert_eq(r.kind, 2, "%s", r.err.msg);
  cr_assert_null(r.v);
  cr_assert_eq(r.h.nturns, other.nturns);
  cr_assert_not(r.twin.set);
  case_read_free(&r);
  snprintf(path, sizeof path, "%s/b-twins.json", sub);
  read_case(path, &r);
  cr_assert_eq(r.kind, 0, "%s", r.err.msg);
  case_read_free(&r);
  cs_arena_free(&oa);
}

/* Twins planted with the from-call's own raw ID (an implementation that passes IDs through) pair
 * their results otherwise than other IDs would: still the case its token makes, in either form, and
 * with two twins too. A stale case takes the planted twin its file records; a token file without
 * one has none, however many calls its history has. */
Test(corpus, planted_ids_that_pair_otherwise_are_still_the_case) {
  char sub[256], path[512];
  snprintf(sub, sizeof sub, "%s/x", dir);
  cr_assert_eq(mkdir(sub, 0777), 0);
  unsigned written = 0, two = 0;
  cs_choices c = {0};
  cs_arena a = {0};
  for (uint64_t s = 1; s < 4000 && written < 300; s++) {
    cs_gen_case g;
    cs_arena_reset(&a);
    cs_choices_record(&c, s);
    cs_gen_history(&c, NULL, &a, &g);
    bool from_ids = g.ntwins > 0;
    for (uint32_t i = 0; i < g.ntwins; i++)
      from_ids = from_ids && g.ix.calls[g.twins[i].from_call]->id.ptr;
    if (!from_ids)
      continue;
    two += g.ntwins == 2;
    snprintf(path, sizeof path, "%s/m%04llu.json", sub, (unsigned long long)s);
    write_seed_case(path, s, NULL, NULL, "=from", NULL);
    snprintf(path, sizeof path, "%s/k%04llu.json", sub, (unsigned long long)s);
    write_seed_case(path, s, "emit.kimi_roundtrip", NULL, "=from", NULL);
    written += 2;
  }
  cr_assert_gt(two, 3, "%u cases with two twins", two);
  cs_err err = {{0}};
  cs_corpus co;
  cr_assert_eq(cs_corpus_load(dir, "x", &co, &err), 0, "%s", err.msg);
  cr_assert_eq(co.nstale, 0, "%zu of %u judged stale, the first: %s", co.nstale, written,
               co.first_stale ? co.first_stale : "");
  cr_assert_eq(co.n, written);
  cs_corpus_free(&co);

  /* stale, with and without a recorded twin */
  cs_history other;
  cs_arena oa = {0};
  cr_assert_eq(cs_history_parse(cs_str_c(pair_json), NULL, &oa, &other, &err), 0, "%s", err.msg);
  char sub2[256];
  snprintf(sub2, sizeof sub2, "%s/y", dir);
  cr_assert_eq(mkdir(sub2, 0777), 0);
  snprintf(path, sizeof path, "%s/a.json", sub2);
  write_seed_case(path, 1, NULL, &other, NULL, "\"planted_twin\":[0,1],");
  snprintf(path, sizeof path, "%s/b.json", sub2);
  write_seed_case(path, 1, NULL, &other, NULL, NULL);
  snprintf(path, sizeof path, "%s/c.json", sub2);
  write_seed_case(path, 1, NULL, &other, NULL, "\"planted_twin\":[1,5],");
  cr_assert_eq(cs_corpus_load(dir, "y", &co, &err), -1);
  cr_assert(strstr(err.msg, "c.json: \"planted_twin\" is not null or [from, to]") != NULL, "%s", err.msg);
  cr_assert_eq(co.nlit, 2);
  cr_assert_eq(co.nstale, 2);
  cr_assert(co.lit_twin[0].set && co.lit_twin[0].from == 0 && co.lit_twin[0].to == 1);
  cr_assert_not(co.lit_twin[1].set, "a token file without the member has no planted twin");
  cs_corpus_free(&co);
  case_read r;
  snprintf(path, sizeof path, "%s/a.json", sub2);
  read_case(path, &r);
  cr_assert_eq(r.kind, 2, "%s", r.err.msg);
  cr_assert(r.twin.set && r.twin.to == 1);
  case_read_free(&r);
  cs_arena_free(&oa);
  cs_arena_free(&a);
  cs_choices_free(&c);
}

/* A failure whose history has a planted twin is saved with it, and one without none. */
Test(corpus, a_token_case_is_saved_with_its_planted_twin) {
  cs_err err = {{0}};
  uint64_t choices[] = {1, 0, 1};
  cs_outcome oc = {.prop = cs_property_find("emit.unique"), .choices = choices, .nchoices = 3};
  oc.planted = (cs_literal_twin){true, 0, 1};
  cr_assert_eq(cs_corpus_save(dir, "tw", &oc, "anthropic", 0, &err), 0, "%s", err.msg);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "grep -q '\"planted_twin\": \\[0, 1\\]' %s/tw/*.json", dir);
  cr_assert_eq(system(cmd), 0, "no planted_twin written");
  oc.planted = (cs_literal_twin){0};
  uint64_t other[] = {2, 0, 1};
  oc.choices = other;
  cr_assert_eq(cs_corpus_save(dir, "none", &oc, "anthropic", 0, &err), 0, "%s", err.msg);
  snprintf(cmd, sizeof cmd, "! grep -q planted_twin %s/none/*.json", dir);
  cr_assert_eq(system(cmd), 0, "a planted_twin written for a case without one");
}

/* A file under the name a case would take that holds another case keeps it, and the case gets a
 * name of its own, once: a stale case of the same token (which replays its saved history, while the
 * token now makes a failure of its own), the same token found under another ID bound, another token
 * whose name hashes alike. Saving either again changes nothing; a file callsign cannot read as a
 * case is replaced. */
Test(corpus, a_file_holding_another_case_keeps_it_and_the_case_gets_its_own_name) {
  cs_err err = {{0}};
  uint64_t s = seed_with_twins(1, false);
  cs_choices c = {0};
  cs_choices_record(&c, s);
  cs_arena a = {0};
  cs_gen_case g;
  cs_gen_history(&c, NULL, &a, &g);
  cs_outcome oc = {.prop = cs_property_find("emit.unique"), .choices = c.v, .nchoices = c.n};
  snprintf(oc.message, sizeof oc.message, "found");
  oc.history_json = made_json(c.v, c.n);
  char path[512], text[8192];
  cr_assert_eq(cs_corpus_save(dir, "st", &oc, "anthropic", 0, &err), 0, "%s", err.msg);
  only_file("st", path, sizeof path);

  /* stale: the same token with a history it does not make */
  cs_history other;
  cs_arena oa = {0};
  cr_assert_eq(cs_history_parse(cs_str_c(pair_json), NULL, &oa, &other, &err), 0, "%s", err.msg);
  write_seed_case(path, s, NULL, &other, NULL, NULL);
  snprintf(text, sizeof text, "%s", slurp(path));
  for (int round = 0; round < 2; round++) {
    cr_assert_eq(cs_corpus_save(dir, "st", &oc, "anthropic", 0, &err), 0, "%s", err.msg);
    cr_assert_eq(count_files("st"), 2, "round %d", round);
    cr_assert_str_eq(slurp(path), text, "the stale case was overwritten");
  }
  cs_corpus corpus;
  cr_assert_eq(cs_corpus_load(dir, "st", &corpus, &err), 0, "%s", err.msg);
  cr_assert_eq(corpus.n, 1, "the token case that fails now");
  cr_assert_eq(corpus.nlit, 1, "the stale case, replayed as saved");
  cs_corpus_free(&corpus);

  /* another ID bound: the default-bound file stays, the bound one gets a name */
  cr_assert_eq(cs_corpus_save(dir, "bd", &oc, "anthropic", 0, &err), 0, "%s", err.msg);
  only_file("bd", path, sizeof path);
  snprintf(text, sizeof text, "%s", slurp(path));
  for (int round = 0; round < 2; round++) {
    cr_assert_eq(cs_corpus_save(dir, "bd", &oc, "anthropic", 50, &err), 0, "%s", err.msg);
    cr_assert_eq(cs_corpus_save(dir, "bd", &oc, "anthropic", CS_GEN_DEFAULT_MAX_ID_LEN, &err), 0, "%s", err.msg);
    cr_assert_eq(count_files("bd"), 2, "round %d", round);
    cr_assert_str_eq(slurp(path), text, "the default-bound case was overwritten");
  }

  /* another token in the case's first name */
  cr_assert_eq(cs_corpus_save(dir, "ot", &oc, "anthropic", 0, &err), 0, "%s", err.msg);
  only_file("ot", path, sizeof path);
  write_seed_case(path, s + 1, NULL, NULL, NULL, NULL);
  snprintf(text, sizeof text, "%s", slurp(path));
  cr_assert_eq(cs_corpus_save(dir, "ot", &oc, "anthropic", 0, &err), 0, "%s", err.msg);
  cr_assert_eq(count_files("ot"), 2);
  cr_assert_str_eq(slurp(path), text, "another token's case was overwritten");

  /* not a case: replaced */
  cr_assert_eq(cs_corpus_save(dir, "br", &oc, "anthropic", 0, &err), 0, "%s", err.msg);
  only_file("br", path, sizeof path);
  write_file(path, "{ not json");
  cr_assert_eq(cs_corpus_save(dir, "br", &oc, "anthropic", 0, &err), 0, "%s", err.msg);
  cr_assert_eq(count_files("br"), 1);
  cr_assert(strstr(slurp(path), "\"found\"") != NULL, "%s", slurp(path));

  free(oc.history_json);
  cs_arena_free(&oa);
  cs_arena_free(&a);
  cs_choices_free(&c);
}
