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

/* What `sh` makes of `printf %s <quoted>`. */
static char *through_shell(const char *quoted) {
  cs_buf cmd = {0};
  cs_buf_printf(&cmd, "printf %%s %s", quoted);
  FILE *p = popen(cmd.data, "r");
  cr_assert_not_null(p);
  static char out[4096];
  size_t n = fread(out, 1, sizeof out - 1, p);
  out[n] = 0;
  cr_assert_eq(pclose(p), 0, "sh refused: %s", cmd.data);
  cs_buf_free(&cmd);
  return out;
}

Test(session, shell_arg_survives_the_shell) {
  const char *args[] = {"plain", "a b",         "it's",       "'",   "''",  "$HOME", "`id`",
                        "a\"b",  "back\\slash", "^[a-z_ ]+$", "x;y", "a|b", "*",     "~",
                        "#c",    "new\nline",   "tab\there",  "é",   "-",   "--rule"};
  for (size_t i = 0; i < sizeof args / sizeof *args; i++) {
    cs_buf q = {0};
    cs_shell_arg(&q, args[i]);
    cr_assert_str_eq(through_shell(q.data), args[i], "quoted as %s", q.data);
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
