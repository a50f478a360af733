/* impls/subprocess.c: the client for PROTOCOL.md. Owns one child process (started without a
 * shell), its three pipes, the hello handshake, pipelined request/answer exchange with per-request
 * deadlines, fault classification (crash, timeout, protocol, rejected), the cut at the caller's
 * stop time, restarts after a fault and a bounded tail of the child's stderr. Buffers live in the
 * cs_impl and are reused across calls. */

/* pipe2(O_CLOEXEC) and F_SETPIPE_SZ: close-on-exec must be atomic, because other threads of the
 * harness (--jobs) may start their own children at the same moment. */
#define _GNU_SOURCE

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/clock.h"
#include "core/history_json.h"
#include "core/utf8.h"
#include "impls/impl.h"
#include "impls/subprocess_parse.h"
#include "providers/probe.h"

extern char **environ;

#define SP_DEFAULT_DEADLINE_MS CS_DEFAULT_DEADLINE_MS
/* Starting a program is not a request: hello gets at least the default deadline, so that a short
 * per-request deadline does not fail interpreters that take a second to start. */
#define SP_HELLO_MIN_MS SP_DEFAULT_DEADLINE_MS
#define SP_DEFAULT_TAIL 4096u
#define SP_DEFAULT_PIPELINE 64u
#define SP_DEFAULT_MAX_LINE ((size_t)64 << 20)
#define SP_MSG_TAIL 400u                  /* stderr bytes quoted in a fault message */
#define SP_READ_CHUNK ((size_t)256 << 10) /* room kept free in the stdout buffer before a read */
#define SP_EXIT_CHECK_MS 50               /* how often a wait looks whether the process died */
#define SP_DRAIN_LIMIT ((size_t)4 << 20)  /* stderr bytes read per wake-up, so deadlines stay checked */
#define SP_STOP_GRACE_MS 200u
#define SP_CLOSED_GRACE_NS ((int64_t)200 * 1000000) /* after stdin closed, for a death to show on stdout */
#define SP_EXTRA_WAIT_MS 20                         /* at stop, for lines written after the last answer */
#define SP_CRASH_GRACE_MS 100u /* after EOF on stdout: time for the exit status to become visible */
#define SP_PIPE_SIZE (1 << 20) /* bigger pipes: fewer wake-ups per batch (best effort) */
#define SP_SCHEME_V1 "callsign-canonical-v1"
/* Restarts that fail at hello in a row before no more are tried: a process that cannot come back
 * (a stale lock, a port still taken) would otherwise cost a hello deadline on every batch. */
#define SP_MAX_FAILED_STARTS 3u

typedef struct {
  cs_impl base;
  char **argv; /* owned copy, NULL-terminated */
  unsigned deadline_ms, pipeline;
  size_t tail_keep, max_line;
  char *name, *version; /* from the first hello; base.info points at them */
  char unknown[256];    /* and what it announced that callsign does not know (base.info.unknown) */

  pid_t pid;                           /* 0: no process; also its process group's ID */
  int live_slot;                       /* its entry in live_groups, or -1 */
  int to_child, from_child, err_child; /* parent's ends, -1 when closed */
  bool write_closed, out_eof;
  int64_t stdin_closed_ns; /* when a write found the process had closed its stdin; 0: it has not */
  uint64_t next_seq;       /* monotonic over the life of this cs_impl; hello is always 0 */
  uint64_t first_seq;      /* next_seq when this process started: the seq of its first request */

  cs_buf wbuf; /* queued request bytes; [wpos, len) not written yet */
  size_t wpos;
  uint64_t wqueued, wdone; /* stream offsets since the process started */

  cs_buf rbuf; /* stdout bytes; [rpos, len) not consumed yet, no '\n' in [rpos, rscan) */
  size_t rpos, rscan;

  char *tail; /* stderr tail: the last tail_keep bytes of the first tail_len (capacity 2 * keep) */
  size_t tail_len;
  uint64_t err_total, err_at_start; /* stderr bytes ever read; the count when this process started */
  char *scratch;                    /* SP_READ_CHUNK bytes for stderr and discarded stdout */

  /* Per-batch bookkeeping, sized to the largest batch seen. */
  uint64_t *seqs, *start_off; /* seq and stream offset of each queued request */
  int64_t *wtime;             /* when the first byte of the request entered the pipe */
  size_t slots_cap, b_sent, b_stamped;

  /* For cs_impl.give_up_after: faults that cost a restart or a deadline, and what was answered. */
  uint32_t kind_faults[CS_KIND_COUNT], faults_total;
  uint32_t answered_kinds; /* bit per kind */
  bool answered_any;
  uint64_t answered_total; /* requests answered (an error answer counts) */

  /* Restarts that failed at hello since the last good one; at SP_MAX_FAILED_STARTS none is tried
   * again and requests are skipped at once (at_start), with `gave_up` (which quotes the last
   * failure): they were never sent, so they count as no fault. */
  unsigned failed_starts;
  cs_err gave_up;
} cs_subproc;

/* The process groups of the implementations this process started and has not reaped, for
 * cs_subprocess_kill_all. Process-wide, unlike everything else here, because a fatal signal's
 * handler has no context to be handed. Lock-free atomics are safe to read from a handler. */
#define SP_LIVE_MAX 512
static atomic_int live_groups[SP_LIVE_MAX];

static void live_add(cs_subproc *s) {
  s->live_slot = -1;
  for (int i = 0; i < SP_LIVE_MAX; i++) {
    int none = 0;
    if (atomic_compare_exchange_strong(&live_groups[i], &none, (int)s->pid)) {
      s->live_slot = i;
      return;
    }
  }
}

static void live_remove(cs_subproc *s) {
  if (s->live_slot >= 0)
    atomic_store(&live_groups[s->live_slot], 0);
  s->live_slot = -1;
}

void cs_subprocess_kill_all(void) {
  for (int i = 0; i < SP_LIVE_MAX; i++) {
    int g = atomic_load(&live_groups[i]);
    if (g > 0)
      kill(-g, SIGKILL);
  }
}

/* 1: the process has exited, and is left unreaped (its ID, which is its group's, stays reserved);
 * 0: it runs; -1: it is not ours to wait for (already reaped). */
static int exit_state(pid_t pid) {
  for (;;) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0)
      return si.si_pid == pid;
    if (errno != EINTR)
      return -1;
  }
}

static int ms_until(int64_t deadline) {
  int64_t d = deadline - cs_now_ns();
  if (d <= 0)
    return 0;
  int64_t ms = (d + 999999) / 1000000;
  return ms > 60000 ? 60000 : (int)ms;
}

typedef enum { WAIT_ON, WAIT_DEADLINE_PASSED, WAIT_STOP_CAME } wait_state;

/* How long to wait for an answer due by `deadline`: *ms until it, or until the caller's stop time
 * when that comes first. The deadline is judged first: an answer overdue is a fault even after the
 * stop time. */
static wait_state wait_for(const cs_subproc *s, int64_t deadline, int *ms) {
  *ms = ms_until(deadline);
  if (*ms <= 0)
    return WAIT_DEADLINE_PASSED;
  if (s->base.interrupt && *s->base.interrupt)
    return WAIT_STOP_CAME;
  if (s->base.stop_at_ns && s->base.stop_at_ns < deadline) {
    *ms = ms_until(s->base.stop_at_ns);
    if (*ms <= 0)
      return WAIT_STOP_CAME;
  }
  return WAIT_ON;
}

/* Why the caller's stop came, for the messages of what it cut. */
static const char *stop_reason(const cs_subproc *s) {
  return s->base.interrupt && *s->base.interrupt ? "a stop signal came" : "the time ran out";
}

static void close_fd(int *fd) {
  if (*fd >= 0)
    close(*fd);
  *fd = -1;
}

/* ---- text for messages: one line, valid UTF-8 ---- */

/* Appends `src` to `dst` (NUL-terminated, capacity `cap`): control characters become spaces and
 * bytes that are not part of a well-formed UTF-8 character become '?'. */
static void put_flat(char *dst, size_t cap, const char *src, size_t n) {
  size_t o = strlen(dst);
  for (size_t i = 0; i < n && o + 1 < cap;) {
    unsigned char c = (unsigned char)src[i];
    if (c < 0x80) {
      dst[o++] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
      i++;
      continue;
    }
    size_t k = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (k > 1 && i + k <= n && cs_utf8_valid(src + i, k, NULL)) {
      if (o + k + 1 > cap)
        break;
      memcpy(dst + o, src + i, k);
      o += k;
      i += k;
    } else {
      dst[o++] = '?';
      i++;
    }
  }
  dst[o] = 0;
}

static cs_str tail_view(const cs_subproc *s) {
  size_t n = s->tail_len < s->tail_keep ? s->tail_len : s->tail_keep;
  return (cs_str){s->tail + s->tail_len - n, n};
}

