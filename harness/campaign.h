/* harness/campaign.h: fuzz campaigns. A campaign is the runner in campaign mode (a failure does not
 * retire its property), with a rule for which failing cases get shrunk and a results format that
 * shards and worker processes write and `callsign fuzz --merge` combines.
 *
 * Which failing cases are shrunk: the case indices are cut into windows growing by 4 ([0,1),
 * [1,4), [4,16), ...); for each property and target, the first failing case of each window is
 * taken and shrunk, so the shrinking work grows with the logarithm of the cases run, while a
 * property that keeps failing is still looked at again and again. A process sees its cases in
 * increasing index order, so its first failure in a window is the smallest failing index of its
 * shard there; merging keeps, per (property, target, window), the finding with the smallest case
 * index: N shards (or N workers) together report exactly what one process running every case
 * would. Not quite when a rule gives no verdict on an ID (the campaign then exits 2): one process
 * stops judging that property at its first such case, while each shard stops at its own, so a
 * merge may hold findings of that property from later cases, and its not_judged message is the
 * first part's, not the earliest case's. Corpus cases are always taken.
 *
 * A finding's signature is the SHA-256 of its property, target and shrunk history: two findings
 * with the same signature are one distinct failure. */
#ifndef CS_HARNESS_CAMPAIGN_H
#define CS_HARNESS_CAMPAIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "harness/runner.h"

#define CS_WINDOW_CORPUS UINT32_MAX

typedef struct {
  char property[64], target[32];
  uint32_t window;     /* cs_campaign_window(case_index) */
  uint64_t case_index; /* UINT64_MAX: a corpus case */
  char signature[17];  /* 16 hex digits of SHA-256(property, target, shrunk history) */
  char *token;         /* replay token of the shrunk case; NULL for a literal history case */
  char *message;
  char *history_json;           /* compact history JSON */
  char *answer_json;            /* or NULL */
  cs_literal_twin planted_twin; /* a literal case's planted twin (token NULL) */
} cs_finding;

/* A target's rule as results were judged by it: the members of cs_rule that --rule and --profile
 * set (heap strings; NULL: no pattern). */
typedef struct {
  char *pattern, *server_pattern;
  uint32_t min_len, max_len;
} cs_findings_rule;

/* What defines the case space results cover, and what was judged in it. summary.json records them,
 * and parts are merged only when they agree: the same case index means the same case only under
 * the same --max-id-len, and a finding means the same failure only under the same selection,
 * --strict and rules. Every target's rule counts, selected or not: an implementation-aware twin is
 * planted from the implementation's answer for any target. */
typedef struct {
  uint32_t max_id_len; /* the longest generated ID (cs_gen_config.max_id_len, its default applied) */
  unsigned targets;    /* bit per target selected (every target when --target was not given) */
  uint64_t properties; /* bit per row of cs_properties() selected by --property (every row without it) */
  bool strict;         /* recommended properties were findings too */
  cs_findings_rule rules[CS_TARGET_COUNT]; /* the rules in force */
  /* An external implementation's --impl-cmd argv (heap, NULL-terminated; NULL: a built-in), which
   * the replay commands name, and its per-request deadline (0 for a built-in), under which its
   * timeouts were judged. A built-in and an external implementation of one name are not merged;
   * two argvs of one implementation may differ (paths differ between machines). */
  char **impl_cmd;
  unsigned deadline_ms;
} cs_findings_settings;

typedef struct {
  char impl[128];
  uint64_t seed;
  cs_findings_settings settings; /* cs_findings_set_settings */
  uint64_t cases;
  uint64_t cases_cut;    /* cut off by --time before their last answer: not judged */
  uint32_t given_up;     /* request kinds no longer sent (cs_run_result.given_up; parts: any of them) */
  bool interrupted;      /* cs_run_result.interrupted: stopped early by a signal (parts: any of them) */
  double seconds;        /* wall time (the longest part, once merged) */
  double shrink_seconds; /* of it, spent shrinking findings (the longest part's share, once merged) */
  char *parts;           /* heap: which parts of the case space: "all", or shards "0/4 1/4 ..."; NULL: none */
  cs_finding *f;         /* heap */
  size_t n, cap;
  /* Why a rule gave no verdict on an ID (cs_outcome.undecided: the first such cell, that property
   * not judged from then on), or "": an input error the command reports. summary.json's
   * "not_judged", kept by a merge. */
  char undecided[700];
  /* No property but protocol.answer had an operation for the selected targets and properties
   * (protocol.answer counts when --property named it): the campaign checked nothing.
   * summary.json's "checks_nothing"; a merge holds it when any part does. */
  bool checks_nothing;
} cs_findings;

