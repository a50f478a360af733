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

static int send_frame(int fd, unsigned char type, const char *data, size_t len) {
  unsigned char h[HEADER] = {type, (unsigned char)len, (unsigned char)(len >> 8), (unsigned char)(len >> 16),
                             (unsigned char)(len >> 24)};
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

int cs_worker_send(int fd, char type, const void *data, size_t len) {
  unsigned char t = (unsigned char)type;
  if (t & CS_WORKER_MORE)
    return -1;
  const char *p = data;
  for (; len > CS_WORKER_FRAME_MAX; p += CS_WORKER_FRAME_MAX, len -= CS_WORKER_FRAME_MAX)
    if (send_frame(fd, t | CS_WORKER_MORE, p, CS_WORKER_FRAME_MAX))
      return -1;
  return send_frame(fd, t, p, len);
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
  cs_buf part;   /* the parts so far of a message longer than a frame */
  int part_type; /* their type, or -1 when none came */
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
    if (len > CS_WORKER_FRAME_MAX) {
      w->broken = true;
      break;
    }
    if (w->in.len - at - HEADER < len)
      break;
    const char *data = w->in.data + at + HEADER;
    int type = h[0] & ~CS_WORKER_MORE;
    at += HEADER + len;
    if (w->part_type >= 0 && type != w->part_type) { /* a message's parts are sent together */
      w->broken = true;
      break;
    }
    if (h[0] & CS_WORKER_MORE) {
      cs_buf_put(&w->part, data, len);
      w->part_type = type;
      continue;
    }
    if (w->part_type >= 0) {
      cs_buf_put(&w->part, data, len);
      if (type != (unsigned char)CS_WORKER_PROGRESS)
        cfg->on_message(cfg->user, j, (char)type, w->part.data, w->part.len);
      cs_buf_free(&w->part); /* a long message does not keep its memory past its delivery */
      w->part_type = -1;
    } else if (type == (unsigned char)CS_WORKER_PROGRESS && len == 16) {
      w->cases = get_u64((const unsigned char *)data);
      w->failing = get_u64((const unsigned char *)data + 8);
    } else if (type != (unsigned char)CS_WORKER_PROGRESS) {
      cfg->on_message(cfg->user, j, (char)type, data, len);
    }
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
    ws[started] = (worker){.pid = pid, .fd = fds[0], .part_type = -1};
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
    ends[k].broken = ws[k].broken || ws[k].in.len > 0 || ws[k].part_type >= 0;
    cs_buf_free(&ws[k].in);
    cs_buf_free(&ws[k].part);
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
