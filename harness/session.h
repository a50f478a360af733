/* harness/session.h: what the commands that run implementations share: opening the implementation
 * the options name (a built-in or --impl-cmd), quoting for a POSIX shell, and the `callsign replay`
 * command line that reproduces a failure. */
#ifndef CS_HARNESS_SESSION_H
#define CS_HARNESS_SESSION_H

#include <signal.h>
#include <stdbool.h>

#include "core/buf.h"
#include "harness/cli.h"
#include "harness/runner.h"

/* Opens built-in `name`, or the --impl-cmd program when `name` is NULL. NULL with `err` when it
 * does not exist or cannot be started; the message names the implementation (the program as
 * given for --impl-cmd), so callers print it as it is. */
cs_impl *cs_session_open(const cs_options *o, cs_ruleset *rs, const char *name, cs_err *err);

/* s as one line for the terminal (NULL: ""), hidden characters escaped, cut at `max` bytes with
 * the length of the rest: an implementation's name from its hello and messages carrying its stderr
 * are its own text. Valid until b changes. */
const char *cs_shown(cs_buf *b, const char *s, size_t max);

/* -1, with err saying that `whose` hello names the implementation `name` where `first_whose` named
 * it `first`: PROTOCOL.md asks every process of a program for one name, which keys its results.
 * whose: "a worker's", "worker 2: its"; first_whose: "the first process's". */
int cs_session_other_name(cs_err *err, const char *whose, const char *name, const char *first_whose, const char *first);

/* Ends `impl`'s program, if it has one, and keeps `impl`: its next request starts the program
 * again. A program that ended otherwise than PROTOCOL.md asks (a nonzero status on stop, lines
 * after its last answer) gets a note on stderr naming it as `name`. */
void cs_session_stop(cs_impl *impl, const char *name);

/* cs_session_stop, then frees `impl` (NULL: nothing). */
void cs_session_close(cs_impl *impl, const char *name);

/* Appends `s`, quoted for a shell when it needs it: as it is, in '...' (any POSIX shell), or, when
 * it holds a control, hidden or invalid byte that a message would show escaped, in $'...' with
 * those bytes as octal escapes (bash, zsh, ksh, POSIX.1-2024 shells; not dash 0.5.12). */
void cs_shell_arg(cs_buf *b, const char *s);

/* Appends the `callsign replay` command line that re-runs `cell`'s shrunk case: the implementation
 * (`impl_name`, or the --impl-cmd argv when `external`), property, target (`tname`), the rule
 * options of `o`, and the token, or for a literal case its corpus file (cell->literal_path). */
void cs_replay_command(const cs_options *o, const char *impl_name, bool external, const cs_outcome *cell,
                       const char *tname, cs_buf *b);
/* Appends the command line that re-checks a failed canonical v1 vector: `callsign run` of `property`
 * (vectors.canonical_v1) against the `vectors` file the run used, with the implementation and rule
 * options as cs_replay_command gives them. No token replays a vector: no seed generated it. */
void cs_vectors_replay_command(const cs_options *o, const char *impl_name, bool external, const char *property,
                               const char *vectors, cs_buf *b);

/* Installs `handler` for each of sigs[0..n) with sa_flags `flags`, except a signal the caller left
 * ignored: a shell without job control starts background commands with SIGINT ignored, so that a
 * Ctrl-C meant for the foreground does not reach them, and it stays so. */
void cs_catch_signals(const int *sigs, size_t n, void (*handler)(int), int flags);
/* Catches SIGINT and SIGTERM (as cs_catch_signals) for a graceful stop, and returns the flag they
 * set: 0 until the first arrives, then its number. The same signal a second time, a second or more
 * after the first, kills the implementations' process groups and takes its default action; a copy
 * sooner is the same stop (`timeout` signals its child, then the child's group), and another
 * signal after the first is ignored (a Ctrl-C reaches fuzz workers both from the terminal and as
 * the SIGTERM their parent forwards). The flag is process-wide, as a signal is: one command per process uses it. */
const volatile sig_atomic_t *cs_catch_stop_signals(void);

/* The name of target `t`, or "-" for target-less properties (t < 0). */
const char *cs_target_label(int t);
/* Says on stderr, once, that the corpus is off because of --max-id-len (cs_options'
 * corpus_off_for_bound); nothing when it is not. */
void cs_note_corpus_off(const cs_options *o);

#endif