static void tail_append(cs_subproc *s, const char *p, size_t n) {
  size_t keep = s->tail_keep;
  s->err_total += n;
  if (n >= keep) {
    memcpy(s->tail, p + n - keep, keep);
    s->tail_len = keep;
    return;
  }
  if (s->tail_len + n > 2 * keep) {
    size_t drop = s->tail_len + n - keep;
    memmove(s->tail, s->tail + drop, s->tail_len - drop);
    s->tail_len -= drop;
  }
  memcpy(s->tail + s->tail_len, p, n);
  s->tail_len += n;
}

/* Appends "; stderr: ..." with the last SP_MSG_TAIL bytes this process wrote, if any. */
static void put_stderr(const cs_subproc *s, char *dst, size_t cap) {
  cs_str t = tail_view(s);
  uint64_t mine = s->err_total - s->err_at_start;
  size_t n = t.len;
  if ((uint64_t)n > mine)
    n = (size_t)mine;
  if (n > SP_MSG_TAIL)
    n = SP_MSG_TAIL;
  const char *p = t.ptr + t.len - n;
  while (n && ((unsigned char)*p & 0xC0) == 0x80) /* start on a character boundary */
    p++, n--;
  while (n && (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' '))
    n--;
  if (!n)
    return;
  put_flat(dst, cap, "; stderr: ", 10);
  put_flat(dst, cap, p, n);
}

/* ---- pipes ---- */

static void drain_stderr(cs_subproc *s) {
  size_t got = 0;
  while (s->err_child >= 0 && got < SP_DRAIN_LIMIT) {
    ssize_t k = read(s->err_child, s->scratch, SP_READ_CHUNK);
    if (k > 0) {
      tail_append(s, s->scratch, (size_t)k);
      got += (size_t)k;
    } else if (k < 0 && errno == EINTR) {
      continue;
    } else {
      if (k == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
        close_fd(&s->err_child);
      break;
    }
  }
}

static void read_stdout(cs_subproc *s) {
  cs_buf *b = &s->rbuf;
  if (s->rpos == b->len) {
    b->len = s->rpos = s->rscan = 0;
  } else if (s->rpos > b->len / 2 && s->rpos > SP_READ_CHUNK) {
    memmove(b->data, b->data + s->rpos, b->len - s->rpos);
    b->len -= s->rpos;
    s->rscan -= s->rpos;
    s->rpos = 0;
  }
  for (int round = 0; round < 4 && b->len - s->rpos <= s->max_line; round++) {
    cs_buf_reserve(b, SP_READ_CHUNK);
    size_t room = b->cap - b->len - 1;
    ssize_t k = read(s->from_child, b->data + b->len, room);
    if (k > 0) {
      b->len += (size_t)k;
      b->data[b->len] = 0;
      if ((size_t)k < room)
        return;
    } else if (k < 0 && errno == EINTR) {
      continue;
    } else {
      if (k == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
        s->out_eof = true;
      return;
    }
  }
}

static void flush_writes(cs_subproc *s) {
  cs_buf *b = &s->wbuf;
  while (s->wpos < b->len && !s->write_closed) {
    ssize_t k = write(s->to_child, b->data + s->wpos, b->len - s->wpos);
    if (k > 0) {
      s->wpos += (size_t)k;
      s->wdone += (uint64_t)k;
      int64_t t = cs_now_ns();
      while (s->b_stamped < s->b_sent && s->start_off[s->b_stamped] < s->wdone)
        s->wtime[s->b_stamped++] = t;
    } else if (k < 0 && errno == EINTR) {
      continue;
    } else if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      break;
    } else {
      /* EPIPE (SIGPIPE is ignored): the child closed stdin or died; stdout tells the rest. */
      s->write_closed = true;
      s->stdin_closed_ns = cs_now_ns();
    }
  }
  if (s->wpos == b->len || s->write_closed) {
    cs_buf_clear(b);
    s->wpos = 0;
  }
}

/* Waits up to `timeout_ms` for any pipe to be ready, then writes what it can, reads stdout and
 * drains stderr. */
static void pump(cs_subproc *s, int timeout_ms) {
  struct pollfd p[3];
  int np = 0, iw = -1, io = -1, ie = -1;
  if (s->wpos < s->wbuf.len && !s->write_closed)
    iw = np, p[np++] = (struct pollfd){.fd = s->to_child, .events = POLLOUT};
  if (!s->out_eof)
    io = np, p[np++] = (struct pollfd){.fd = s->from_child, .events = POLLIN};
  if (s->err_child >= 0)
    ie = np, p[np++] = (struct pollfd){.fd = s->err_child, .events = POLLIN};
  /* Wake up now and then: a process that died while a child of its own holds its stdout open
   * never gives EOF, so its end is seen through waitid (which leaves it to be reaped later). */
  int r = poll(p, (nfds_t)np, timeout_ms < 0 || timeout_ms > SP_EXIT_CHECK_MS ? SP_EXIT_CHECK_MS : timeout_ms);
  if (r > 0) {
    if (iw >= 0 && p[iw].revents)
      flush_writes(s);
    if (io >= 0 && p[io].revents)
      read_stdout(s);
    if (ie >= 0 && p[ie].revents)
      drain_stderr(s);
  }
  /* Looked at on every wake-up, not only a quiet one: a child it left behind may keep a pipe busy,
   * and the death would then be seen only at the deadline (and called a timeout). */
  if (s->pid > 0 && !s->out_eof) {
    if (exit_state(s->pid) == 1) {
      read_stdout(s);    /* what it wrote before it died is still in the pipe, and is its answer */
      s->out_eof = true; /* the process is gone; what its children write is not its answer */
    }
  }
}

/* 1: a complete line in `line`; 0: none yet; -1: the pending line exceeds max_line. */
static int take_line(cs_subproc *s, cs_str *line) {
  cs_buf *b = &s->rbuf;
  const char *nl = s->rscan < b->len ? memchr(b->data + s->rscan, '\n', b->len - s->rscan) : NULL;
  if (!nl) {
    s->rscan = b->len;
    return b->len - s->rpos > s->max_line ? -1 : 0;
  }
  size_t end = (size_t)(nl - b->data);
  *line = (cs_str){b->data + s->rpos, end - s->rpos};
  s->rpos = s->rscan = end + 1;
  return line->len > s->max_line ? -1 : 1;
}

/* " (N bytes came without a line end)" when an answer was begun and not ended, else "": a timeout,
 * or an exit, of a program that forgot the newline says why. */
static void unended_note(const cs_subproc *s, char *out, size_t n) {
  size_t pending = s->rbuf.len - s->rpos;
  if (pending)
    snprintf(out, n, " (%zu byte%s came without a line end)", pending, pending == 1 ? "" : "s");
  else if (n)
    out[0] = 0;
}

/* ---- process life ---- */

static void describe_status(int st, char *out, size_t n) {
  if (WIFEXITED(st)) {
    snprintf(out, n, "exited with status %d", WEXITSTATUS(st));
  } else if (WIFSIGNALED(st)) {
    static const struct {
      int sig;
      const char *name;
    } names[] = {{SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGKILL, "SIGKILL"}, {SIGBUS, "SIGBUS"},
                 {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"},   {SIGTERM, "SIGTERM"}, {SIGPIPE, "SIGPIPE"}};
    const char *nm = "";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      if (names[i].sig == WTERMSIG(st))
        nm = names[i].name;
    snprintf(out, n, "was killed by signal %d%s%s", WTERMSIG(st), *nm ? " " : "", nm);
  } else {
    snprintf(out, n, "ended (wait status %d)", st);
  }
}

/* Ends the process: lets it exit on its own for up to `grace_ms` (draining its output), then
 * SIGKILL. Always reaps it and closes every pipe. Returns true and the wait status in `*st` when
 * it exited on its own. */
static bool end_process(cs_subproc *s, unsigned grace_ms, int *st) {
  bool own = false, gone = false; /* gone: reaped elsewhere, its ID free to be reused */
  int status = 0;
  if (s->pid > 0) {
    int64_t deadline = cs_now_ns() + (int64_t)grace_ms * 1000000;
    for (;;) {
      int state = exit_state(s->pid);
      own = state == 1;
      gone = state < 0;
      int left = ms_until(deadline);
      if (state || left <= 0)
        break;
      /* Keep reading so a child blocked on a full pipe can reach its exit. */
      struct pollfd p[2];
      int np = 0;
      if (!s->out_eof && s->from_child >= 0)
        p[np++] = (struct pollfd){.fd = s->from_child, .events = POLLIN};
      if (s->err_child >= 0)
        p[np++] = (struct pollfd){.fd = s->err_child, .events = POLLIN};
      if (poll(p, (nfds_t)np, np ? (left < 5 ? left : 5) : 1) > 0) {
        for (int i = 0; i < np; i++) {
          if (!p[i].revents)
            continue;
          if (p[i].fd == s->err_child) {
            drain_stderr(s);
          } else {
            ssize_t k = read(s->from_child, s->scratch, SP_READ_CHUNK);
            if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR))
              s->out_eof = true;
          }
        }
      }
    }
    /* The whole group, not only the process we started: whatever it started (a wrapper's child, a
     * worker) goes with it. The leader is not reaped yet, so the group's ID cannot have been
     * handed to anyone else. */
    live_remove(s);
    if (!gone) {
      kill(-s->pid, SIGKILL);
      while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
        ;
    }
  }
  drain_stderr(s);
  close_fd(&s->to_child);
  close_fd(&s->from_child);
  close_fd(&s->err_child);
  s->pid = 0;
  s->write_closed = s->out_eof = true;
  cs_buf_clear(&s->wbuf);
  cs_buf_clear(&s->rbuf);
  s->wpos = s->rpos = s->rscan = 0;
  if (st)
    *st = status;
  return own;
}

/* After its stdout ended while an answer was due: ends the process and says how it went ("exited
 * with status 1", "was killed by signal 11 SIGSEGV", or "closed its stdout" if it lived on). */
static void end_after_eof(cs_subproc *s, char *how, size_t n) {
  int st;
  if (end_process(s, SP_CRASH_GRACE_MS, &st))
    describe_status(st, how, n);
  else
    snprintf(how, n, "closed its stdout");
}

static void kill_process(cs_subproc *s) {
  end_process(s, 0, NULL);
}

static int make_pipe(int fds[2]) {
#if defined(__linux__)
  return pipe2(fds, O_CLOEXEC);
#else
  if (pipe(fds))
    return -1;
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  return 0;
#endif
}

/* Moves a child-side end above 2 so that dup2 onto 0..2 always clears close-on-exec. */
static int lift_fd(int *fd) {
  if (*fd > 2)
    return 0;
  int n = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
  if (n < 0)
    return -1;
  close(*fd);
  *fd = n;
  return 0;
}

static void set_nonblock(int fd) {
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0)
    fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* callsign's environment less the provider keys (a NULL-terminated copy of the pointers, to free):
 * an implementation under test needs none, and a key it never sees it cannot print or send. */
static char **child_environ(void) {
  size_t n = 0;
  while (environ && environ[n])
    n++;
  char **env = calloc(n + 1, sizeof *env);
  if (!env)
    return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    const char *eq = strchr(environ[i], '=');
    if (!eq || !cs_probe_is_key_env(environ[i], (size_t)(eq - environ[i])))
      env[k++] = environ[i];
  }
  return env;
}

