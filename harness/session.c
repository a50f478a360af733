/* harness/session.c: opening implementations from the options, shell quoting and replay command
 * lines (harness/session.h). */
#include "harness/session.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "reports/escape.h"

cs_impl *cs_session_open(const cs_options *o, cs_ruleset *rs, const char *name, cs_err *err) {
  if (!name) {
    if (!o->impl_cmd || !o->impl_cmd[0]) {
      cs_err_set(err, "no implementation given (--impl NAME or --impl-cmd -- ARGV...)");
      return NULL;
    }
    cs_subprocess_config sc = {.deadline_ms = o->deadline_ms};
    cs_impl *impl = cs_subprocess_open(o->impl_cmd, &sc, err);
    if (impl && impl->info.unknown && impl->info.unknown[0]) { /* a typo would drop its checks in silence */
      cs_buf line = {0};
      cs_buf_puts(&line, "callsign: note: the hello of ");
      cs_esc_plain(&line, impl->info.name, strlen(impl->info.name), false);
      cs_buf_puts(&line, " announces what callsign does not know, and ignores: ");
      cs_esc_plain(&line, impl->info.unknown, strlen(impl->info.unknown), false);
      fprintf(stderr, "%s\n", line.data);
      cs_buf_free(&line);
    }
    return impl;
  }
  const cs_builtin *b = cs_builtin_find(name);
  if (!b) {
    cs_err_set(err, "unknown implementation '%s' (see callsign list)", name);
    return NULL;
  }
  cs_impl_env env = {rs, o->seed};
  cs_impl *impl = b->create(&env, err);
  if (!impl)
    cs_err_prefix(err, "%s", name);
  return impl;
}

void cs_catch_signals(const int *sigs, size_t n, void (*handler)(int), int flags) {
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = flags;
  for (size_t i = 0; i < n; i++)
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
      sigaction(sigs[i], &sa, NULL);
}

/* The stop signal caught, or 0, and when it came (ms after stop_base_s, the time signals were
 * caught). File-scope because a signal handler has no context to write to; set only by
 * on_stop_signal, read through the pointer cs_catch_stop_signals returns. */
static volatile sig_atomic_t stop_signal, stop_ms;
static time_t stop_base_s;

/* A copy of the stop signal within this time is the same stop: `timeout` signals its child and
 * then the child's group, and a fuzz worker gets the group's signal and its parent's SIGTERM. */
#define STOP_REPEAT_MIN_MS 1000

static int ms_since_base(void) { /* clock_gettime is async-signal-safe */
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int)((ts.tv_sec - stop_base_s) * 1000 + ts.tv_nsec / 1000000);
}

static void on_stop_signal(int sig) {
  if (stop_signal == sig && ms_since_base() - stop_ms >= STOP_REPEAT_MIN_MS) {
    cs_subprocess_kill_all(); /* in their own process groups, they would outlive the default action */
    signal(sig, SIG_DFL);
    raise(sig);
  } else if (!stop_signal) {
    stop_ms = ms_since_base();
    stop_signal = sig;
  }
}

const volatile sig_atomic_t *cs_catch_stop_signals(void) {
  const int stop[] = {SIGINT, SIGTERM};
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  stop_base_s = ts.tv_sec;
  stop_signal = 0;
  cs_catch_signals(stop, sizeof stop / sizeof *stop, on_stop_signal, SA_RESTART);
  return &stop_signal;
}

const char *cs_shown(cs_buf *b, const char *s, size_t max) {
  cs_buf_clear(b);
  size_t cut = cs_esc_plain_cut(b, s, max);
  if (cut)
    cs_buf_printf(b, "... (%zu bytes more)", cut);
  return b->data ? b->data : "";
}

int cs_session_other_name(cs_err *err, const char *whose, const char *name, const char *first_whose,
                          const char *first) {
  cs_buf x = {0}, y = {0};
  cs_err_set(err, "%s hello names the implementation '%s', %s '%s' (every process must give one name)", whose,
             cs_shown(&x, name, 60), first_whose, cs_shown(&y, first, 60));
  cs_buf_free(&x);
  cs_buf_free(&y);
  return -1;
}

void cs_session_stop(cs_impl *impl, const char *name) {
  char how[160];
  if (impl && cs_impl_stop(impl, how, sizeof how)) { /* not a property: the IDs it gave are judged already */
    cs_buf b = {0};
    fprintf(stderr, "callsign: note: %s, at stop: %s (PROTOCOL.md: one answer per request, status 0 on stop)\n",
            cs_shown(&b, name, 200), how);
    cs_buf_free(&b);
  }
}

void cs_session_close(cs_impl *impl, const char *name) {
  cs_session_stop(impl, name);
  cs_impl_destroy(impl);
}

/* True when a byte of s is a control, or starts a hidden character (cs_esc_is_hidden) or a byte
 * that is not UTF-8: messages show those escaped, so inside '...' they would not paste back. */
