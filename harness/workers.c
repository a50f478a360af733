/* harness/workers.c: forking the workers, framing their messages, and the parent's poll loop. */
#include "harness/workers.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/wait.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"

#define HEADER 5 /* type byte, 32-bit little-endian length */
#define TICK_MS 200
#define CS_WORKER_ORPHAN_EXIT 3 /* never read: no parent is left to read it */

static int write_all(int fd, const void *p, size_t n) {
  const char *s = p;
  while (n) {
    ssize_t k = write(fd, s, n);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return -1;
    s += k;
    n -= (size_t)k;
  }
  return 0;
}

int cs_worker_send(int fd, char type, const void *data, size_t len) {
  if (len > CS_WORKER_MESSAGE_MAX)
    return -1;
  unsigned char h[HEADER] = {(unsigned char)type, (unsigned char)len, (unsigned char)(len >> 8),
                             (unsigned char)(len >> 16), (unsigned char)(len >> 24)};
  /* One write for a small message: frames of workers never interleave (one pipe each), but fewer
   * wake-ups of the parent. */
  if (len <= 4096 - HEADER) {
    char one[4096];
    memcpy(one, h, HEADER);
    if (len)
      memcpy(one + HEADER, data, len);
    return write_all(fd, one, HEADER + len);
  }
  return write_all(fd, h, HEADER) || write_all(fd, data, len) ? -1 : 0;
}

int cs_worker_progress(int fd, uint64_t cases, uint64_t failing) {
  unsigned char b[16];
  for (int i = 0; i < 8; i++) {
    b[i] = (unsigned char)(cases >> (8 * i));
    b[8 + i] = (unsigned char)(failing >> (8 * i));
  }
  return cs_worker_send(fd, CS_WORKER_PROGRESS, b, sizeof b);
}

void cs_worker_shard(uint32_t shard_i, uint32_t shard_n, unsigned j, unsigned n, uint32_t *out_i, uint32_t *out_n) {
  uint32_t si = shard_n ? shard_i : 0, sn = shard_n ? shard_n : 1;
  *out_i = si + sn * j;
  *out_n = sn * n;
}

typedef struct {
  pid_t pid;
  int fd; /* -1 once closed */
  cs_buf in;
  bool broken;
  uint64_t cases, failing; /* its latest progress */
} worker;

static uint64_t get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* Hands the whole frames at the start of w->in to the caller and keeps the rest. */
static void take_frames(const cs_workers_config *cfg, unsigned j, worker *w) {
  size_t at = 0;
  while (w->in.len - at >= HEADER && !w->broken) {
    const unsigned char *h = (const unsigned char *)w->in.data + at;
    size_t len = (size_t)h[1] | (size_t)h[2] << 8 | (size_t)h[3] << 16 | (size_t)h[4] << 24;
    if (len > CS_WORKER_MESSAGE_MAX) {
      w->broken = true;
      break;
    }
    if (w->in.len - at - HEADER < len)
      break;
    if (h[0] == (unsigned char)CS_WORKER_PROGRESS && len == 16) {
      w->cases = get_u64(h + HEADER);
      w->failing = get_u64(h + HEADER + 8);
    } else if (h[0] != (unsigned char)CS_WORKER_PROGRESS) {
      cfg->on_message(cfg->user, j, (char)h[0], w->in.data + at + HEADER, len);
    }
    at += HEADER + len;
  }
  if (at) {
    memmove(w->in.data, w->in.data + at, w->in.len - at);
    w->in.len -= at;
  }
}