/* Why exec refused `path`: EACCES is "Permission denied" for a directory or a device too, which
 * sends the user to chmod. A path with a '/' names one file; without, PATH lookup decides. */
static const char *spawn_error(const char *path, int e) {
  struct stat st;
  if (e != EACCES || !strchr(path, '/') || stat(path, &st) != 0)
    return strerror(e);
  if (S_ISDIR(st.st_mode))
    return "is a directory";
  return S_ISREG(st.st_mode) ? strerror(e) : "not an executable file";
}

#ifdef __linux__
/* In the child, between vfork and exec: the runner's generator thread may hold a lock of malloc's,
 * and the memory is the parent's: only async-signal-safe calls, and no writes but to the stack and
 * errno (which the parent reads only when vfork failed).
 * Returns only when exec failed, with its errno. */
static int child_exec(char *const argv[], char *const envp[], const int fds[3], const char *path, pid_t parent) {
  /* The program ends with the process that started it, however that process ends (kill -9 of a
   * worker or of callsign included): nobody else would stop it, and a program waiting for requests
   * or hanging in an answer would run on under init. The signal comes when the starting thread
   * ends, so only a program the main thread starts gets it (collide's search threads restart
   * theirs, and end before their programs are done with). */
  if (parent) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) /* the parent was gone before the call */
      _exit(127);
  }
  setpgid(0, 0);
  for (int i = 0; i < 3; i++)
    if (dup2(fds[i], i) < 0)
      return errno;
  /* Default SIGPIPE, and default handling of what the harness catches, before the signals blocked
   * around vfork are let in: a handler of callsign's must not run in the program's child. */
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; sig++) {
    struct sigaction cur;
    if (sig != SIGKILL && sig != SIGSTOP && sigaction(sig, NULL, &cur) == 0 &&
        (sig == SIGPIPE || (cur.sa_handler != SIG_IGN && cur.sa_handler != SIG_DFL)))
      sigaction(sig, &dfl, NULL);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  if (!path) {
    execve(argv[0], argv, envp);
    return errno;
  }
  /* PATH lookup as posix_spawnp does it: the first entry that execs, EACCES kept if none does. */
  size_t flen = strlen(argv[0]);
  int e = ENOENT;
  bool denied = false;
  for (const char *d = path;; d++) {
    const char *end = strchr(d, ':');
    size_t dlen = end ? (size_t)(end - d) : strlen(d);
    char file[4096];
    if (dlen + 1 + flen < sizeof file) {
      memcpy(file, dlen ? d : ".", dlen ? dlen : 1);
      size_t at = dlen ? dlen : 1;
      file[at] = '/';
      memcpy(file + at + 1, argv[0], flen + 1);
      execve(file, argv, envp);
      e = errno;
      denied = denied || e == EACCES;
      if (e != ENOENT && e != ENOTDIR && e != EACCES && e != ENAMETOOLONG && e != ELOOP && e != ESTALE)
        return e;
    }
    if (!end)
      break;
    d = end;
  }
  return denied ? EACCES : e;
}

/* What the child of vfork reads: set before, never written after (the child shares the memory). */
typedef struct {
  char *const *argv, *const *envp;
  const int *fds;
  const char *path; /* PATH to search, or NULL when argv[0] names a file */
  pid_t parent;     /* the starting thread, when it is the main one; 0: no parent-death signal */
  int ep;           /* where exec's errno goes */
} child_args;

/* The vfork child: execs, or writes exec's errno and ends. */
static _Noreturn void child_run(const child_args *ca) {
  int e = child_exec(ca->argv, ca->envp, ca->fds, ca->path, ca->parent);
  while (write(ca->ep, &e, sizeof e) < 0 && errno == EINTR)
    ;
  _exit(127);
}

/* Starts argv with fds[0..2] as its stdin, stdout and stderr, in a process group of its own, with a
 * parent-death signal (which posix_spawn cannot set). vfork, as posix_spawn does: fork would make
 * every page of the harness copy-on-write, and its first writes after each start fault (1.5 ms a
 * start, 2.4 times the time of a run against a program that crashes every few requests). Returns 0
 * and its pid, or the errno of why it could not start. */
static int start_child(char *const argv[], char *const envp[], const int fds[3], pid_t *out) {
  int ep[2]; /* exec's errno, or nothing when the exec closed it */
  if (pipe2(ep, O_CLOEXEC))
    return errno;
  child_args ca = {argv, envp, fds, NULL, getpid(), ep[1]};
  if (!strchr(argv[0], '/'))
    ca.path = getenv("PATH") ? getenv("PATH") : "/bin:/usr/bin";
  if ((pid_t)syscall(SYS_gettid) != ca.parent) /* not the main thread */
    ca.parent = 0;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  pid_t pid = vfork();
  if (pid == 0)
    child_run(&ca);
  int fork_errno = errno;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  close(ep[1]);
  if (pid < 0) {
    close(ep[0]);
    return fork_errno;
  }
  int e = 0;
  ssize_t k;
  while ((k = read(ep[0], &e, sizeof e)) < 0 && errno == EINTR)
    ;
  close(ep[0]);
  if (k == (ssize_t)sizeof e) {
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
      ;
    return e ? e : ENOEXEC;
  }
  *out = pid;
  return 0;
}
#else
static int start_child(char *const argv[], char *const envp[], const int fds[3], pid_t *out) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  if (posix_spawn_file_actions_init(&fa) != 0)
    return ENOMEM;
  if (posix_spawnattr_init(&at) != 0) {
    posix_spawn_file_actions_destroy(&fa);
    return ENOMEM;
  }
  for (int i = 0; i < 3; i++)
    posix_spawn_file_actions_adddup2(&fa, fds[i], i);
  /* The child gets default SIGPIPE handling and an empty signal mask, whatever the harness uses. */
  sigset_t def, mask;
  sigemptyset(&def);
  sigaddset(&def, SIGPIPE);
  sigemptyset(&mask);
  posix_spawnattr_setsigdefault(&at, &def);
  posix_spawnattr_setsigmask(&at, &mask);
  posix_spawnattr_setpgroup(&at, 0);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
  int e = posix_spawnp(out, argv[0], &fa, &at, argv, envp);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  return e;
}
#endif