static bool needs_dollar_quote(const char *s) {
  size_t n = strlen(s);
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    size_t k = cs_esc_decode(s + i, n - i, &cp);
    if (k == 0 || cs_esc_is_hidden(cp))
      return true;
    i += k;
  }
  return false;
}

void cs_shell_arg(cs_buf *b, const char *s) {
  bool plain = *s != 0;
  for (const char *p = s; *p; p++)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:@%+,", *p))
      plain = false;
  if (plain) {
    cs_buf_puts(b, s);
    return;
  }
  if (!needs_dollar_quote(s)) {
    cs_buf_putc(b, '\'');
    for (const char *p = s; *p; p++)
      cs_buf_puts(b, *p == '\'' ? "'\\''" : (char[2]){*p, 0});
    cs_buf_putc(b, '\'');
    return;
  }
  /* $'...' (bash, zsh, ksh; POSIX.1-2024): every hidden or invalid byte as an octal escape, so the
   * line stays printable, on one line, and pastes back byte for byte. */
  size_t n = strlen(s);
  cs_buf_puts(b, "$'");
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    size_t k = cs_esc_decode(s + i, n - i, &cp);
    bool raw = k > 0 && !cs_esc_is_hidden(cp);
    if (k == 0)
      k = 1;
    for (size_t j = i; j < i + k; j++) {
      unsigned char c = (unsigned char)s[j];
      if (raw && (c == '\\' || c == '\''))
        cs_buf_printf(b, "\\%c", c);
      else if (raw)
        cs_buf_putc(b, (char)c);
      else
        cs_buf_printf(b, "\\%03o", c);
    }
    i += k;
  }
  cs_buf_putc(b, '\'');
}

/* The rule options of `o`, which decide what an implementation is asked and judged against. */
static void put_rules(const cs_options *o, cs_buf *b) {
  for (size_t i = 0; i < o->nrules; i++) {
    cs_buf_puts(b, " --rule ");
    cs_shell_arg(b, o->rules[i]);
  }
  if (o->profile) {
    cs_buf_puts(b, " --profile ");
    cs_shell_arg(b, o->profile);
  }
}

/* An external implementation's argv: last, as everything after `--impl-cmd --` is the program's. */
static void put_impl_cmd(const cs_options *o, cs_buf *b) {
  cs_buf_puts(b, " --impl-cmd --");
  for (char **p = o->impl_cmd; *p; p++) {
    cs_buf_putc(b, ' ');
    cs_shell_arg(b, *p);
  }
}

void cs_replay_command(const cs_options *o, const char *impl_name, bool external, const cs_outcome *cell,
                       const char *tname, cs_buf *b) {
  cs_buf tok = {0};
  if (cell->choices)
    cs_choices_token(cell->choices, cell->nchoices, &tok);
  else if (cell->literal_path) /* a literal case (a planted pair) replays from its file */
    cs_shell_arg(&tok, cell->literal_path);
  cs_buf_puts(b, "callsign replay");
  if (!external) {
    cs_buf_puts(b, " --impl ");
    cs_shell_arg(b, impl_name);
  }
  cs_buf_printf(b, " --property %s", cell->prop->name);
  if (o->strict && cell->prop->tier == CS_TIER_RECOMMENDED) /* without it the failure replays as a pass */
    cs_buf_puts(b, " --strict");
  if (cell->target >= 0)
    cs_buf_printf(b, " --target %s", tname);
  put_rules(o, b);
  if (o->max_id_len)
    cs_buf_printf(b, " --max-id-len %u", o->max_id_len);
  if (external && o->deadline_ms) /* a timeout under a shorter deadline shows only under it */
    cs_buf_printf(b, " --deadline %u", o->deadline_ms);
  cs_buf_putc(b, ' ');
  cs_buf_puts(b, tok.data);
  if (external)
    put_impl_cmd(o, b);
  cs_buf_free(&tok);
}

void cs_vectors_replay_command(const cs_options *o, const char *impl_name, bool external, const char *property,
                               const char *vectors, cs_buf *b) {
  cs_buf_puts(b, "callsign run");
  if (!external) {
    cs_buf_puts(b, " --impl ");
    cs_shell_arg(b, impl_name);
  }
  cs_buf_printf(b, " --property %s", property);
  put_rules(o, b);
  if (external && o->deadline_ms)
    cs_buf_printf(b, " --deadline %u", o->deadline_ms);
  cs_buf_puts(b, " --vectors ");
  cs_shell_arg(b, vectors);
  if (external)
    put_impl_cmd(o, b);
}

const char *cs_target_label(int t) {
  if (t < 0 || t >= CS_TARGET_COUNT)
    return "-";
  return cs_target_get((cs_target_id)t)->name;
}

void cs_note_corpus_off(const cs_options *o) {
  if (o->corpus_off_for_bound)
    fprintf(stderr,
            "callsign: note: --max-id-len %u: the regression corpus is neither replayed nor saved (its tokens are "
            "cases of the default bound, %u)\n",
            o->max_id_len, CS_GEN_DEFAULT_MAX_ID_LEN);
}
