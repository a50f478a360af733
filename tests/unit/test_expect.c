/* Unit tests for harness/expect.c: the known-failures list and the entries it refuses. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "harness/expect.h"

/* Writes `text` to a temporary file whose path goes to `path` (at least 32 bytes). */
static void write_list(char *path, const char *text) {
  snprintf(path, 32, "/tmp/cs-expect-XXXXXX");
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  FILE *f = fdopen(fd, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
}

Test(expect, entries_and_matching) {
  char path[32];
  write_list(path, "# known failures\n"
                   "normalize.idempotent anthropic\n"
                   "emit.pair mistral adk-stream-v1   # only this one\n"
                   "emit.pair mistral adk-stream-v2\n"
                   "canon.unique -\n");
  cs_expect x;
  cs_err err = {{0}};
  cr_assert_eq(cs_expect_load(path, &x, &err), 0, "%s", err.msg);
  cr_assert_eq(x.n, 4);
  cr_assert_eq(x.e[1].line, 3);
  cr_assert_not_null(cs_expect_find(&x, "anything", "normalize.idempotent", "anthropic"));
  cr_assert_eq(cs_expect_find(&x, "adk-stream-v2", "emit.pair", "mistral"), &x.e[2]);
  cr_assert_null(cs_expect_find(&x, "reference", "emit.pair", "mistral"));
  cr_assert_not_null(cs_expect_find(&x, "reference", "canon.unique", "-"));
  cs_expect_free(&x);
  remove(path);
}

typedef struct {
  const char *text, *why;
} refused_list;

/* Each list is refused, with a message holding its `why`, and leaves nothing behind. */
static void assert_refused(const refused_list *bad, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char path[32];
    write_list(path, bad[i].text);
    cs_expect x;
    cs_err err = {{0}};
    cr_assert_eq(cs_expect_load(path, &x, &err), -1, "%s was taken", bad[i].text);
    cr_assert_not_null(strstr(err.msg, bad[i].why), "%s", err.msg);
    cr_assert_eq(x.n, 0, "the list is emptied on error");
    remove(path);
  }
}

/* A later entry that an earlier one covers could never match: it is refused, naming both lines. */
Test(expect, covered_entries_are_refused) {
  const refused_list bad[] = {
      {"emit.pair mistral\nemit.pair mistral\n", ":2: repeats line 1"},
      {"emit.pair mistral x\n\nemit.pair mistral x\n", ":3: repeats line 1"},
      {"emit.pair mistral\nemit.pair mistral x\n", ":2: overlaps line 1 (a line without an implementation"},
      {"emit.pair mistral x\nemit.pair mistral\n", ":2: overlaps line 1"},
  };
  assert_refused(bad, sizeof bad / sizeof *bad);
}

/* An editor's byte-order mark does not turn the first property into an unknown name. */
Test(expect, byte_order_mark_is_dropped) {
  char path[32];
  write_list(path, "\xef\xbb\xbfnormalize.idempotent anthropic\n");
  cs_expect x;
  cs_err err = {{0}};
  cr_assert_eq(cs_expect_load(path, &x, &err), 0, "%s", err.msg);
  cr_assert_str_eq(x.e[0].property, "normalize.idempotent");
  cs_expect_free(&x);
  remove(path);
}

/* A line no run could ever judge, or one holding a name --failures would not write raw, is refused:
 * the first was kept by every --failures and warned about on every run. */
Test(expect, lines_that_cannot_match_or_hide_characters_are_refused) {
  const refused_list bad[] = {
      {"emit.kimi_roundtrip anthropic\n", ":1: 'anthropic' is not a target of emit.kimi_roundtrip (use kimi)"},
      {"emit.server_passthrough gemini\n", "'gemini' is not a target of emit.server_passthrough (use anthropic)"},
      {"normalize.idempotent anthropic \x1b[31mred\n", ":1: the implementation name holds a control"},
      {"normalize.idempotent anthropic red\xff\n", "the implementation name holds a control"},
      {"emit.pair mistral a\xe2\x80\xaez\n", "the implementation name holds"}, /* a right-to-left override */
  };
  assert_refused(bad, sizeof bad / sizeof *bad);
  char path[32];
  write_list(path, "emit.kimi_roundtrip kimi\nemit.server_passthrough anthropic caf\xc3\xa9\n");
  cs_expect x;
  cs_err err = {{0}};
  cr_assert_eq(cs_expect_load(path, &x, &err), 0, "%s", err.msg);
  cr_assert_eq(x.n, 2);
  cs_expect_free(&x);
  remove(path);
}