/* Starts the program. Returns 0, or -1 with `err` when it cannot be started at all. */
static int spawn_process(cs_subproc *s, cs_err *err) {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, er[2] = {-1, -1};
  char **child_env = NULL;
  int rc = -1;
  if (make_pipe(in) || make_pipe(out) || make_pipe(er) || lift_fd(&in[0]) || lift_fd(&out[1]) || lift_fd(&er[1])) {
    cs_err_set(err, "cannot start '%s': pipe: %s", s->argv[0], strerror(errno));
    goto cleanup;
  }
  child_env = child_environ();
  if (!child_env) {
    cs_err_set(err, "cannot start '%s': out of memory", s->argv[0]);
    goto cleanup;
  }
  /* Its own process group: a Ctrl-C at the terminal stops callsign (which then ends the process
   * itself), and does not kill the implementation mid-answer, which would read as its fault. It
   * gets default SIGPIPE handling and an empty signal mask, whatever the harness uses. */
  pid_t pid = -1;
  int child_fds[3] = {in[0], out[1], er[1]};
  int e = start_child(s->argv, child_env, child_fds, &pid);
  if (e != 0) {
    cs_err_set(err, "cannot start '%s': %s", s->argv[0], spawn_error(s->argv[0], e));
    goto cleanup;
  }
  s->pid = pid;
  live_add(s);
  s->to_child = in[1], s->from_child = out[0], s->err_child = er[0];
  in[1] = out[0] = er[0] = -1;
  set_nonblock(s->to_child);
  set_nonblock(s->from_child);
  set_nonblock(s->err_child);
#if defined(F_SETPIPE_SZ)
  fcntl(s->to_child, F_SETPIPE_SZ, SP_PIPE_SIZE);
  fcntl(s->from_child, F_SETPIPE_SZ, SP_PIPE_SIZE);
#endif
  s->write_closed = s->out_eof = false;
  s->stdin_closed_ns = 0;
  s->wqueued = s->wdone = 0;
  s->wpos = s->rpos = s->rscan = 0;
  cs_buf_clear(&s->wbuf);
  cs_buf_clear(&s->rbuf);
  s->err_at_start = s->err_total;
  s->first_seq = s->next_seq;
  rc = 0;
cleanup:
  free(child_env);
  int *fds[] = {&in[0], &in[1], &out[0], &out[1], &er[0], &er[1]};
  for (size_t i = 0; i < 6; i++)
    close_fd(fds[i]);
  return rc;
}

/* ---- hello ---- */

static char *dup_str(const char *p) {
  size_t n = strlen(p) + 1;
  char *d = malloc(n);
  if (d)
    memcpy(d, p, n);
  return d;
}

/* One JSON object per line: after it, only blanks (a line end's \r included; a line holds no '\n'). */
static bool data_after(cs_str line, const char *end) {
  return cs_json_space_after(line, end) < line.len;
}

/* A line with nothing but JSON white space (a \r of a CRLF line end among it): a program that writes
 * a blank line before its answer is told that, not that its JSON "ends early". */
static bool blank_line(cs_str line) {
  return cs_json_space_after(line, line.ptr) == line.len;
}

/* Tells a seq that is no seq at all (5.4) from one that is out of order (6), for the message. */
static bool whole_number(double v) {
  if (v != v || v - v != 0) /* NaN, or an infinity (1e999 reads as one) */
    return false;
  if (v >= 0x1p53 || v <= -0x1p53) /* beyond 2^53 every double is whole */
    return true;
  return (double)(int64_t)v == v;
}

/* A seq as the program wrote it: a whole number below 2^53 as its digits (1000, never 1e+03), any
 * other as the shortest text that reads back (5.4 never shows as 5). */
static void put_seq(cs_buf *b, double v) {
  if (whole_number(v) && v > -0x1p53 && v < 0x1p53)
    cs_buf_printf(b, "%lld", (long long)v);
  else
    cs_buf_double(b, v);
}

/* Adds `kind "value"` to the list of names hello announced that callsign does not know. */
static void note_unknown(char *unknown, size_t un, const char *kind, const char *value) {
  size_t len = unknown ? strlen(unknown) : 0;
  if (unknown && len + 1 < un)
    snprintf(unknown + len, un - len, "%s%s \"%.60s\"", len ? ", " : "", kind, value);
}

/* Checks a hello answer; fills `info` (and name/version copies when wanted). 0, or -1 with `why`. */
int cs_subprocess_parse_hello(cs_str line, cs_impl_info *info, char **name, char **version, char *unknown, size_t un,
                              char *why, size_t wn) {
  if (unknown && un)
    unknown[0] = 0;
  cs_err e;
  int rc = -1;
  cJSON *root = NULL;
  if (blank_line(line)) {
    snprintf(why, wn, "hello answer is an empty line (each answer is one JSON object on one line)");
    return -1;
  }
  if (cs_json_precheck(line, 0, &e)) {
    snprintf(why, wn, "hello answer is not valid JSON text: %s", e.msg);
    return -1;
  }
  const char *end = NULL;
  root = cJSON_ParseWithLengthOpts(line.ptr, line.len, &end, 0);
  if (!root) { /* the strict parser names the place and the reason (nesting, a lone surrogate, ...) */
    cJSON_Delete(cs_json_parse_strict(line, 0, "the hello answer", &e));
    snprintf(why, wn, "hello answer is not valid JSON text: %s", e.msg);
    goto cleanup;
  }
  if (data_after(line, end)) {
    snprintf(why, wn, "hello answer has data after the JSON object");
    goto cleanup;
  }
  if (root && cs_json_strict_tokens(line, &e)) {
    snprintf(why, wn, "hello answer is not valid JSON text: %s", e.msg);
    goto cleanup;
  }
  if (!cJSON_IsObject(root)) {
    snprintf(why, wn, "hello answer is not a JSON object: '%.*s'", (int)(line.len < 60 ? line.len : 60), line.ptr);
    goto cleanup;
  }
  const char *dup;
  if (cs_json_repeated_name(root, &dup)) {
    snprintf(why, wn, "out of memory checking the hello answer's member names");
    goto cleanup;
  }
  if (dup) {
    snprintf(why, wn, "hello answer has the member \"%.60s\" twice (a name may occur once)", dup);
    goto cleanup;
  }
  const cJSON *seq = cJSON_GetObjectItemCaseSensitive(root, "seq");
  const cJSON *err = cJSON_GetObjectItemCaseSensitive(root, "error");
  const cJSON *proto = cJSON_GetObjectItemCaseSensitive(root, "protocol");
  const cJSON *nm = cJSON_GetObjectItemCaseSensitive(root, "name");
  const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "version");
  const cJSON *ops = cJSON_GetObjectItemCaseSensitive(root, "ops");
  const cJSON *targets = cJSON_GetObjectItemCaseSensitive(root, "targets");
  const cJSON *scheme = cJSON_GetObjectItemCaseSensitive(root, "scheme");
  if (!cJSON_IsNumber(seq)) {
    snprintf(why, wn, "hello answer must have \"seq\":0");
    goto cleanup;
  }
  if (seq->valuedouble != 0) {
    cs_buf num = {0};
    put_seq(&num, seq->valuedouble);
    snprintf(why, wn, "hello answer has seq %s%s (it must have \"seq\":0)", num.data,
             whole_number(seq->valuedouble) ? "" : ", which is not a whole number");
    cs_buf_free(&num);
    goto cleanup;
  }
  /* "error": null is what many serializers write for "no error": an answer, not a rejection. */
  if (err && !cJSON_IsNull(err)) {
    snprintf(why, wn, "hello answered with an error: %.200s",
             cJSON_IsString(err) ? err->valuestring : "(not a string)");
    goto cleanup;
  }
  if (!cJSON_IsNumber(proto) || proto->valuedouble != 1) {
    snprintf(why, wn, "hello answer must have \"protocol\":1 (this harness speaks protocol version 1)");
    goto cleanup;
  }
  if (!cJSON_IsString(nm) || !cJSON_IsString(ver)) {
    snprintf(why, wn, "hello answer needs string fields \"name\" and \"version\"");
    goto cleanup;
  }
  if (!nm->valuestring[0]) { /* it names the implementation in every report, corpus and results directory */
    snprintf(why, wn, "hello answer has an empty \"name\"");
    goto cleanup;
  }
  if (!cJSON_IsArray(ops)) {
    snprintf(why, wn, "hello answer needs an array field \"ops\"");
    goto cleanup;
  }
  /* Absent: no target, as a canonicalize-only program may well leave it out. */
  if (targets && !cJSON_IsArray(targets)) {
    snprintf(why, wn, "hello answer: \"targets\" must be an array");
    goto cleanup;
  }
  memset(info, 0, sizeof *info);
  const cJSON *it;
  cJSON_ArrayForEach(it, ops) {
    if (!cJSON_IsString(it)) {
      snprintf(why, wn, "hello answer: every entry of \"ops\" must be a string");
      goto cleanup;
    }
    if (strcmp(it->valuestring, "emit") == 0)
      info->ops |= CS_OP_EMIT;
    else if (strcmp(it->valuestring, "canonicalize") == 0)
      info->ops |= CS_OP_CANONICALIZE;
    else if (strcmp(it->valuestring, "normalize") == 0)
      info->ops |= CS_OP_NORMALIZE;
    else
      note_unknown(unknown, un, "op", it->valuestring);
  }
  unsigned tmask = 0;
  cJSON_ArrayForEach(it, targets) {
    if (!cJSON_IsString(it)) {
      snprintf(why, wn, "hello answer: every entry of \"targets\" must be a string");
      goto cleanup;
    }
    int t = cs_target_parse(it->valuestring);
    if (t >= 0)
      tmask |= 1u << t;
    else
      note_unknown(unknown, un, "target", it->valuestring);
  }
  info->emit_targets = (info->ops & CS_OP_EMIT) ? tmask : 0;
  info->normalize_targets = (info->ops & CS_OP_NORMALIZE) ? tmask : 0;
  info->claims_canonical_v1 = cJSON_IsString(scheme) && strcmp(scheme->valuestring, SP_SCHEME_V1) == 0;
  /* Unknown ops and targets are skipped (the protocol grows compatibly), but an implementation left
   * with nothing to check would pass every gate: that is an error, not a green run. */
  if (!info->ops) {
    snprintf(why, wn, "hello answer announces no op callsign knows (emit, canonicalize, normalize)");
    goto cleanup;
  }
  if (!(info->ops & CS_OP_CANONICALIZE) && !tmask) {
    snprintf(why, wn,
             "hello answer announces nothing callsign can check: no canonicalize, and no target it knows "
             "for emit or normalize");
    goto cleanup;
  }
  if (name) {
    *name = dup_str(nm->valuestring);
    *version = dup_str(ver->valuestring);
    if (!*name || !*version) {
      free(*name);
      free(*version);
      *name = *version = NULL;
      snprintf(why, wn, "out of memory");
      goto cleanup;
    }
  }
  rc = 0;