typedef struct {
  cs_run_config run; /* seed, cases, time_s, shard, targets, only, gen, corpus: as for a run */
  bool strict;       /* recommended properties are findings too */
  bool answer_named; /* --property named protocol.answer: it alone is something to check */
  /* Recorded in the results, not used to run: the --impl-cmd argv that started the implementation
   * (NULL: a built-in) and its --deadline (0: the default). */
  char *const *impl_cmd;
  unsigned deadline_ms;
  /* Live reports (any may be NULL): each finding as it is made, and progress about every batch
   * (failing: failing checks of the properties that count). */
  void (*on_finding)(void *user, const cs_finding *f);
  void (*on_progress)(void *user, uint64_t cases, uint64_t failing, double elapsed);
  void *user;
} cs_campaign_config;

/* The window of a case index: 0 for case 0, k+1 for [4^k, 4^(k+1)), CS_WINDOW_CORPUS for corpus
 * cases (UINT64_MAX). */
uint32_t cs_campaign_window(uint64_t case_index);

/* Runs a campaign; findings are appended to `out` (impl, seed, cases, seconds and parts set).
 * Returns 0, or -1 with err when the implementation could not be run. */
int cs_campaign_run(cs_impl *impl, cs_ruleset *rs, const cs_campaign_config *cfg, cs_findings *out, cs_err *err);

/* Records in f->settings what cfg (its run's max_id_len, targets and property selection, strict, and
 * the external implementation's argv and deadline) and the ruleset make of the case space and its
 * judging. cs_campaign_run calls it. */
void cs_findings_set_settings(cs_findings *f, const cs_campaign_config *cfg, const cs_ruleset *rs);

/* A setting in which two results differ: its name in summary.json ("max_id_len", "rules.mistral.pattern")
 * and each one's value as a message shows it. */
typedef struct {
  char name[64];
  char a[200], b[200];
} cs_findings_difference;
/* False when results `a` and `b` may be merged: the same implementation (both built-in, or both
 * external with the same deadline), seed and settings; otherwise true, with the first setting that
 * differs in *d. */
bool cs_findings_differ(const cs_findings *a, const cs_findings *b, cs_findings_difference *d);

/* Appends to `out` the overrides ("TARGET.KEY=VALUE", each ended by a NUL byte) that turn this
 * callsign's default rules into those f was judged by, in target order; returns how many. `replay
 * --rule` with each of them judges a case as the campaign did. */
size_t cs_findings_rule_overrides(const cs_findings *f, cs_buf *out);

/* Keeps, per (property, target, window), the finding with the smallest case index (corpus
 * findings: one per signature), and sorts by property, target, window. */
void cs_findings_select(cs_findings *f);
/* Sets the parts these results cover: shard I/N, or "all" when N is 0. */
void cs_findings_set_shard(cs_findings *f, uint64_t i, uint64_t n);
/* Adds `from` to `into` (cases summed, the longer time, parts joined, findings appended and then
 * selected; an empty `into` takes from's implementation, seed and settings). The implementation,
 * seed and settings must match (cs_findings_differ), no part of one may share a case with a part of
 * the other (the same shard given twice would count its cases twice), and the cases must add up to
 * at most 2^64 - 1. -1 with err, `into` unchanged, otherwise. */
int cs_findings_merge(cs_findings *into, const cs_findings *from, cs_err *err);
/* Indices of one finding per distinct (property, target, signature), the first in order; returns
 * how many (idx needs f->n entries). */
size_t cs_findings_distinct(const cs_findings *f, size_t *idx);
void cs_findings_free(cs_findings *f);

/* DIR/summary.json, the machine-readable results (schema in the function's comment in
 * campaign.c), and with `with_cases` the distinct cases under DIR/cases/<impl>/ in the corpus
 * format. */
int cs_findings_write(const char *dir, const cs_findings *f, bool with_cases, cs_err *err);
int cs_findings_read(const char *dir, cs_findings *out, cs_err *err);
/* DIR/summary.json (heap, built to its length): the file the two above write and read. */
char *cs_findings_summary_path(const char *dir);
/* Saves each distinct finding to the corpus under corpus_dir/<impl>/, each tried whatever became of
 * the others; returns how many were saved, and *unsaved how many could not be (err: the first). */
size_t cs_findings_save_corpus(const cs_findings *f, const char *corpus_dir, size_t *unsaved, cs_err *err);

#endif
