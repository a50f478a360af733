/* harness/workers.h: worker processes that report to their parent, for `fuzz --jobs` and
 * `run --jobs`. cs_workers_run forks N workers; each runs `work` and sends framed messages (a type
 * byte, a 32-bit little-endian length, the payload) over a pipe of its own; the parent polls every
 * pipe, hands each whole message to `on_message` as it arrives, keeps each worker's latest
 * progress, hands the sums to `on_tick` between reads, and reaps every worker. The pipes are
 * close-on-exec, so an implementation a worker starts does not hold its pipe open past the
 * worker's end. Also how workers split the part of the case space they were given. */
#ifndef CS_HARNESS_WORKERS_H
#define CS_HARNESS_WORKERS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define CS_WORKERS_MAX 256

/* Framing. A message travels as frames: a type byte, a 32-bit little-endian length, that many
 * bytes. A message of at most CS_WORKER_FRAME_MAX bytes is one frame of its own type; a longer one
 * (a result whose failing cases hold megabytes of IDs) is cut into frames of CS_WORKER_FRAME_MAX
 * bytes whose type has CS_WORKER_MORE set, then a last frame (of at most that many bytes, maybe
 * none) of the plain type. The parent joins the parts and hands on the whole message: a message
 * has no length limit but memory. A frame longer than CS_WORKER_FRAME_MAX, or a part followed by a
 * frame of another type, is a broken worker. Message types are below CS_WORKER_MORE. */
#define CS_WORKER_FRAME_MAX (16u << 20)
#define CS_WORKER_MORE 0x80

typedef struct {
  unsigned n; /* workers, 1 to CS_WORKERS_MAX */
  /* In worker j of n (a forked child): its work. The return value is its exit status. */
  int (*work)(void *user, unsigned j, unsigned n, int fd);
  /* In the parent: one whole message of worker j, in the order sent (progress excepted). */
  void (*on_message)(void *user, unsigned j, char type, const char *data, size_t len);
  /* In the parent, at least every 200 ms while workers run (NULL: none): the sums over the workers
   * of the latest progress each reported (cs_worker_progress). */
  void (*on_tick)(void *user, uint64_t cases, uint64_t failing);
  void *user;
  /* NULL: none. Once it reads nonzero in the parent, every worker is sent SIGTERM, once: a signal
   * that reached the parent alone (a CI runner's SIGTERM) stops the workers too. */
  const volatile sig_atomic_t *interrupt;
} cs_workers_config;

/* What became of one worker. */
typedef struct {
  int exit_status; /* its exit status, or -1 when it did not exit normally */
  int signal;      /* the signal that ended it, or 0 */
  bool broken;     /* it sent a malformed frame or left a frame unfinished */
} cs_worker_end;

/* Runs the workers to their end; ends[j] says how worker j ended. Returns 0, or -1 with `err` when
 * a worker could not be started (the workers already started are still run to their end, and the
 * later ones get exit_status -1). stdout and stderr are flushed before forking. */
int cs_workers_run(const cs_workers_config *cfg, cs_worker_end *ends, cs_err *err);

/* In a worker: sends one message, of any length. Returns 0, or -1 when the parent no longer reads
 * (or `type` is not below CS_WORKER_MORE). Type CS_WORKER_PROGRESS is the pool's own. */
int cs_worker_send(int fd, char type, const void *data, size_t len);
#define CS_WORKER_PROGRESS '\0'
/* In a worker: reports how far it is (cases run, failing checks, as the runner counts them). */
int cs_worker_progress(int fd, uint64_t cases, uint64_t failing);

/* The shard worker j of n runs within the part shard_i/shard_n (shard_n 0: the whole case space):
 * shard_i + S*j of S*n, with S = shard_n or 1. The n workers together run each case of the part
 * once. */
void cs_worker_shard(uint32_t shard_i, uint32_t shard_n, unsigned j, unsigned n, uint32_t *out_i, uint32_t *out_n);

/* "worker 2 was killed by signal 9", "worker 0 exited with status 3": one line for a worker that
 * did not end with status 0, for the caller's error. */
void cs_worker_end_describe(unsigned j, const cs_worker_end *e, char *out, size_t n);

#endif