cleanup:
  cJSON_Delete(root);
  return rc;
}

typedef enum {
  START_OK,
  START_SPAWN_FAILED, /* the program cannot be run at all */
  START_HELLO_FAILED, /* it ran, but the handshake failed: a fault of the implementation */
  START_CUT,          /* the caller's stop time came before the hello answer: nobody's fault */
} start_outcome;

/* Starts a process and does the handshake; `err` is set unless START_OK. The first successful
 * hello fills base.info. The hello wait ends at the caller's stop time, as a request's does. On
 * START_HELLO_FAILED, *fault says how, as PROTOCOL.md names a request's faults: no answer in time
 * (timeout), a bad answer (protocol), or the process ended (crash). */
static start_outcome start_process(cs_subproc *s, cs_reply_status *fault, cs_err *err) {
  char why[600] = "";
  *fault = CS_REPLY_PROTOCOL;
  if (spawn_process(s, err))
    return START_SPAWN_FAILED;
  static const char hello[] = "{\"seq\":0,\"op\":\"hello\",\"protocol\":1}\n";
  cs_buf_put(&s->wbuf, hello, sizeof hello - 1);
  s->wqueued += sizeof hello - 1;
  s->b_sent = s->b_stamped = 0;
  flush_writes(s);
  unsigned hello_ms = s->deadline_ms > SP_HELLO_MIN_MS ? s->deadline_ms : SP_HELLO_MIN_MS;
  int64_t deadline = cs_now_ns() + (int64_t)hello_ms * 1000000;
  for (;;) {
    cs_str line;
    int r = take_line(s, &line);
    if (r > 0) {
      cs_impl_info info;
      bool first = s->name == NULL;
      char *name = NULL, *version = NULL; /* a restart's */
      if (cs_subprocess_parse_hello(line, &info, first ? &s->name : &name, first ? &s->version : &version,
                                    first ? s->unknown : NULL, sizeof s->unknown, why, sizeof why) != 0) {
        free(name);
        free(version);
        break;
      }
      if (first) {
        info.name = s->name;
        info.version = s->version;
        info.unknown = s->unknown;
        s->base.info = info;
        return START_OK;
      }
      /* The run plans its requests by the first hello: a restart that announces other ops or
       * targets would be sent requests it disowns, or skip some it took. Its name keys the report,
       * the corpus and fuzz results. */
      const cs_impl_info *was = &s->base.info;
      bool same_name = strcmp(name, s->name) == 0;
      if (!same_name)
        snprintf(why, sizeof why, "a restart's hello names the implementation '%s', the first hello '%s'",
                 cs_err_excerpt(name).s, cs_err_excerpt(s->name).s);
      free(name);
      free(version);
      if (same_name && info.ops == was->ops && info.emit_targets == was->emit_targets &&
          info.normalize_targets == was->normalize_targets && info.claims_canonical_v1 == was->claims_canonical_v1)
        return START_OK;
      if (same_name)
        snprintf(why, sizeof why, "a restart's hello announces other ops, targets or scheme than the first hello did");
      break;
    }
    if (r < 0) {
      snprintf(why, sizeof why, "hello answer line is longer than %zu bytes", s->max_line);
      break;
    }
    if (s->out_eof) {
      char how[80], unended[64];
      unended_note(s, unended, sizeof unended); /* before ending the process clears what it wrote */
      end_after_eof(s, how, sizeof how);
      snprintf(why, sizeof why, "the process %s before answering hello%s", how, unended);
      *fault = CS_REPLY_CRASH;
      break;
    }
    int left;
    wait_state w = wait_for(s, deadline, &left);
    if (w == WAIT_DEADLINE_PASSED) {
      char unended[64];
      unended_note(s, unended, sizeof unended);
      snprintf(why, sizeof why, "no answer to hello within %u ms%s", hello_ms, unended);
      *fault = CS_REPLY_TIMEOUT;
      break;
    }
    if (w == WAIT_STOP_CAME) {
      kill_process(s);
      cs_err_set(err, "'%s': %s before the hello answer", s->argv[0], stop_reason(s));
      return START_CUT;
    }
    pump(s, left);
  }
  char msg[sizeof why] = "";
  drain_stderr(s);
  if (s->pid)
    kill_process(s);
  put_flat(msg, sizeof msg, why, strlen(why)); /* the answer may hold any bytes */
  put_stderr(s, msg, sizeof msg);
  cs_err_set(err, "'%s': %s", s->argv[0], msg);
  return START_HELLO_FAILED;
}

/* Asks the process to stop, closes its stdin, waits a little, then kills it. Returns true and the
 * wait status in `*st` when it exited on its own. */
static bool stop_process(cs_subproc *s, int *st) {
  if (s->pid <= 0) {
    kill_process(s);
    return false;
  }
  if (!s->write_closed && s->wpos == s->wbuf.len) {
    char line[64];
    int n = snprintf(line, sizeof line, "{\"seq\":%llu,\"op\":\"stop\"}\n", (unsigned long long)s->next_seq++);
    while (write(s->to_child, line, (size_t)n) < 0 && errno == EINTR)
      ;
  }
  close_fd(&s->to_child);
  s->write_closed = true;
  return end_process(s, SP_STOP_GRACE_MS, st);
}

/* ---- requests and answers ---- */

static void describe_request(const cs_request *r, char *out, size_t n) {
  cs_request_kind_name(cs_request_kind(r), out, n);
}

static void queue_request(cs_subproc *s, const cs_request *r, uint64_t seq) {
  cs_buf *b = &s->wbuf;
  size_t before = b->len;
  if (s->wpos > 0 && s->wpos > b->len / 2) { /* drop what is written, amortised */
    memmove(b->data, b->data + s->wpos, b->len - s->wpos);
    b->len -= s->wpos;
    s->wpos = 0;
    before = b->len;
  }
  char num[24]; /* the seq in decimal, written back to front (printf costs more than a request) */
  size_t k = sizeof num;
  do
    num[--k] = (char)('0' + seq % 10);
  while ((seq /= 10) != 0);
  cs_buf_puts(b, "{\"seq\":");
  cs_buf_put(b, num + k, sizeof num - k);
  cs_buf_puts(b, ",\"op\":\"");
  cs_buf_puts(b, cs_op_name(r->op));
  cs_buf_putc(b, '"');
  if (r->op != CS_OP_CANONICALIZE) {
    cs_buf_puts(b, ",\"target\":\"");
    cs_buf_puts(b, cs_provider_name(r->target));
    cs_buf_putc(b, '"');
  }
  if (r->op == CS_OP_NORMALIZE) {
    cs_buf_puts(b, ",\"ids\":");
    cs_buf_json_strs(b, r->ids, r->nids);
  } else {
    cs_buf_puts(b, ",\"history\":");
    cs_history_write(b, r->history);
  }
  cs_buf_put(b, "}\n", 2);
  s->wqueued += b->len - before;
}

