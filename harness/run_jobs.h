/* harness/run_jobs.h: `run --jobs N`. One implementation's case space is split among N worker
 * processes, each with its own instance of the implementation: worker j runs shard I + S*j of S*N
 * (I/S from --shard, 0/1 without), so --shard and --jobs compose and every case runs once. Worker 0
 * alone replays the literal and corpus cases. Their results are merged into the result one process
 * would give: per property, the failure of the earliest case (a literal or corpus case before any
 * generated one, then the lowest case index), shrunk by the worker that ran it exactly as one
 * process would shrink it; cases, statistics and faults summed; given-up kinds joined. What may
 * differ: a failing property's count of cases checked (each worker checks it up to its own first
 * failure), answers of an implementation whose answers depend on what it was asked before, and,
 * for a program slow enough to reach the shrinking time limits (each worker's own), which failures
 * are left unshrunk. */
#ifndef CS_HARNESS_RUN_JOBS_H
#define CS_HARNESS_RUN_JOBS_H

#include "core/buf.h"
#include "harness/runner.h"

/* Opens a new instance of the implementation (in a worker); NULL with `err` when it cannot. */
typedef cs_impl *(*cs_impl_opener)(void *user, cs_err *err);

/* Runs `cfg` on `jobs` workers (1 to CS_WORKERS_MAX). `cfg` must not be a campaign (no on_failure,
 * want_failure or on_case); its progress callback gets the sums over the workers. *stderr_tail
 * receives the stderr tail of the first worker whose implementation wrote one (bytes on the heap,
 * NUL-terminated after them; the null string when none). Returns 0, or -1 with `err` when a worker could not run the
 * implementation or ended abnormally; `out` then holds what the other workers found, and `err`
 * gives the lowest such worker's error and the shard (as --shard takes it) of every worker that
 * gave no result, whose cases are not in `out`. */
int cs_run_jobs(unsigned jobs, cs_impl_opener open, void *open_user, cs_ruleset *rs, const cs_run_config *cfg,
                cs_run_result *out, cs_str *stderr_tail, cs_err *err);

/* A worker's result as bytes, and back (the decoded cells and tail are on the heap, as the
 * runner's are). Decoding checks every length: -1 with `err` on bytes that are not a result. */
void cs_run_result_encode(const cs_run_result *r, cs_str stderr_tail, cs_buf *out);
int cs_run_result_decode(const char *data, size_t len, cs_run_result *out, cs_str *stderr_tail, cs_err *err);

/* Adds `part` (one worker's result; emptied either way) to `into` (zeroed at first): cases,
 * statistics and faults summed, the longer time, per cell the earlier failure kept. -1 with `err`
 * when their cells are not the same properties and targets. */
int cs_run_result_merge(cs_run_result *into, cs_run_result *part, cs_err *err);

#endif
