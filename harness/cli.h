/* harness/cli.h: command-line options shared by the commands, and what the commands share:
 * opening implementations (built-in or --impl-cmd), the ruleset, reading inputs. One option table;
 * each command accepts the options whose command mask names it. */
#ifndef CS_HARNESS_CLI_H
#define CS_HARNESS_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/arena.h"
#include "core/buf.h"
#include "core/fs.h"
#include "generators/history_gen.h"
#include "impls/impl.h"
#include "providers/rule.h"

#define CS_VERSION "0.1.0"
#define CS_MAX_LIST 64
#define CS_MAX_POSITIONAL 1024 /* fuzz --merge OUT DIR...: a CI matrix of many shards in one merge */
#define CS_MAX_JOBS 256        /* --jobs at most: every command that takes it honours up to this many */

/* Exit statuses of DESIGN.md. */
enum { CS_EXIT_OK = 0, CS_EXIT_FAIL = 1, CS_EXIT_USAGE = 2, CS_EXIT_IMPL = 3 };

typedef enum {
  CS_CMD_RUN = 1u << 0,
  CS_CMD_FUZZ = 1u << 1,
  CS_CMD_REPLAY = 1u << 2,
  CS_CMD_COLLIDE = 1u << 3,
  CS_CMD_PROBE = 1u << 4,
  CS_CMD_VECTORS = 1u << 5,
  CS_CMD_LIST = 1u << 6,
  CS_CMD_CANON = 1u << 7,
  CS_CMD_EMIT = 1u << 8,
} cs_cmd_bit;

typedef struct {
  const char *impls[CS_MAX_LIST]; /* --impl NAME (repeatable; "all": every built-in) */
  size_t nimpls;
  char **impl_cmd;               /* argv after --impl-cmd -- (NULL-terminated) */
  unsigned targets;              /* --target T (repeatable); 0: all */
  const char *only[CS_MAX_LIST]; /* --property P (prefix; repeatable) */
  size_t nonly;
  uint64_t seed;
  bool seed_set; /* --seed was on the command line (seed is 1 without it) */
  uint64_t cases;
  double time_s;
  unsigned jobs;
  uint32_t shard_i, shard_n;
  const char *rules[CS_MAX_LIST]; /* --rule TARGET.KEY=VALUE */
  size_t nrules;
  const char *profile;
  const char *report[8]; /* per cs_report_formats() index: --junit FILE etc. */
  const char *expect;
  const char *vectors; /* --vectors FILE; NULL: cs_vectors_locate */
  bool strict, no_corpus, stats, check, generate, discover, dry_run, quiet;
  /* --no-corpus was implied by a --max-id-len other than the default, whose tokens mean other cases
   * than the corpus's: run and fuzz say so once. */
  bool corpus_off_for_bound;
  const char *corpus_dir;
  double min_coverage; /* share in [0,1]; 0: off */
  unsigned deadline_ms;
  unsigned max_id_len;
  const char *positional[CS_MAX_POSITIONAL];
  size_t npositional;
  const char *color; /* auto, always, never */
  const char *merge_out;
  /* fuzz */
  const char *out_dir; /* --out DIR */
  bool list_cases;
  /* collide */
  uint64_t memory; /* --memory bytes; 0: 1 GiB */
  uint64_t budget; /* --budget evaluations; 0: none */
  const char *inputs;
  const char *via; /* normalize or emit */
  unsigned dp_bits;
  /* probe */
  const char *provider, *model, *base_url, *record_dir, *replay_dir;
  unsigned max_requests;
  double rate;
} cs_options;

/* Parses argv[first..argc) for command `cmd`. Returns 0, or -1 with a one-line reason. */
int cs_options_parse(cs_options *o, int argc, char **argv, int first, cs_cmd_bit cmd, cs_err *err);
/* True when a --property prefix selects `property` (false when --property was not given). */
bool cs_options_named(const cs_options *o, const char *property);
/* Makes the parent directories of every report file given (--json, --junit, ...) and checks each
 * can be written (cs_prepare_output), before a run that may last hours. The directories made are
 * added to `made` (also on failure: the caller refused takes them back with cs_made_undo). 0, or -1
 * with err. */
int cs_options_prepare_reports(const cs_options *o, cs_made *made, cs_err *err);
/* Prints the options that command `cmd` accepts; returns how many. */
size_t cs_options_usage(FILE *out, cs_cmd_bit cmd);

/* Builds the ruleset from defaults, --profile and --rule. */
cs_ruleset *cs_cli_ruleset(const cs_options *o, cs_err *err);
/* Replaces o's --profile FILE (and its --rule options) by the --rule options that make `rs`, the
 * ruleset built from them (cs_ruleset_overrides): a replay command naming the file would depend
 * on the directory and machine it ran in, and on later edits of the file. The texts live in `a`.
 * Nothing changes without --profile. */
void cs_options_inline_profile(cs_options *o, const cs_ruleset *rs, cs_arena *a);
/* Reads a whole file ("-" or NULL: stdin) of at most max_bytes (0: 256 MiB) into `b`. */
int cs_read_input(const char *path, size_t max_bytes, cs_buf *b, cs_err *err);
/* Reads ("-" or NULL: stdin, named "stdin" in errors) and parses a JSON file whose top level is an object, strictly
 * (cs_json_parse_strict: a NUL byte, bad UTF-8 or trailing data is an error at line:column), of at most max_bytes
 * (0: the parser's default, 64 MiB; SIZE_MAX: as much as memory holds). Returns it (cJSON_Delete it), or NULL with
 * `err` naming the file. `what` names the kind of file in the error: "a callsign case". */
struct cJSON *cs_read_json_object(const char *path, const char *what, size_t max_bytes, cs_err *err);
/* Appends `root` as indented JSON text and a newline, hidden characters escaped as in the reports
 * (cs_esc_json_text; docs/report-schema.md). 0, or -1 (nothing appended) when cJSON runs out of memory. */
int cs_json_text(cs_buf *out, const struct cJSON *root);
/* Writes `root` as cs_json_text does to `path`, replacing it (cs_write_file). 0, or -1 with `err`
 * naming the file. */
int cs_write_json(const char *path, const struct cJSON *root, cs_err *err);
/* Parses a finite, non-negative duration in seconds: "30", "30s", "1.5", "250ms", "5m", "2h". 0, or
 * -1 (nothing is written to *out). */
int cs_parse_duration(const char *s, double *out);

/* Prints "callsign: <message>" on stderr and returns `status`. */
int cs_fail(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Commands (harness/cmd_*.c). */
int cs_cmd_run(int argc, char **argv);
int cs_cmd_replay(int argc, char **argv);
int cs_cmd_vectors(int argc, char **argv);
int cs_cmd_list(int argc, char **argv);
int cs_cmd_canon(int argc, char **argv);
int cs_cmd_emit(int argc, char **argv);
int cs_cmd_probe(int argc, char **argv);
int cs_cmd_fuzz(int argc, char **argv);
int cs_cmd_collide(int argc, char **argv);

#endif