/* Reads `n` IDs (strings or null) of array `field` into `out`. 0, or -1 with `why`. */
static int read_ids(const cJSON *root, const char *field, uint32_t n, cs_str **out, cs_arena *a, char *why, size_t wn) {
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, field);
  if (!cJSON_IsArray(arr)) {
    snprintf(why, wn, "answer has no \"%s\" array", field);
    return -1;
  }
  int size = cJSON_GetArraySize(arr);
  if (size < 0 || (uint32_t)size != n) {
    snprintf(why, wn, "\"%s\" has %d entries, expected %u", field, size, n);
    return -1;
  }
  cs_str *ids = CS_ARENA_NEW(a, cs_str, n ? n : 1);
  uint32_t i = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, arr) {
    if (cJSON_IsNull(it)) {
      ids[i++] = CS_NULL_STR;
      continue;
    }
    if (!cJSON_IsString(it)) {
      snprintf(why, wn, "%s[%u] is neither a string nor null", field, i);
      return -1;
    }
    size_t len = strlen(it->valuestring);
    if (!cs_utf8_valid(it->valuestring, len, NULL)) {
      snprintf(why, wn, "%s[%u] is not valid UTF-8", field, i);
      return -1;
    }
    ids[i++] = cs_arena_str(a, cs_str_n(it->valuestring, len));
  }
  *out = ids;
  return 0;
}

/* Whether `v` is the seq of the request this process answered last: a program that writes an
 * answer twice is told so, not that its next answer is out of order. Only that one: a program
 * that numbers its answers itself, or always writes 0, is told the seq it should have written. */
static bool answered_last(double v, uint64_t seq, uint64_t first_seq) {
  return seq > first_seq && whole_number(v) && v == (double)(seq - 1);
}

/* Judges one answer line: OK, REJECTED (with the error text in `why`) or PROTOCOL (reason in `why`). */
cs_reply_status cs_subprocess_parse_answer(size_t max_line, const cs_request *r, uint64_t seq, uint64_t first_seq,
                                           cs_str line, cs_reply *out, cs_arena *a, char *why, size_t wn) {
  cs_err e;
  cs_reply_status st = CS_REPLY_PROTOCOL;
  cJSON *root = NULL;
  if (blank_line(line)) {
    snprintf(why, wn, "an empty line (each answer is one JSON object on one line)");
    return st;
  }
  if (cs_json_precheck(line, max_line, &e)) {
    snprintf(why, wn, "answer is not valid JSON text: %s", e.msg);
    return st;
  }
  const char *end = NULL;
  root = cJSON_ParseWithLengthOpts(line.ptr, line.len, &end, 0);
  if (!root) { /* the strict parser names the place and the reason (nesting, a lone surrogate, ...) */
    cJSON_Delete(cs_json_parse_strict(line, max_line, "the answer", &e));
    snprintf(why, wn, "answer is not valid JSON text: %s", e.msg);
    goto cleanup;
  }
  if (data_after(line, end)) {
    snprintf(why, wn, "answer has data after the JSON object");
    goto cleanup;
  }
  if (cs_json_strict_tokens(line, &e)) {
    snprintf(why, wn, "answer is not valid JSON text: %s", e.msg);
    goto cleanup;
  }
  if (!cJSON_IsObject(root)) {
    snprintf(why, wn, "answer is not a JSON object: '%.*s'", (int)(line.len < 60 ? line.len : 60), line.ptr);
    goto cleanup;
  }
  const char *dup;
  if (cs_json_repeated_name(root, &dup)) {
    snprintf(why, wn, "out of memory checking the answer's member names");
    goto cleanup;
  }
  if (dup) {
    snprintf(why, wn, "answer has the member \"%.60s\" twice (a name may occur once)", dup);
    goto cleanup;
  }
  const cJSON *sq = cJSON_GetObjectItemCaseSensitive(root, "seq");
  if (!cJSON_IsNumber(sq)) {
    snprintf(why, wn, "answer has no numeric \"seq\" (expected %llu)", (unsigned long long)seq);
    goto cleanup;
  }
  if (sq->valuedouble != (double)seq) {
    cs_buf num = {0};
    put_seq(&num, sq->valuedouble);
    if (answered_last(sq->valuedouble, seq, first_seq))
      snprintf(why, wn, "a second answer to seq %s (each request gets one answer)", num.data);
    else if (whole_number(sq->valuedouble))
      snprintf(why, wn, "answer has seq %s, expected %llu (answers come in request order)", num.data,
               (unsigned long long)seq);
    else
      snprintf(why, wn, "answer has seq %s, which is not a whole number (expected %llu)", num.data,
               (unsigned long long)seq);
    cs_buf_free(&num);
    goto cleanup;
  }
  const cJSON *err = cJSON_GetObjectItemCaseSensitive(root, "error");
  if (err && !cJSON_IsNull(err)) { /* null: no error, as in hello */
    if (!cJSON_IsString(err)) {
      snprintf(why, wn, "\"error\" is not a string");
      goto cleanup;
    }
    snprintf(why, wn, "%s", err->valuestring);
    st = CS_REPLY_REJECTED;
    goto cleanup;
  }
  if (r->op == CS_OP_NORMALIZE) {
    if (read_ids(root, "ids", r->nids, &out->ids, a, why, wn))
      goto cleanup;
    out->nids = r->nids;
  } else {
    uint32_t nc = cs_history_ncalls(r->history), nr = cs_history_nresults(r->history);
    if (read_ids(root, "calls", nc, &out->answer.calls, a, why, wn) ||
        read_ids(root, "results", nr, &out->answer.results, a, why, wn))
      goto cleanup;
    out->answer.ncalls = nc;
    out->answer.nresults = nr;
  }
  st = CS_REPLY_OK;
cleanup:
  cJSON_Delete(root);
  return st;
}

/* Records a fault for one request (message with the stderr tail) and ends the process. */
static void fault(cs_subproc *s, cs_reply *rep, cs_reply_status st, const char *detail, cs_arena *a) {
  char msg[1200] = "";
  drain_stderr(s);
  put_flat(msg, sizeof msg, detail, strlen(detail));
  put_stderr(s, msg, sizeof msg);
  memset(rep, 0, sizeof *rep);
  rep->status = st;
  rep->message = cs_arena_strc(a, msg);
  if (s->pid)
    kill_process(s);
}

static bool grow_slots(cs_subproc *s, size_t n) {
  if (n <= s->slots_cap)
    return true;
  size_t cap = s->slots_cap ? s->slots_cap : 64;
  while (cap < n)
    cap *= 2;
  uint64_t *sq = realloc(s->seqs, cap * sizeof *sq);
  if (sq)
    s->seqs = sq;
  uint64_t *so = realloc(s->start_off, cap * sizeof *so);
  if (so)
    s->start_off = so;
  int64_t *wt = realloc(s->wtime, cap * sizeof *wt);
  if (wt)
    s->wtime = wt;
  if (!sq || !so || !wt)
    return false;
  s->slots_cap = cap;
  return true;
}

static int check_request(const cs_request *r, size_t i, cs_err *err) {
  if (r->op != CS_OP_EMIT && r->op != CS_OP_CANONICALIZE && r->op != CS_OP_NORMALIZE)
    return cs_err_set(err, "request %zu: unknown op %d", i, (int)r->op);
  if (r->op != CS_OP_CANONICALIZE && (unsigned)r->target >= CS_TARGET_COUNT)
    return cs_err_set(err, "request %zu: target %d is not a target", i, (int)r->target);
  if (r->op != CS_OP_NORMALIZE && !r->history)
    return cs_err_set(err, "request %zu: %s without a history", i, cs_op_name(r->op));
  if (r->op == CS_OP_NORMALIZE && r->nids && !r->ids)
    return cs_err_set(err, "request %zu: normalize with %u ids but no array", i, r->nids);
  return 0;
}

/* The caller's stop time came: requests [from, n) are answered CS_REPLY_CUT, the oldest with how
 * long it had waited. A process with requests in flight is ended (its next answers would be out of
 * step); the next batch starts a new one, without blame. */
static void cut_rest(cs_subproc *s, const cs_request *reqs, cs_reply *replies, size_t from, size_t n, int64_t since,
                     cs_arena *a) {
  const char *why = stop_reason(s);
  for (size_t i = from; i < n; i++) {
    replies[i] = (cs_reply){.status = CS_REPLY_CUT};
    if (i > from)
      continue;
    char what[64];
    describe_request(&reqs[i], what, sizeof what);
    if (i < s->b_sent && s->pid > 0)
      replies[i].message = cs_arena_printf(a, "seq %llu (%s) was unanswered after %lld ms (deadline %u ms) when %s",
                                           (unsigned long long)s->seqs[i], what,
                                           (long long)((cs_now_ns() - since) / 1000000), s->deadline_ms, why);
    else
      replies[i].message = cs_arena_printf(a, "%s before %s was sent", why, what);
  }
  if (s->pid > 0 && s->b_sent > from)
    kill_process(s);
}

