/* tests/unit/test_workers.c: the worker pool: every message of every worker arrives whole and in
 * order (small ones and one larger than a pipe holds), progress is summed over the workers, exit
 * statuses and signals are reported, a frame cut short is named as a broken report, and the
 * workers' shards cover their part once. A message longer than a frame arrives whole. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/workers.h"

#define BIG (3u << 20) /* larger than any pipe buffer: the parent must read while the worker writes */

typedef struct {
  unsigned got[8];    /* messages per worker */
  bool in_order[8];   /* each worker's messages came numbered 0, 1, 2, ... */
  size_t big_len[8];  /* the length of the big message, if it came */
  bool big_intact[8]; /* its bytes were the ones sent */
  unsigned ticks;
  uint64_t last_cases, last_failing; /* the sums the last tick saw */
} seen;

static int work_messages(void *user, unsigned j, unsigned n, int fd) {
  (void)user;
  cr_assert_lt(j, n);
  /* progress: only the latest of a worker counts */
  if (cs_worker_progress(fd, 1, 1) || cs_worker_progress(fd, 10 * (j + 1), j))
    return 9;
  for (unsigned k = 0; k < 100; k++) {
    char msg[32];
    int len = snprintf(msg, sizeof msg, "%u %u", j, k);
    if (cs_worker_send(fd, 'm', msg, (size_t)len))
      return 9;
  }
  char *big = malloc(BIG);
  for (size_t i = 0; i < BIG; i++)
    big[i] = (char)(i * 7 + j);
  int rc = cs_worker_send(fd, 'b', big, BIG);
  free(big);
  return rc ? 9 : (int)j; /* the exit status says which worker it was */
}

static void on_message(void *user, unsigned j, char type, const char *data, size_t len) {
  seen *s = user;
  if (type == 'm') {
    unsigned wj, k;
    char text[32];
    snprintf(text, sizeof text, "%.*s", (int)len, data);
    cr_assert_eq(sscanf(text, "%u %u", &wj, &k), 2);
    if (s->got[j] == 0)
      s->in_order[j] = true;
    s->in_order[j] = s->in_order[j] && wj == j && k == s->got[j];
    s->got[j]++;
  } else if (type == 'b') {
    s->big_len[j] = len;
    bool same = true;
    for (size_t i = 0; i < len && same; i++)
      same = data[i] == (char)(i * 7 + j);
    s->big_intact[j] = same;
  }
}

static void on_tick(void *user, uint64_t cases, uint64_t failing) {
  seen *s = user;
  s->ticks++;
  s->last_cases = cases;
  s->last_failing = failing;
}

Test(workers, every_message_arrives_whole_and_in_order) {
  seen s;
  memset(&s, 0, sizeof s);
  cs_workers_config cfg = {.n = 3, .work = work_messages, .on_message = on_message, .on_tick = on_tick, .user = &s};
  cs_worker_end ends[3];
  cs_err err = {{0}};
  cr_assert_eq(cs_workers_run(&cfg, ends, &err), 0, "%s", err.msg);
  for (unsigned j = 0; j < 3; j++) {
    cr_assert_eq(s.got[j], 100, "worker %u: %u messages", j, s.got[j]);
    cr_assert(s.in_order[j], "worker %u: out of order", j);
    cr_assert_eq(s.big_len[j], BIG);
    cr_assert(s.big_intact[j], "worker %u: the big message changed on the way", j);
    cr_assert_eq(ends[j].exit_status, (int)j);
    cr_assert_eq(ends[j].signal, 0);
    cr_assert(!ends[j].broken);
  }
  cr_assert_gt(s.ticks, 0);
  cr_assert_eq(s.last_cases, 10 + 20 + 30, "the latest progress of each worker, summed");
  cr_assert_eq(s.last_failing, 0 + 1 + 2);
}

static int work_dies(void *user, unsigned j, unsigned n, int fd) {
  (void)user;
  (void)n;
  if (j == 1) {
    /* a frame header that promises 100 bytes, then death */
    const unsigned char cut[] = {'x', 100, 0, 0, 0, 'a', 'b'};
    cr_assert_eq(write(fd, cut, sizeof cut), (ssize_t)sizeof cut);
    raise(SIGKILL);
  }
  if (j == 2) {
    const unsigned char cut[] = {'x', 100, 0, 0, 0, 'a', 'b'};
    cr_assert_eq(write(fd, cut, sizeof cut), (ssize_t)sizeof cut);
    return 0;
  }
  return cs_worker_send(fd, 'm', "0 0", 3) ? 9 : 4;
}

