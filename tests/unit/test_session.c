/* Unit tests for harness/session.c: shell quoting and the replay command line that every failure
 * prints. The quoting is checked by the shell itself: each argument, pasted into `sh -c`, must come
 * back byte for byte. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "generators/choices.h"
#include "harness/property.h"
#include "harness/session.h"

/* What `shell` makes of `printf %s <quoted>`, the line read from a file as a pasted line is. */
static char *through(const char *shell, const char *quoted) {
  char script[] = "/tmp/cs-session-XXXXXX";
  int fd = mkstemp(script);
  cr_assert_geq(fd, 0);
  FILE *f = fdopen(fd, "w");
  fprintf(f, "printf %%s %s\n", quoted);
  fclose(f);
  cs_buf cmd = {0};
  cs_buf_printf(&cmd, "%s %s", shell, script);
  FILE *p = popen(cmd.data, "r");
  cr_assert_not_null(p);
  static char out[4096];
  size_t n = fread(out, 1, sizeof out - 1, p);
  out[n] = 0;
  cr_assert_eq(pclose(p), 0, "%s refused: %s", shell, quoted);
  unlink(script);
  cs_buf_free(&cmd);
  return out;
}

Test(session, shell_arg_survives_the_shell) {
  const char *args[] = {"plain",      "a b", "it's", "'", "''", "$HOME", "`id`", "a\"b", "back\\slash",
                        "^[a-z_ ]+$", "x;y", "a|b",  "*", "~",  "#c",    "é",    "-",    "--rule"};
  for (size_t i = 0; i < sizeof args / sizeof *args; i++) {
    cs_buf q = {0};
    cs_shell_arg(&q, args[i]);
    cr_assert_str_eq(through("sh", q.data), args[i], "quoted as %s", q.data);
    cs_buf_free(&q);
  }
}

/* An argument with a control, hidden or invalid byte is quoted on one printable line, which a
 * message shows as it is, and which bash reads back byte for byte. */
Test(session, shell_arg_with_hidden_bytes_stays_one_printable_line) {
  const char *args[] = {"new\nline",
                        "tab\there",
                        "esc\x1b[31m",
                        "it's\n",
                        "back\\slash\r",
                        "zw\xE2\x80\x8B"
                        "space",
                        "bad\xFF"
                        "byte",
                        "caf\xC3\xA9\x7F",
                        "\n"};
  for (size_t i = 0; i < sizeof args / sizeof *args; i++) {
    cs_buf q = {0};
    cs_shell_arg(&q, args[i]);
    cr_assert_eq(strncmp(q.data, "$'", 2), 0, "%s", q.data);
    for (const unsigned char *p = (const unsigned char *)q.data; *p; p++)
      cr_assert(*p >= 0x20 && *p != 0x7F, "a raw byte 0x%02x in %s", *p, q.data);
    cr_assert_str_eq(through("bash", q.data), args[i], "quoted as %s", q.data);
    cs_buf_free(&q);
  }
}

Test(session, shell_arg_quotes_only_when_needed) {
  cs_buf q = {0};
  cs_shell_arg(&q, "anthropic.max_len=64");
  cr_assert_str_eq(q.data, "anthropic.max_len=64", "a plain word stays as it is");
  cs_buf_clear(&q);
  cs_shell_arg(&q, "");
  cr_assert_str_eq(q.data, "''", "an empty argument is still an argument");
  cs_buf_clear(&q);
  cs_shell_arg(&q, "a b");
  cr_assert_str_eq(q.data, "'a b'");
  cs_buf_free(&q);
}