/* Is the kind of `r` given up (and giving up in force)? Its request is then not sent. */
static bool kind_given_up(const cs_subproc *s, const cs_request *r) {
  return s->base.give_up_after && (s->base.given_up >> cs_request_kind(r) & 1u);
}

/* Counts how request `r` ended, and gives up kinds as cs_impl.give_up_after says. An error answer
 * is an answer: the process read the request and lived. */
static void note_outcome(cs_subproc *s, const cs_request *r, cs_reply_status st) {
  unsigned k = cs_request_kind(r);
  if (st == CS_REPLY_OK || st == CS_REPLY_REJECTED) {
    s->answered_kinds |= 1u << k;
    s->answered_any = true;
    s->answered_total++;
    return;
  }
  if (st != CS_REPLY_CRASH && st != CS_REPLY_TIMEOUT && st != CS_REPLY_PROTOCOL)
    return;
  s->kind_faults[k]++;
  s->faults_total++;
  unsigned limit = s->base.give_up_after;
  if (!limit)
    return;
  if (!(s->answered_kinds >> k & 1u) && s->kind_faults[k] >= limit)
    s->base.given_up |= 1u << k;
  if (!s->answered_any && s->faults_total >= limit)
    s->base.given_up = CS_KINDS_ALL;
  /* A program that answers now and then but faults every few requests costs a restart each time,
   * seconds per case, hours per run: past ten times the limit in all, and one fault or more per ten
   * answers, every kind is given up. A rare fault (a crash in ten thousand requests) never is: a
   * long campaign goes on finding it. */
  if (s->faults_total >= 10u * limit && (uint64_t)s->faults_total * 10u >= s->answered_total)
    s->base.given_up = CS_KINDS_ALL;
}

static void skip(cs_reply *rep, const cs_request *r, cs_arena *a) {
  char what[64];
  describe_request(r, what, sizeof what);
  *rep = (cs_reply){.status = CS_REPLY_SKIPPED};
  rep->message = cs_arena_printf(a, "%s was given up: not sent", what);
}

/* cs_impl.first_fault_ends_exec: request recv - 1 faulted, so [recv, n) are not sent. A process
 * with requests in flight is ended (their answers would be out of step); the next call starts a
 * new one. */
static void skip_rest(cs_subproc *s, const cs_request *reqs, cs_reply *replies, size_t recv, size_t n, cs_arena *a) {
  char what[64];
  describe_request(&reqs[recv - 1], what, sizeof what);
  for (size_t i = recv; i < n; i++) {
    replies[i] = (cs_reply){.status = CS_REPLY_SKIPPED};
    replies[i].message = cs_arena_printf(a, "not sent: an earlier request of the batch (%s) faulted", what);
  }
  if (s->pid > 0 && s->b_sent > recv)
    kill_process(s);
}

/* Counts a start that failed at hello, or could not spawn at all (the program was removed or
 * replaced, or the system is out of processes or memory), toward SP_MAX_FAILED_STARTS, or clears
 * the count after a good one; a start that was cut leaves it as it was. */
static void note_start(cs_subproc *s, start_outcome so, const cs_err *e) {
  if (so == START_OK) {
    s->failed_starts = 0;
  } else if (so == START_HELLO_FAILED || so == START_SPAWN_FAILED) {
    s->failed_starts++;
    cs_err_set(&s->gave_up, "not restarted: the last %u restarts failed (%s)", SP_MAX_FAILED_STARTS, e->msg);
  }
}

static int sp_exec(cs_impl *self, const cs_request *reqs, cs_reply *replies, size_t n, cs_arena *a, cs_err *err) {
  cs_subproc *s = (cs_subproc *)self;
  char why[700], what[64], detail[900];
  for (size_t i = 0; i < n; i++)
    if (check_request(&reqs[i], i, err))
      return -1;
  if (!grow_slots(s, n))
    return cs_err_set(err, "out of memory for %zu requests", n);
  memset(replies, 0, n * sizeof *replies);
  /* A process that ended between batches (after its last answer) is replaced without blame. */
  if (s->pid > 0 && exit_state(s->pid) == 1)
    kill_process(s); /* reaps it, and ends what it left running */
  size_t recv = 0;
  int64_t head_since = cs_now_ns(); /* when the oldest unanswered request became the oldest */
  s->b_sent = s->b_stamped = 0;
  while (recv < n) {
    if (recv && s->base.first_fault_ends_exec && replies[recv - 1].status != CS_REPLY_OK &&
        replies[recv - 1].status != CS_REPLY_SKIPPED) {
      skip_rest(s, reqs, replies, recv, n, a);
      return 0;
    }
    /* Nothing in flight ahead of it (or nothing alive): a request of a given-up kind is answered
     * at once, without starting a process for it. */
    if ((recv == s->b_sent || s->pid <= 0) && kind_given_up(s, &reqs[recv])) {
      skip(&replies[recv], &reqs[recv], a);
      recv++;
      s->b_sent = s->b_stamped = recv;
      continue;
    }
    /* After the stop time no process is started and no request sent; what is in flight may still
     * be answered until then (below). */
    if ((s->pid <= 0 || s->b_sent == recv) && cs_impl_stop_came(&s->base)) {
      cut_rest(s, reqs, replies, recv, n, head_since, a);
      return 0;
    }
    if (s->pid <= 0 && s->failed_starts >= SP_MAX_FAILED_STARTS) {
      /* No request will be answered again: under giving up (not while shrinking), every kind is
       * given up, so a run or a campaign stops instead of counting cases that check nothing. */
      if (s->base.give_up_after)
        s->base.given_up = CS_KINDS_ALL;
      for (size_t i = recv; i < n; i++) {
        replies[i] = (cs_reply){.status = CS_REPLY_SKIPPED, .at_start = true};
        replies[i].message = cs_arena_strc(a, s->gave_up.msg);
      }
      return 0;
    }
    if (s->pid <= 0) {
      cs_err e;
      cs_reply_status fault;
      start_outcome so = start_process(s, &fault, &e);
      note_start(s, so, &e);
      if (so == START_CUT) {
        cut_rest(s, reqs, replies, recv, n, head_since, a);
        /* The request waited on the program's start: say so, or a hello that never comes reads as
         * a time too short for the request. */
        char req[64];
        describe_request(&reqs[recv], req, sizeof req);
        replies[recv].message = cs_arena_printf(a, "%s (%s waited on that start)", e.msg, req);
        return 0;
      }
      if (so == START_HELLO_FAILED || so == START_SPAWN_FAILED) {
        /* The batch's requests go unanswered the way the hello did, or as a crash when the program
         * could not be started again: a fault of protocol.answer, which keeps what the run found.
         * One fault is counted (the request the restart was for), as for a request that ends its
         * process. */
        if (so == START_SPAWN_FAILED)
          fault = CS_REPLY_CRASH;
        for (size_t i = recv; i < n; i++) {
          replies[i].status = fault;
          replies[i].message = cs_arena_printf(a, "restart failed: %s", e.msg);
          replies[i].at_start = true;
        }
        note_outcome(s, &reqs[recv], fault);
        return 0;
      }
      s->b_sent = s->b_stamped = recv;
      head_since = cs_now_ns();
    }
    /* Refill at half the window, so that many requests go out in one write(). */
    if (s->b_sent < n && !s->write_closed && s->b_sent - recv <= s->pipeline / 2) {
      while (s->b_sent < n && s->b_sent - recv < s->pipeline) {
        size_t i = s->b_sent++;
        s->start_off[i] = s->wqueued;
        s->seqs[i] = 0; /* seq 0 is hello's: here it marks a request not sent */
        if (kind_given_up(s, &reqs[i]))
          continue;
        s->seqs[i] = s->next_seq++;
        queue_request(s, &reqs[i], s->seqs[i]);
      }
      flush_writes(s);
    }
    if (recv < s->b_sent && s->seqs[recv] == 0) { /* not sent: its kind was given up when it was queued */
      skip(&replies[recv], &reqs[recv], a);
      recv++;
      continue;
    }
    cs_str line;
    int r = take_line(s, &line);
    const cs_request *rq = &reqs[recv];
    if (r > 0) {
      cs_reply_status st = cs_subprocess_parse_answer(s->max_line, rq, s->seqs[recv], s->first_seq, line,
                                                      &replies[recv], a, why, sizeof why);
      if (st == CS_REPLY_OK) {
        replies[recv].status = st;
      } else if (st == CS_REPLY_REJECTED) {
        describe_request(rq, what, sizeof what);
        char text[900] = "";
        put_flat(text, sizeof text, why, strlen(why));
        replies[recv] = (cs_reply){.status = st};
        replies[recv].message =
            cs_arena_printf(a, "error answer to seq %llu (%s): %s", (unsigned long long)s->seqs[recv], what, text);
      } else {
        describe_request(rq, what, sizeof what);
        snprintf(detail, sizeof detail, "bad answer to seq %llu (%s): %s", (unsigned long long)s->seqs[recv], what,
                 why);
        fault(s, &replies[recv], st, detail, a);
      }
      note_outcome(s, rq, st);
      recv++;
      head_since = cs_now_ns();
      continue;
    }
    describe_request(rq, what, sizeof what);
    if (r < 0) {
      snprintf(detail, sizeof detail, "answer to seq %llu (%s) is longer than %zu bytes",
               (unsigned long long)s->seqs[recv], what, s->max_line);
      fault(s, &replies[recv], CS_REPLY_PROTOCOL, detail, a);
      note_outcome(s, rq, CS_REPLY_PROTOCOL);
      recv++;
      continue;
    }
    if (s->out_eof) {
      char how[80], unended[64];
      unended_note(s, unended, sizeof unended); /* before ending the process clears what it wrote */
      end_after_eof(s, how, sizeof how);
      snprintf(detail, sizeof detail, "the process %s before answering seq %llu (%s)%s", how,
               (unsigned long long)s->seqs[recv], what, unended);
      fault(s, &replies[recv], CS_REPLY_CRASH, detail, a);
      note_outcome(s, rq, CS_REPLY_CRASH);
      recv++;
      continue;
    }
    int64_t since = head_since;
    if (s->b_stamped > recv && s->wtime[recv] > since)
      since = s->wtime[recv];
    int64_t deadline = since + (int64_t)s->deadline_ms * 1000000;
    /* A request the process closed its stdin before it got can never be answered: waiting out the
     * deadline for it would read as a hang. A short grace lets a process that died say so on
     * stdout (a crash) first. */
    uint64_t end = recv + 1 < s->b_sent ? s->start_off[recv + 1] : s->wqueued;
    bool undelivered = s->stdin_closed_ns && s->wdone < end;
    if (undelivered && s->stdin_closed_ns + SP_CLOSED_GRACE_NS < deadline)
      deadline = s->stdin_closed_ns + SP_CLOSED_GRACE_NS;
    int left;
    wait_state w = wait_for(s, deadline, &left);
    if (w == WAIT_DEADLINE_PASSED && undelivered) {
      snprintf(detail, sizeof detail, "the process closed its stdin before seq %llu (%s) was sent to it",
               (unsigned long long)s->seqs[recv], what);
      fault(s, &replies[recv], CS_REPLY_PROTOCOL, detail, a);
      note_outcome(s, rq, CS_REPLY_PROTOCOL);
      recv++;
      continue;
    }
    if (w == WAIT_DEADLINE_PASSED) {
      char unended[64];
      unended_note(s, unended, sizeof unended);
      snprintf(detail, sizeof detail, "no answer to seq %llu (%s) within %u ms%s%s", (unsigned long long)s->seqs[recv],
               what, s->deadline_ms, unended, s->stdin_closed_ns ? " (the process had closed its stdin)" : "");
      fault(s, &replies[recv], CS_REPLY_TIMEOUT, detail, a);
      note_outcome(s, rq, CS_REPLY_TIMEOUT);
      recv++;
      continue;
    }
    if (w == WAIT_STOP_CAME) {
      cut_rest(s, reqs, replies, recv, n, since, a);
      return 0;
    }
    pump(s, left);
  }
  return 0;
}