Test(workers, ends_are_reported_and_cut_frames_named) {
  seen s;
  memset(&s, 0, sizeof s);
  cs_workers_config cfg = {.n = 3, .work = work_dies, .on_message = on_message, .user = &s};
  cs_worker_end ends[3];
  cs_err err = {{0}};
  cr_assert_eq(cs_workers_run(&cfg, ends, &err), 0, "%s", err.msg);
  cr_assert_eq(s.got[0], 1);
  cr_assert_eq(ends[0].exit_status, 4);
  cr_assert_eq(s.got[1], 0, "a frame cut short is not handed on");
  cr_assert_eq(ends[1].signal, SIGKILL);
  cr_assert_eq(ends[1].exit_status, -1);
  cr_assert(ends[2].broken, "a worker that exits mid-frame sent a broken report");
  char msg[200];
  cs_worker_end_describe(0, &ends[0], msg, sizeof msg);
  cr_assert_str_eq(msg, "worker 0 exited with status 4");
  cs_worker_end_describe(1, &ends[1], msg, sizeof msg);
  cr_assert(strstr(msg, "worker 1 was killed by signal 9") == msg, "%s", msg);
  cs_worker_end_describe(2, &ends[2], msg, sizeof msg);
  cr_assert_str_eq(msg, "worker 2 sent a broken report");
}

Test(workers, shards_cover_the_part_once) {
  uint32_t i, n;
  cs_worker_shard(0, 0, 2, 3, &i, &n);
  cr_assert(i == 2 && n == 3, "no --shard: worker 2 of 3 runs shard 2/3");
  /* --shard 1/4 with 3 workers: shards 1, 5, 9 of 12, i.e. exactly the indices = 1 mod 4 */
  bool hit[48] = {false};
  for (unsigned j = 0; j < 3; j++) {
    cs_worker_shard(1, 4, j, 3, &i, &n);
    cr_assert_eq(n, 12);
    for (uint32_t c = i; c < 48; c += n) {
      cr_assert(!hit[c], "case %u twice", c);
      hit[c] = true;
    }
  }
  for (uint32_t c = 0; c < 48; c++)
    cr_assert_eq(hit[c], c % 4 == 1, "case %u", c);
}

/* A message longer than a frame (a result with long IDs in its failing cases) goes in parts and
 * arrives whole, between other messages, in order. */
#define HUGE_LEN (2 * (size_t)CS_WORKER_FRAME_MAX + 3)

static int work_huge(void *user, unsigned j, unsigned n, int fd) {
  (void)user;
  (void)n;
  char *huge = malloc(HUGE_LEN);
  if (!huge)
    return 8;
  for (size_t i = 0; i < HUGE_LEN; i++)
    huge[i] = (char)(i * 13 + j);
  int rc =
      cs_worker_send(fd, 'm', "0 0", 3) || cs_worker_send(fd, 'b', huge, HUGE_LEN) || cs_worker_send(fd, 'm', "0 1", 3);
  free(huge);
  return rc ? 9 : 0;
}

static size_t huge_len;
static bool huge_intact, huge_between;

static void on_huge(void *user, unsigned j, char type, const char *data, size_t len) {
  seen *s = user;
  if (type == 'b') {
    huge_len = len;
    huge_intact = true;
    for (size_t i = 0; i < len && huge_intact; i++)
      huge_intact = data[i] == (char)(i * 13 + j);
    huge_between = s->got[j] == 1;
  } else {
    on_message(user, j, type, data, len);
  }
}

Test(workers, a_message_longer_than_a_frame_arrives_whole) {
  seen s;
  memset(&s, 0, sizeof s);
  cs_workers_config cfg = {.n = 1, .work = work_huge, .on_message = on_huge, .user = &s};
  cs_worker_end ends[1];
  cs_err err = {{0}};
  cr_assert_eq(cs_workers_run(&cfg, ends, &err), 0, "%s", err.msg);
  cr_assert_eq(ends[0].exit_status, 0, "the worker could send it (status %d)", ends[0].exit_status);
  cr_assert(!ends[0].broken);
  cr_assert_eq(huge_len, HUGE_LEN);
  cr_assert(huge_intact, "its bytes were the ones sent");
  cr_assert(huge_between, "it came after the message sent before it");
  cr_assert_eq(s.got[0], 2);
  cr_assert(s.in_order[0]);
}

static int work_mixed_parts(void *user, unsigned j, unsigned n, int fd) {
  (void)user;
  (void)j;
  (void)n;
  /* the first part of a long 'b', then a whole 'm': not a message the pool can join */
  const unsigned char frames[] = {'b' | CS_WORKER_MORE, 2, 0, 0, 0, 'x', 'y', 'm', 3, 0, 0, 0, '0', ' ', '0'};
  return write(fd, frames, sizeof frames) == (ssize_t)sizeof frames ? 0 : 9;
}

Test(workers, a_part_followed_by_another_type_is_a_broken_report) {
  seen s;
  memset(&s, 0, sizeof s);
  cs_workers_config cfg = {.n = 1, .work = work_mixed_parts, .on_message = on_message, .user = &s};
  cs_worker_end ends[1];
  cs_err err = {{0}};
  cr_assert_eq(cs_workers_run(&cfg, ends, &err), 0, "%s", err.msg);
  cr_assert_eq(ends[0].exit_status, 0);
  cr_assert(ends[0].broken);
  cr_assert_eq(s.got[0], 0);
  cr_assert_eq(s.big_len[0], 0);
  cr_assert_eq(cs_worker_send(-1, (char)('b' | CS_WORKER_MORE), "", 0), -1, "types are below CS_WORKER_MORE");
}