static void end_of(int status, cs_worker_end *e) {
  e->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  e->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

int cs_workers_run(const cs_workers_config *cfg, cs_worker_end *ends, cs_err *err) {
  unsigned n = cfg->n, started = 0;
  pid_t parent = getpid(); /* the workers check that it is still there */
  (void)parent;
  int rc = 0;
  worker *ws = cs_xcalloc(n, sizeof *ws);
  struct pollfd *pf = cs_xcalloc(n, sizeof *pf);
  for (unsigned j = 0; j < n; j++)
    ends[j] = (cs_worker_end){.exit_status = -1};
  fflush(stdout);
  fflush(stderr);
  for (; started < n; started++) {
    int fds[2];
    /* Close-on-exec after the fact is safe here: the parent starts no process of its own while it
     * forks the workers. */
    if (pipe(fds)) {
      rc = cs_err_set(err, "cannot create a pipe for worker %u: %s", started, strerror(errno));
      break;
    }
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    pid_t pid = fork();
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      rc = cs_err_set(err, "cannot start worker %u: %s", started, strerror(errno));
      break;
    }
    if (pid == 0) {
#ifdef __linux__
      /* A parent ended by a signal (a CI runner's SIGTERM to it alone) takes its workers with it:
       * SIGTERM ends a worker as it ends callsign, with the implementations it started. */
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != parent) /* the parent was gone before the call */
        _exit(CS_WORKER_ORPHAN_EXIT);
#endif
      close(fds[0]);
      for (unsigned k = 0; k < started; k++)
        close(ws[k].fd);
      int status = cfg->work(cfg->user, started, n, fds[1]);
      close(fds[1]);
      fflush(stdout);
      fflush(stderr);
      _exit(status);
    }
    close(fds[1]);
    ws[started] = (worker){.pid = pid, .fd = fds[0]};
  }
  unsigned open = started;
  bool forwarded = false;
  while (open) {
    if (cfg->interrupt && *cfg->interrupt && !forwarded) {
      for (unsigned k = 0; k < started; k++)
        if (ws[k].fd >= 0)
          kill(ws[k].pid, SIGTERM);
      forwarded = true;
    }
    for (unsigned k = 0; k < started; k++)
      pf[k] = (struct pollfd){ws[k].fd, POLLIN, 0};
    if (poll(pf, started, TICK_MS) < 0 && errno != EINTR)
      break;
    for (unsigned k = 0; k < started; k++) {
      if (ws[k].fd < 0 || !(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char buf[65536];
      ssize_t got = read(ws[k].fd, buf, sizeof buf);
      if (got < 0 && errno == EINTR)
        continue;
      if (got > 0 && !ws[k].broken) {
        cs_buf_put(&ws[k].in, buf, (size_t)got);
        take_frames(cfg, k, &ws[k]);
      } else if (got <= 0) {
        close(ws[k].fd);
        ws[k].fd = -1;
        open--;
      }
    }
    if (cfg->on_tick) {
      uint64_t cases = 0, failing = 0;
      for (unsigned k = 0; k < started; k++) {
        cases += ws[k].cases;
        failing += ws[k].failing;
      }
      cfg->on_tick(cfg->user, cases, failing);
    }
  }
  for (unsigned k = 0; k < started; k++) {
    if (ws[k].fd >= 0) { /* poll failed: stop reading, the worker may be blocked on a full pipe */
      close(ws[k].fd);
      kill(ws[k].pid, SIGKILL);
    }
    int st = 0;
    while (waitpid(ws[k].pid, &st, 0) < 0 && errno == EINTR)
      ;
    end_of(st, &ends[k]);
    ends[k].broken = ws[k].broken || ws[k].in.len > 0;
    cs_buf_free(&ws[k].in);
  }
  free(ws);
  free(pf);
  return rc;
}

void cs_worker_end_describe(unsigned j, const cs_worker_end *e, char *out, size_t n) {
  if (e->signal)
    snprintf(out, n, "worker %u was killed by signal %d (%s)", j, e->signal, strsignal(e->signal));
  else if (e->exit_status < 0)
    snprintf(out, n, "worker %u did not start", j);
  else if (e->broken)
    snprintf(out, n, "worker %u sent a broken report", j);
  else
    snprintf(out, n, "worker %u exited with status %d", j, e->exit_status);
}