static int sp_restart(cs_impl *self, cs_err *err) {
  cs_subproc *s = (cs_subproc *)self;
  stop_process(s, NULL);
  if (s->failed_starts >= SP_MAX_FAILED_STARTS) {
    if (err)
      *err = s->gave_up;
    return -1;
  }
  cs_reply_status fault;
  start_outcome so = start_process(s, &fault, err);
  note_start(s, so, err);
  return so == START_OK ? 0 : -1;
}

static cs_str sp_stderr_tail(cs_impl *self) {
  const cs_subproc *s = (const cs_subproc *)self;
  cs_str t = tail_view(s);
  /* The last lines: when more was written than is kept, the kept bytes start inside a line. */
  const char *nl = s->err_total > t.len ? memchr(t.ptr, '\n', t.len) : NULL;
  if (nl && nl + 1 < t.ptr + t.len)
    t = (cs_str){nl + 1, (size_t)(t.ptr + t.len - (nl + 1))};
  return t;
}

/* PROTOCOL.md: on stop the program exits with status 0. One still running after the grace is
 * killed without a word (a slow exit is no fault); one that ended otherwise is named, and so are
 * lines it wrote after its last answer: every request sent to a live process was answered (a cut
 * or a fault ends the process), so no request asked for them, and no later one shows them. */
static int sp_stop(cs_impl *self, char *why, size_t n) {
  cs_subproc *s = (cs_subproc *)self;
  size_t extra = 0;
  if (s->pid > 0 && s->from_child >= 0 && !s->out_eof) {
    /* A line written right after the last answer is on its way: a moment lets it arrive. */
    struct pollfd p = {.fd = s->from_child, .events = POLLIN};
    if (poll(&p, 1, SP_EXTRA_WAIT_MS) > 0)
      read_stdout(s);
    extra = s->rbuf.len - s->rpos;
  }
  int st;
  bool own = stop_process(s, &st), bad_exit = own && !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  if (!extra && !bad_exit)
    return 0;
  char how[120] = "";
  if (bad_exit)
    describe_status(st, how, sizeof how);
  if (extra)
    snprintf(why, n, "wrote %zu byte%s after its last answer, which no request asked for%s%s", extra,
             extra == 1 ? "" : "s", bad_exit ? ", and " : "", how);
  else
    snprintf(why, n, "%s", how);
  return 1;
}

static void sp_destroy(cs_impl *self) {
  cs_subproc *s = (cs_subproc *)self;
  if (!s)
    return;
  stop_process(s, NULL);
  if (s->argv)
    for (char **p = s->argv; *p; p++)
      free(*p);
  free(s->argv);
  free(s->name);
  free(s->version);
  cs_buf_free(&s->wbuf);
  cs_buf_free(&s->rbuf);
  free(s->tail);
  free(s->scratch);
  free(s->seqs);
  free(s->start_off);
  free(s->wtime);
  free(s);
}

static const cs_impl_vtable subprocess_vtable = {
    .exec = sp_exec,
    .restart = sp_restart,
    .stderr_tail = sp_stderr_tail,
    .stop = sp_stop,
    .destroy = sp_destroy,
};

/* Writes to a dead child must fail with EPIPE (a crash of the implementation), not kill the
 * harness. The disposition is process-wide, so it is changed only while it is still the default. */
static void ignore_sigpipe(void) {
  struct sigaction old;
  if (sigaction(SIGPIPE, NULL, &old) == 0 && old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO))
    signal(SIGPIPE, SIG_IGN);
}

cs_impl *cs_subprocess_open(char *const argv[], const cs_subprocess_config *cfg, cs_err *err) {
  if (!argv || !argv[0] || !argv[0][0]) {
    cs_err_set(err, "no program given for the implementation");
    return NULL;
  }
  ignore_sigpipe();
  cs_subproc *s = calloc(1, sizeof *s);
  if (!s) {
    cs_err_set(err, "out of memory");
    return NULL;
  }
  s->base.vt = &subprocess_vtable;
  s->live_slot = -1;
  s->to_child = s->from_child = s->err_child = -1;
  s->next_seq = 1;
  s->deadline_ms = cfg && cfg->deadline_ms ? cfg->deadline_ms : SP_DEFAULT_DEADLINE_MS;
  s->tail_keep = cfg && cfg->stderr_tail ? cfg->stderr_tail : SP_DEFAULT_TAIL;
  s->pipeline = cfg && cfg->pipeline ? cfg->pipeline : SP_DEFAULT_PIPELINE;
  s->max_line = cfg && cfg->max_line ? cfg->max_line : SP_DEFAULT_MAX_LINE;
  size_t argc = 0;
  while (argv[argc])
    argc++;
  s->argv = calloc(argc + 1, sizeof *s->argv);
  s->tail = malloc(2 * s->tail_keep);
  s->scratch = malloc(SP_READ_CHUNK);
  bool ok = s->argv && s->tail && s->scratch;
  for (size_t i = 0; ok && i < argc; i++)
    ok = (s->argv[i] = dup_str(argv[i])) != NULL;
  if (!ok) {
    cs_err_set(err, "out of memory");
    sp_destroy(&s->base);
    return NULL;
  }
  cs_reply_status fault;
  if (start_process(s, &fault, err) != START_OK) {
    sp_destroy(&s->base);
    return NULL;
  }
  return &s->base;
}