Test(session, replay_command_names_everything_replay_needs) {
  uint64_t choices[] = {3, 1, 4, 1, 5};
  cs_outcome cell = {.prop = cs_property_find("emit.unique"), .target = 0, .choices = choices, .nchoices = 5};
  cr_assert_not_null(cell.prop);
  char *cmd_argv[] = {"python3", "my adapter.py", NULL};
  cs_options o = {.nrules = 2, .profile = "rules file.txt", .max_id_len = 4096, .impl_cmd = cmd_argv};
  o.rules[0] = "anthropic.pattern=^[a-z_ ]+$";
  o.rules[1] = "openai_chat.max_len=64";
  cs_buf tok = {0}, b = {0}, want = {0};
  cs_choices_token(choices, 5, &tok);

  cs_replay_command(&o, "prefix-swap", false, &cell, "mistral", &b);
  cs_buf_printf(&want,
                "callsign replay --impl prefix-swap --property emit.unique --target mistral --rule "
                "'anthropic.pattern=^[a-z_ ]+$' --rule openai_chat.max_len=64 --profile 'rules file.txt' "
                "--max-id-len 4096 %s",
                tok.data);
  cr_assert_str_eq(b.data, want.data);

  cs_buf_clear(&b);
  cs_buf_clear(&want);
  cell.target = -1;
  o.nrules = 0;
  o.profile = NULL;
  o.max_id_len = 0;
  cs_replay_command(&o, NULL, true, &cell, "-", &b);
  cs_buf_printf(&want, "callsign replay --property emit.unique %s --impl-cmd -- python3 'my adapter.py'", tok.data);
  cr_assert_str_eq(b.data, want.data, "a target-less cell names no target; the program's argv is quoted");
  cs_buf_free(&tok);
  cs_buf_free(&b);
  cs_buf_free(&want);
}

/* A vector has no token: its failure is re-checked by `callsign run` against the file the run used,
 * with the options that decide what the implementation is asked and the program's argv last. */
Test(session, vectors_replay_command_checks_the_same_file_again) {
  char *cmd_argv[] = {"python3", "my adapter.py", NULL};
  cs_options o = {
      .nrules = 1, .profile = "rules file.txt", .max_id_len = 4096, .deadline_ms = 300, .impl_cmd = cmd_argv};
  o.rules[0] = "anthropic.pattern=^[a-z_ ]+$";
  cs_buf b = {0};
  cs_vectors_replay_command(&o, "reference", false, "vectors.canonical_v1", "vec bad's.json", &b);
  cr_assert_str_eq(b.data,
                   "callsign run --impl reference --property vectors.canonical_v1 --rule "
                   "'anthropic.pattern=^[a-z_ ]+$' --profile 'rules file.txt' --vectors 'vec bad'\\''s.json'",
                   "a built-in's deadline means nothing; --max-id-len bounds generated IDs, and a vector is none");
  cs_buf_clear(&b);
  o.nrules = 0;
  o.profile = NULL;
  cs_vectors_replay_command(&o, NULL, true, "vectors.canonical_v1", "corpus/vectors/canonical_v1.json", &b);
  cr_assert_str_eq(b.data, "callsign run --property vectors.canonical_v1 --deadline 300 --vectors "
                           "corpus/vectors/canonical_v1.json --impl-cmd -- python3 'my adapter.py'");
  cs_buf_free(&b);
}

/* A stop signal sets the flag; a copy within a second is the same stop (timeout's second signal, a
 * worker's forwarded one), another signal is ignored, and the same signal a second or more later
 * takes its default action. Run in a child: the last step ends the process. */
Test(session, stop_signal_copies_within_a_second_are_one_stop) {
  int fds[2];
  cr_assert_eq(pipe(fds), 0);
  pid_t pid = fork();
  cr_assert(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    const volatile sig_atomic_t *stop = cs_catch_stop_signals();
    if (*stop)
      _exit(10);
    raise(SIGTERM);
    if (*stop != SIGTERM)
      _exit(11);
    raise(SIGTERM); /* a copy at once: still running */
    raise(SIGINT);  /* another signal: ignored */
    if (*stop != SIGTERM)
      _exit(12);
    if (write(fds[1], "A", 1) != 1) /* the parent sees it survived */
      _exit(14);
    struct timespec ts = {1, 200 * 1000000L};
    nanosleep(&ts, NULL);
    raise(SIGTERM); /* the same, later: ends the process */
    _exit(13);
  }
  close(fds[1]);
  char got = 0;
  ssize_t n = read(fds[0], &got, 1);
  close(fds[0]);
  int st = 0;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  cr_assert(n == 1 && got == 'A', "the child did not survive a copy of the signal");
  cr_assert(WIFSIGNALED(st), "the child exited with %d instead of dying by SIGTERM", WEXITSTATUS(st));
  cr_assert_eq(WTERMSIG(st), SIGTERM);
}
