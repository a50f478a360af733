/* harness/cli.c: the option table and its parser; shared helpers of the commands. */
#include "harness/cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/fs.h"
#include "core/history_json.h"
#include "harness/property.h"
#include "harness/runner.h"
#include "providers/http.h"
#include "reports/escape.h"
#include "reports/result.h"

/* ARG_LIST: a string that adds to a list, so the option repeats; an option of any other kind
 * takes one value. */
typedef enum { ARG_NONE, ARG_STR, ARG_LIST, ARG_U64, ARG_U32, ARG_DURATION, ARG_SHARE, ARG_DOUBLE } arg_kind;

typedef struct {
  const char *name;
  arg_kind kind;
  unsigned commands; /* cs_cmd_bit mask */
  const char *help;
} option_row;

#define CS_MAX_TIME_S (365.0 * 24 * 3600)
#define GEN (CS_CMD_RUN | CS_CMD_FUZZ | CS_CMD_REPLAY | CS_CMD_COLLIDE | CS_CMD_PROBE)
#define RULES (GEN | CS_CMD_EMIT)
#define REPORTING (CS_CMD_RUN | CS_CMD_REPLAY | CS_CMD_PROBE)
static const option_row rows[] = {
    {"impl", ARG_LIST, GEN, "NAME  a built-in implementation (run: repeatable, 'all' for every built-in)"},
    {"impl-cmd", ARG_NONE, GEN, "-- ARGV...  an external implementation speaking PROTOCOL.md (no shell)"},
    {"target", ARG_LIST, (GEN & ~CS_CMD_PROBE & ~CS_CMD_COLLIDE) | CS_CMD_EMIT,
     "T  restrict to a target (repeatable); emit: the one target to emit for"},
    /* A list as above, so that a second one is told "exactly one" by collide itself. */
    {"target", ARG_LIST, CS_CMD_COLLIDE, "T  the target to search for, exactly one"},
    {"property", ARG_LIST, GEN & ~CS_CMD_PROBE & ~CS_CMD_COLLIDE,
     "P  restrict to properties whose name starts with P (repeatable)"},
    {"seed", ARG_U64, GEN & ~CS_CMD_REPLAY, "N  run seed (default 1)"},
    {"cases", ARG_U64, GEN & ~CS_CMD_COLLIDE & ~CS_CMD_REPLAY & ~CS_CMD_PROBE,
     "N  cases per implementation, at least 1"},
    {"cases", ARG_U64, CS_CMD_PROBE, "N  generated histories sent after the targeted cases, 1 to 10000 (default 4)"},
    {"time", ARG_DURATION, GEN & ~CS_CMD_PROBE & ~CS_CMD_REPLAY & ~CS_CMD_FUZZ,
     "D  time limit, per implementation (30s, 5m, 2h; at most 8760h)"},
    {"time", ARG_DURATION, CS_CMD_FUZZ,
     "D  campaign length, per implementation (30s, 5m, 2h; at most 8760h; default 60s unless --cases is given)"},
    {"jobs", ARG_U32, CS_CMD_RUN | CS_CMD_FUZZ | CS_CMD_COLLIDE,
     "N  parallel workers, 1 to 256, each with its own instance of the implementation"},
    {"shard", ARG_STR, CS_CMD_RUN | CS_CMD_FUZZ, "I/N  run only shard I of N of the case space"},
    {"rule", ARG_LIST, RULES,
     "TARGET.KEY=VALUE  override a target rule (pattern, min_len, max_len, server_pattern; an empty pattern removes "
     "it)"},
    {"profile", ARG_STR, RULES, "FILE  rule overrides, one per line"},
    {"junit", ARG_STR, REPORTING & ~CS_CMD_PROBE, "FILE  write a JUnit XML report"},
    {"json", ARG_STR, REPORTING, "FILE  write a JSON report (docs/report-schema.md)"},
    {"markdown", ARG_STR, REPORTING, "FILE  write a Markdown summary (for $GITHUB_STEP_SUMMARY)"},
    {"html", ARG_STR, REPORTING & ~CS_CMD_PROBE, "FILE  write a self-contained HTML report"},
    {"failures", ARG_STR, REPORTING & ~CS_CMD_PROBE,
     "FILE  write the failing cells as a known-failures list (what --expect reads)"},
    {"vectors", ARG_STR, CS_CMD_RUN, "FILE  the canonical v1 vectors (default: corpus/vectors/ here or by the binary)"},
    {"expect", ARG_STR, CS_CMD_RUN | CS_CMD_FUZZ,
     "FILE  known failures, 'property target [implementation]' per line (- for stdin)"},
    {"strict", ARG_NONE, CS_CMD_RUN | CS_CMD_FUZZ | CS_CMD_REPLAY,
     "  recommended properties fail the run too (fuzz looks for their failures only then)"},
    {"no-corpus", ARG_NONE, CS_CMD_RUN | CS_CMD_FUZZ | CS_CMD_COLLIDE, "  do not replay or save regression cases"},
    {"corpus", ARG_STR, CS_CMD_RUN | CS_CMD_FUZZ | CS_CMD_COLLIDE,
     "DIR  regression corpus (default corpus/regressions)"},
    {"stats", ARG_NONE, CS_CMD_RUN, "  print how often each pathology class was generated"},
    {"min-coverage", ARG_SHARE, CS_CMD_RUN,
     "SHARE  fail when a class occurs in fewer cases (0.01 or 1%; a number above 1 is a percentage, 1 is refused)"},
    {"deadline", ARG_U32, GEN, "MS  per-request deadline for --impl-cmd, 1 to 3600000 (default 5000)"},
    /* collide's inputs are its own fixed families, not generated IDs. */
    {"max-id-len", ARG_U32, GEN & ~CS_CMD_COLLIDE,
     "N  longest generated ID in bytes, 1 to 1048576 (default 65536; probe's generated cases: 256)"},
    {"check", ARG_NONE, CS_CMD_VECTORS,
     "  verify the vectors against the reference (default; FILE defaults to "
     "corpus/vectors/canonical_v1.json here, else the copy in the binary's tree)"},
    {"generate", ARG_NONE, CS_CMD_VECTORS,
     "  rewrite the vectors, keeping existing tcIds (FILE defaults to "
     "corpus/vectors/canonical_v1.json here, never the binary's copy)"},
    {"color", ARG_STR, CS_CMD_RUN | CS_CMD_REPLAY, "WHEN  auto, always or never"},
    {"quiet", ARG_NONE, GEN & ~CS_CMD_PROBE,
     "  less output: no progress line, matrices or tables; failures and the summary stay"},
    {"quiet", ARG_NONE, CS_CMD_PROBE,
     "  less output: of the table only the header and the rows that disagree or failed; the summary stays"},
    {"merge", ARG_STR, CS_CMD_FUZZ, "OUT  merge shard result directories (the arguments) into OUT"},
    {"out", ARG_STR, CS_CMD_FUZZ,
     "DIR  write the campaign's results here (summary.json, cases/; default fuzz-results)"},
    {"list-cases", ARG_NONE, CS_CMD_FUZZ, "  print each case run: 'case INDEX SHA256-OF-HISTORY TOKEN'"},
    {"memory", ARG_STR, CS_CMD_COLLIDE,
     "SIZE  memory for the search table (512M, 2G; default 1G; at most the machine's memory)"},
    {"budget", ARG_U64, CS_CMD_COLLIDE,
     "N  stop the search after N evaluations, at least 1 (after a probe of up to 10,240; confirming a "
     "candidate pair may take a few more)"},
    {"inputs", ARG_STR, CS_CMD_COLLIDE,
     "KIND  input family: auto (default), long, illegal, long-plain, plain, unicode"},
    {"dp-bits", ARG_U32, CS_CMD_COLLIDE,
     "N  use distinguished points with N zero bits even when a table would do (fewer than half the "
     "outputs' bits)"},
    {"via", ARG_STR, CS_CMD_COLLIDE, "OP  search through normalize (default when the implementation has it) or emit"},
    {"provider", ARG_STR, CS_CMD_PROBE, "P  provider to probe"},
    {"model", ARG_STR, CS_CMD_PROBE, "M  model name"},
    {"base-url", ARG_STR, CS_CMD_PROBE, "URL  API base URL (a gateway or a local fake)"},
    {"discover", ARG_NONE, CS_CMD_PROBE, "  measure the provider's real rule"},
    {"dry-run", ARG_NONE, CS_CMD_PROBE,
     "  print the requests, send nothing (--discover: the first only, as each next depends on the answers)"},
    {"record", ARG_STR, CS_CMD_PROBE, "DIR  store requests and responses (keys removed)"},
    {"replay", ARG_STR, CS_CMD_PROBE, "DIR  answer from recorded responses, offline"},
    {"max-requests", ARG_U32, CS_CMD_PROBE, "N  request budget, at least 1 (default 50)"},
    {"rate", ARG_DOUBLE, CS_CMD_PROBE, "R  requests per second at most, 0.01 to 1000 (default 2)"},
};

/* Options a command does not take, with the reason it gives instead of the generic one. */
#define FUZZ_NO_REPORTS                                                                                                \
  "fuzz: writes its results to --out DIR (summary.json), not to report files; `callsign run` writes reports"
#define FUZZ_NO_STATS "fuzz: --stats and --min-coverage are options of `callsign run`"
/* The vectors are one file for every target under the default rules: nothing to restrict or override. */
#define VECTORS_ALL_TARGETS "vectors: --target does not apply: the vectors cover every target"
#define VECTORS_NO_RULE "vectors: --rule does not apply: the vectors are defined under the default rules"
#define VECTORS_NO_PROFILE "vectors: --profile does not apply: the vectors are defined under the default rules"
/* Canonical IDs are one format whatever the targets' rules: the rules apply when emitting. */
#define CANON_NO_RULES(opt)                                                                                            \
  "canon: --" opt " does not apply: canonical IDs follow no target's rule (`callsign emit --target T` applies them)"
/* A replay runs the one case its token or file gives: nothing to count, time, seed or split. */
#define REPLAY_ONE_CASE(opt) "replay: --" opt " does not apply: a replay runs the one case its token or file gives"
static const struct {
  const char *name;
  unsigned commands;
  const char *why;
} refusals[] = {
    {"junit", CS_CMD_FUZZ, FUZZ_NO_REPORTS},
    {"json", CS_CMD_FUZZ, FUZZ_NO_REPORTS},
    {"markdown", CS_CMD_FUZZ, FUZZ_NO_REPORTS},
    {"html", CS_CMD_FUZZ, FUZZ_NO_REPORTS},
    {"failures", CS_CMD_FUZZ, FUZZ_NO_REPORTS},
    {"stats", CS_CMD_FUZZ, FUZZ_NO_STATS},
    {"min-coverage", CS_CMD_FUZZ, FUZZ_NO_STATS},
    {"target", CS_CMD_VECTORS, VECTORS_ALL_TARGETS},
    {"rule", CS_CMD_VECTORS, VECTORS_NO_RULE},
    {"rule", CS_CMD_CANON, CANON_NO_RULES("rule")},
    {"profile", CS_CMD_CANON, CANON_NO_RULES("profile")},
    {"profile", CS_CMD_VECTORS, VECTORS_NO_PROFILE},
    {"cases", CS_CMD_REPLAY, REPLAY_ONE_CASE("cases")},
    {"time", CS_CMD_REPLAY, REPLAY_ONE_CASE("time")},
    {"seed", CS_CMD_REPLAY, REPLAY_ONE_CASE("seed")},
    {"jobs", CS_CMD_REPLAY, REPLAY_ONE_CASE("jobs")},
    {"shard", CS_CMD_REPLAY, REPLAY_ONE_CASE("shard")},
};

int cs_fail(int status, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  for (char *p = msg; *p; p++)
    if (*p == '\n' || *p == '\r')
      *p = ' ';
  /* Messages quote input (a history, a hello, a provider's answer): no control character,
   * bidirectional override or invalid byte of it reaches the terminal raw. */
  cs_buf line = {0};
  cs_esc_plain(&line, msg, strlen(msg), false);
  fprintf(stderr, "callsign: %s\n", line.data ? line.data : "");
  cs_buf_free(&line);
  return status;
}

/* A number written in decimal, as strtod reads it: strtod would also skip leading spaces and read
 * hexadecimal ("0x10", "0x1p1"), "inf" and "nan", none of which a user writing a time or a size
 * means. */
static bool decimal_text(const char *s) {
  return ((s[0] >= '0' && s[0] <= '9') || s[0] == '.') && !strpbrk(s, "xXpP");
}

int cs_parse_duration(const char *s, double *out) {
  char *end;
  errno = 0;
  if (!decimal_text(s))
    return -1;
  double v = strtod(s, &end);
  if (end == s || errno || !isfinite(v) || v < 0)
    return -1;
  if (*end == 0 || strcmp(end, "s") == 0)
    ;
  else if (strcmp(end, "ms") == 0)
    v /= 1000;
  else if (strcmp(end, "m") == 0)
    v *= 60;
  else if (strcmp(end, "h") == 0)
    v *= 3600;
  else
    return -1;
  if (!isfinite(v)) /* 1e308h */
    return -1;
  *out = v;
  return 0;
}

/* 0; -1 when not a whole number; -2 when one too large for 64 bits. */
static int parse_u64(const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  if (*s < '0' || *s > '9')
    return -1;                                  /* strtoull would skip spaces and take a sign */
  unsigned long long v = strtoull(s, &end, 10); /* decimal: "010" is ten, not eight */
  if (*end)
    return -1;
  if (errno == ERANGE)
    return -2;
  if (errno)
    return -1;
  *out = v;
  return 0;
}

/* A share written as a plain decimal ("0.123", ".5", "12.3%"; a bare number above 1 is a
 * percentage): the double nearest the decimal it states, so that 12.3% and 0.123 are the same
 * threshold (12.3 / 100 would not be). 0 with *out (-1 for a bare 1, which could be either); -1
 * when not such a number, or a nonzero one too small for a double. */
static int parse_share(const char *s, double *out) {
  size_t n = strspn(s, "0123456789"), digits = n;
  if (s[n] == '.') {
    size_t f = strspn(s + n + 1, "0123456789");
    digits += f;
    n += 1 + f;
  }
  bool percent = s[n] == '%';
  if (!digits || (s[n] && !(percent && !s[n + 1])) || n > 300)
    return -1;
  char text[320];
  snprintf(text, sizeof text, "%.*s", (int)n, s);
  double d = strtod(text, NULL);
  if (!percent && d == 1) {
    *out = -1;
    return 0;
  }
  if (percent || d > 1) { /* the decimal point moved two places, then rounded once */
    snprintf(text, sizeof text, "%.*se-2", (int)n, s);
    d = strtod(text, NULL);
  }
  if (d == 0 && strpbrk(text, "123456789") && strpbrk(text, "123456789") < text + n)
    return -1; /* underflowed: not the zero it would pass for */
  *out = d;
  return 0;
}

static int push_max(const char **list, size_t *n, size_t max, const char *v, const char *what, cs_err *err) {
  if (*n >= max)
    return cs_err_set(err, "too many %s options (at most %zu)", what, max);
  list[(*n)++] = v;
  return 0;
}

static int push(const char **list, size_t *n, const char *v, const char *what, cs_err *err) {
  return push_max(list, n, CS_MAX_LIST, v, what, err);
}

/* A directory option's value: '-' is stdin or stdout elsewhere, so a directory made under that
 * name would surprise. A path that exists as something else, lies below a file, or is a symbolic
 * link to nothing can never be made: refused before hours of work, not after. One that does not
 * exist yet is made when the first file is written. */
static int directory_value(const char *option, const char *v, cs_err *err) {
  struct stat st;
  if (!strcmp(v, "-"))
    return cs_err_set(err, "--%s -: names a directory, and '-' (standard input or output) is none", option);
  if (stat(v, &st) == 0 && !S_ISDIR(st.st_mode))
    return cs_err_set(err, "--%s: '%s' is not a directory", option, v);
  if (stat(v, &st) != 0 && errno == ENOTDIR)
    return cs_err_set(err, "--%s: '%s' lies below a file, not a directory", option, v);
  if (stat(v, &st) != 0 && errno == ENOENT && lstat(v, &st) == 0)
    return cs_err_set(err, "--%s: '%s' is a symbolic link to nothing", option, v);
  return 0;
}

/* The machine's physical memory in bytes, or 0 when the system does not say. */
static double physical_memory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? (double)pages * (double)page : 0;
}

static int apply(cs_options *o, const option_row *row, const char *v, cs_err *err) {
  const char *n = row->name;
  uint64_t u = 0;
  double d = 0;
  if ((row->kind == ARG_STR || row->kind == ARG_LIST) &&
      !*v) /* an empty path or name: say so, not ": cannot write" later */
    return cs_err_set(err, "--%s: the value is empty", n);
  switch (row->kind) {
  case ARG_U64:
  case ARG_U32: {
    int bad = parse_u64(v, &u);
    if ((bad == -2 || bad == 0) && row->kind == ARG_U32 && (bad || u > UINT32_MAX))
      return cs_err_set(err, "--%s: '%s' is more than %u", n, cs_err_excerpt(v).s, (unsigned)UINT32_MAX);
    if (bad == -2)
      return cs_err_set(err, "--%s: '%s' is more than %llu", n, cs_err_excerpt(v).s, (unsigned long long)UINT64_MAX);
    if (bad)
      return cs_err_set(err, "--%s: '%s' is not a whole number", n, cs_err_excerpt(v).s);
    break;
  }
  case ARG_DURATION:
    if (cs_parse_duration(v, &d))
      return cs_err_set(err, "--%s: '%s' is not a duration (30s, 5m, 2h)", n, cs_err_excerpt(v).s);
    break;
  case ARG_SHARE:
    if (parse_share(v, &d))
      return cs_err_set(err, "--%s: '%s' is not a share (0.02 or 2%%)", n, cs_err_excerpt(v).s);
    if (d < 0) /* a bare number up to 1 is a fraction and above 1 a percentage: a bare 1 is either */
      return cs_err_set(err, "--%s: '%s' could mean 1%% or 100%%: write 1%% or 100%%", n, cs_err_excerpt(v).s);
    if (d > 1)
      return cs_err_set(err, "--%s: '%s' is more than 100%%", n, cs_err_excerpt(v).s);
    break;
  case ARG_DOUBLE: {
    char *end;
    d = strtod(v, &end);
    if (!decimal_text(v) || end == v || *end || !isfinite(d) || d <= 0)
      return cs_err_set(err, "--%s: '%s' is not a positive number", n, cs_err_excerpt(v).s);
    break;
  }
  default:
    break;
  }
  if (!strcmp(n, "impl"))
    return push(o->impls, &o->nimpls, v, "--impl", err);
  if (!strcmp(n, "target")) {
    int t = cs_target_parse(v);
    if (t < 0)
      return cs_err_set(err, "--target: unknown target '%s' (see callsign list)", cs_err_excerpt(v).s);
    /* A set of targets: a repeat would pass emit's and collide's "exactly one" unseen. */
    if (o->targets >> t & 1u)
      return cs_err_set(err, "--target %s given twice", v);
    o->targets |= 1u << t;
  } else if (!strcmp(n, "property")) {
    /* A prefix naming no property would check nothing and pass: a typo must not turn a gate green. */
    size_t np, vl = strlen(v);
    const cs_property *all = cs_properties(&np);
    bool names_one = false;
    for (size_t i = 0; i < np && !names_one; i++)
      names_one = !strncmp(all[i].name, v, vl);
    if (!names_one)
      return cs_err_set(err, "--property: no property's name starts with '%s' (see callsign list)",
                        cs_err_excerpt(v).s);
    return push(o->only, &o->nonly, v, "--property", err);
  } else if (!strcmp(n, "seed")) {
    o->seed = u;
    o->seed_set = true;
  } else if (!strcmp(n, "cases")) {
    /* 0 is what "not given" looks like later: 2000 cases in run, a timed campaign in fuzz, 4 in probe. */
    if (u == 0)
      return cs_err_set(err, "--cases: must be at least 1");
    o->cases = u;
  } else if (!strcmp(n, "time")) {
    /* 0 would silently mean no limit (run) or the default 60 s (fuzz). */
    if (d <= 0)
      return cs_err_set(err, "--time: must be more than 0 (leave it out for the default)");
    /* Stop times are nanoseconds in 64 bits: a time near 292 years wrapped into the past. */
    if (d > CS_MAX_TIME_S)
      return cs_err_set(err, "--time: at most 8760h (a year)");
    o->time_s = d;
  } else if (!strcmp(n, "jobs")) {
    if (u == 0 || u > CS_MAX_JOBS)
      return cs_err_set(err, "--jobs: must be 1 to %d", CS_MAX_JOBS);
    o->jobs = (unsigned)u;
  } else if (!strcmp(n, "shard")) {
    /* Two decimal numbers: sscanf's %u would take " 1" and wrap "-1" to 4294967295. */
    const char *slash = strchr(v, '/');
    char left[24];
    uint64_t i = 0, k = 0;
    bool ok = slash && (size_t)(slash - v) < sizeof left;
    if (ok) {
      memcpy(left, v, (size_t)(slash - v));
      left[slash - v] = 0;
      ok = !parse_u64(left, &i) && !parse_u64(slash + 1, &k) && k > 0 && k <= UINT32_MAX && i < k;
    }
    if (!ok)
      return cs_err_set(err, "--shard: '%s' is not I/N with 0 <= I < N <= 4294967295", cs_err_excerpt(v).s);
    o->shard_i = (unsigned)i;
    o->shard_n = (unsigned)k;
  } else if (!strcmp(n, "rule")) {
    return push(o->rules, &o->nrules, v, "--rule", err);
  } else if (!strcmp(n, "profile")) {
    o->profile = v;
  } else if (!strcmp(n, "expect")) {
    o->expect = v;
  } else if (!strcmp(n, "vectors")) {
    o->vectors = v;
  } else if (!strcmp(n, "corpus")) {
    if (directory_value("corpus", v, err))
      return -1;
    o->corpus_dir = v;
  } else if (!strcmp(n, "min-coverage")) {
    o->min_coverage = d;
  } else if (!strcmp(n, "deadline")) {
    /* 0 would silently mean the default; past an hour, a hung implementation stalls the run. */
    if (u == 0 || u > CS_MAX_DEADLINE_MS)
      return cs_err_set(err, "--deadline: must be 1 to %u milliseconds", CS_MAX_DEADLINE_MS);
    o->deadline_ms = (unsigned)u;
  } else if (!strcmp(n, "max-id-len")) {
    /* 0 would silently mean the default; a huge value, IDs too long to hold in memory. */
    if (u == 0 || u > CS_GEN_MAX_ID_LEN_LIMIT)
      return cs_err_set(err, "--max-id-len: must be 1 to %u", CS_GEN_MAX_ID_LEN_LIMIT);
    o->max_id_len = (unsigned)u;
  } else if (!strcmp(n, "color")) {
    if (strcmp(v, "auto") && strcmp(v, "always") && strcmp(v, "never"))
      return cs_err_set(err, "--color: expected auto, always or never");
    o->color = v;
  } else if (!strcmp(n, "merge")) {
    if (directory_value("merge", v, err))
      return -1;
    o->merge_out = v;
  } else if (!strcmp(n, "out")) {
    if (directory_value("out", v, err))
      return -1;
    o->out_dir = v;
  } else if (!strcmp(n, "memory")) {
    char *end;
    errno = 0;
    double m = strtod(v, &end);
    double unit = !*end               ? 1
                  : !strcmp(end, "K") ? 1024.0
                  : !strcmp(end, "M") ? 1048576.0
                  : !strcmp(end, "G") ? 1073741824.0
                                      : 0;
    if (!decimal_text(v) || end == v || errno || !isfinite(m) || m <= 0 || unit == 0 || m * unit < 65536 ||
        m * unit > 1e15)
      return cs_err_set(err, "--memory: '%s' is not a size from 64K (512M, 2G)", cs_err_excerpt(v).s);
    /* A table the machine cannot hold fails to allocate (or swaps for hours): say so before any
     * work, as a bad option, not later as if the implementation had failed. */
    double phys = physical_memory();
    if (phys > 0 && m * unit > phys)
      return cs_err_set(err, "--memory: '%s' is more than this machine's memory (%.1fG)", cs_err_excerpt(v).s,
                        phys / 1073741824.0);
    o->memory = (uint64_t)(m * unit);
  } else if (!strcmp(n, "budget")) {
    if (u == 0) /* 0 would read as no budget at all: a search without end */
      return cs_err_set(err, "--budget: must be at least 1");
    o->budget = u;
  } else if (!strcmp(n, "inputs")) {
    o->inputs = v;
  } else if (!strcmp(n, "via")) {
    if (strcmp(v, "normalize") && strcmp(v, "emit"))
      return cs_err_set(err, "--via: expected normalize or emit");
    o->via = v;
  } else if (!strcmp(n, "dp-bits")) {
    if (u == 0 || u > 40)
      return cs_err_set(err, "--dp-bits: must be 1 to 40");
    o->dp_bits = (unsigned)u;
  } else if (!strcmp(n, "provider")) {
    o->provider = v;
  } else if (!strcmp(n, "model")) {
    o->model = v;
  } else if (!strcmp(n, "base-url")) {
    o->base_url = v;
  } else if (!strcmp(n, "record")) {
    if (directory_value("record", v, err))
      return -1;
    o->record_dir = v;
  } else if (!strcmp(n, "replay")) {
    o->replay_dir = v;
  } else if (!strcmp(n, "max-requests")) {
    /* 0 is what "not given" looks like later, where it becomes the default budget of 50. */
    if (u == 0)
      return cs_err_set(err, "--max-requests: must be at least 1");
    o->max_requests = (unsigned)u;
  } else if (!strcmp(n, "rate")) {
    /* A tiny rate made the probe wait for ages between requests; see providers/http.h. */
    if (d < CS_HTTP_MIN_RATE || d > CS_HTTP_MAX_RATE)
      return cs_err_set(err, "--rate: must be %g to %g requests per second", CS_HTTP_MIN_RATE, CS_HTTP_MAX_RATE);
    o->rate = d;
  } else {
    size_t nf;
    const cs_report_format *f = cs_report_formats(&nf);
    for (size_t i = 0; i < nf && i < 8; i++)
      if (!strcmp(n, f[i].name)) {
        o->report[i] = v; /* given twice: refused by cs_options_parse */
        return 0;
      }
    return cs_err_set(err, "--%s: not handled", n);
  }
  return 0;
}

static int set_flag(cs_options *o, const char *n) {
  bool *flag = !strcmp(n, "strict")       ? &o->strict
               : !strcmp(n, "no-corpus")  ? &o->no_corpus
               : !strcmp(n, "stats")      ? &o->stats
               : !strcmp(n, "check")      ? &o->check
               : !strcmp(n, "generate")   ? &o->generate
               : !strcmp(n, "discover")   ? &o->discover
               : !strcmp(n, "dry-run")    ? &o->dry_run
               : !strcmp(n, "quiet")      ? &o->quiet
               : !strcmp(n, "list-cases") ? &o->list_cases
                                          : NULL;
  if (!flag)
    return -1;
  *flag = true;
  return 0;
}

bool cs_options_named(const cs_options *o, const char *property) {
  for (size_t k = 0; k < o->nonly; k++)
    if (!strncmp(property, o->only[k], strlen(o->only[k])))
      return true;
  return false;
}

int cs_options_parse(cs_options *o, int argc, char **argv, int first, cs_cmd_bit cmd, cs_err *err) {
  memset(o, 0, sizeof *o);
  o->seed = 1;
  uint64_t seen[(sizeof rows / sizeof rows[0] + 63) / 64] = {0};
  for (int i = first; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || a[1] != '-' || a[2] == 0) {
      if (a[0] == '-' && a[1] && a[1] != '-')
        return cs_err_set(err, "unknown option '%s' (options are --long)", cs_err_excerpt(a).s);
      if (!strcmp(a, "--"))
        return cs_err_set(err, "'--' only follows --impl-cmd");
      if (push_max(o->positional, &o->npositional, CS_MAX_POSITIONAL, a, "positional", err))
        return -1;
      continue;
    }
    char name[64];
    const char *eq = strchr(a + 2, '=');
    size_t nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
    if (nl >= sizeof name)
      return cs_err_set(err, "unknown option '%.80s'", a);
    memcpy(name, a + 2, nl);
    name[nl] = 0;
    const option_row *row = NULL;
    /* An option may have a row of its own for some commands (its help differs): the row of this
     * command, else any (which then refuses it). */
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
      if (!strcmp(rows[k].name, name) && (!row || (rows[k].commands & cmd)))
        row = &rows[k];
    if (!row)
      return cs_err_set(err, "unknown option '--%s' (see callsign help)", name);
    if (!(row->commands & cmd)) {
      for (size_t k = 0; k < sizeof refusals / sizeof *refusals; k++)
        if (!strcmp(refusals[k].name, name) && (refusals[k].commands & cmd))
          return cs_err_set(err, "%s", refusals[k].why);
      return cs_err_set(err, "option '--%s' does not apply to this command", name);
    }
    if (!strcmp(name, "impl-cmd")) {
      if (eq)
        return cs_err_set(err, "--impl-cmd takes no value: write --impl-cmd -- PROGRAM ARGS...");
      if (i + 1 >= argc || strcmp(argv[i + 1], "--") != 0 || i + 2 >= argc)
        return cs_err_set(err, "--impl-cmd must be followed by -- and the program's argv");
      if (!argv[i + 2][0])
        return cs_err_set(err, "--impl-cmd: the program's name is empty");
      o->impl_cmd = &argv[i + 2];
      break; /* the rest belongs to the implementation */
    }
    if (row->kind == ARG_NONE) {
      if (eq)
        return cs_err_set(err, "--%s takes no value", name);
      set_flag(o, name);
      continue;
    }
    const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
    if (!v)
      return cs_err_set(err, "--%s needs a value", name);
    /* "--json --quiet" wrote the report to a file named --quiet: a value that is an option is
     * taken as a missing value (a name that starts with "--" can still be given as --json=--x). */
    if (!eq && v[0] == '-' && v[1] == '-' && v[2])
      return cs_err_set(err, "--%s needs a value (got the option '%s'; write --%s=VALUE for a value starting with --)",
                        name, cs_err_excerpt(v).s, name);
    /* A value given twice would silently keep the last (--shard 0/2 --shard 1/2 runs shard 1). */
    size_t k = (size_t)(row - rows);
    if (row->kind != ARG_LIST && (seen[k / 64] >> (k % 64) & 1u))
      return cs_err_set(err, "--%s given twice", name);
    seen[k / 64] |= 1ull << (k % 64);
    if (apply(o, row, v, err))
      return -1;
  }
  /* protocol.answer judges the answers to the other properties' requests: named with none that
   * sends one (vectors reads a file), it would check nothing (but a replay sends every request of
   * its case, as its failure may be in any of them). */
  bool named = cs_options_named(o, CS_PROPERTY_ANSWER), other = false;
  size_t np;
  const cs_property *all = cs_properties(&np);
  for (size_t i = 0; i < np && !other; i++)
    other = all[i].needs && cs_options_named(o, all[i].name);
  if (named && !other && cmd != CS_CMD_REPLAY)
    return cs_err_set(err,
                      "--property: %s is checked on the requests of other properties and sends none of its "
                      "own; name one that sends requests too (it is always checked)",
                      CS_PROPERTY_ANSWER);
  /* --corpus DIR would be silently unused, and so would a deadline with nothing to wait for (probe
   * refuses it itself). */
  if (o->deadline_ms && !o->impl_cmd && cmd != CS_CMD_PROBE)
    return cs_err_set(err, "--deadline applies to --impl-cmd: built-in implementations answer at once");
  if (o->no_corpus && o->corpus_dir)
    return cs_err_set(err, "--no-corpus and --corpus: give one of them");
  /* A token regenerates its case under the run's ID bound: the corpus's cases, saved under the
   * default bound, are other cases under another one, and a case saved under another bound would be
   * another case in every default run. */
  if ((cmd & (CS_CMD_RUN | CS_CMD_FUZZ)) && o->max_id_len && o->max_id_len != CS_GEN_DEFAULT_MAX_ID_LEN &&
      !o->no_corpus) {
    o->no_corpus = true;
    o->corpus_off_for_bound = true;
  }
  if (o->expect && o->vectors && !strcmp(o->expect, "-") && !strcmp(o->vectors, "-"))
    return cs_err_set(err, "--expect - and --vectors -: standard input can be read for one of them");
  /* A shard past the last case would run none and pass: a CI gate split into more shards than
   * cases would check nothing. */
  uint64_t total = o->cases ? o->cases : cmd == CS_CMD_RUN ? CS_RUN_DEFAULT_CASES : 0;
  if ((cmd & (CS_CMD_RUN | CS_CMD_FUZZ)) && o->shard_n && total && o->shard_i >= total)
    return cs_err_set(err, "--shard %u/%u: of %llu cases, shard %u holds none (shards 0 to %llu do)", o->shard_i,
                      o->shard_n, (unsigned long long)total, o->shard_i, (unsigned long long)total - 1);
  /* Each of J workers runs shard I + N*j of N*J, which must still be a 32-bit shard. */
  if (o->shard_n && o->jobs > 1 && (uint64_t)o->shard_n * o->jobs > UINT32_MAX)
    return cs_err_set(err, "--shard %u/%u with --jobs %u: the workers' %llu shards are more than %u", o->shard_i,
                      o->shard_n, o->jobs, (unsigned long long)o->shard_n * o->jobs, UINT32_MAX);
  return 0;
}

int cs_options_prepare_reports(const cs_options *o, cs_made *made, cs_err *err) {
  size_t nf;
  const cs_report_format *f = cs_report_formats(&nf);
  for (size_t i = 0; i < nf && i < 8; i++) {
    if (!o->report[i])
      continue;
    if (strcmp(o->report[i], "-") == 0) /* elsewhere '-' is stdin: a file named '-' would surprise */
      return cs_err_set(err, "--%s -: a report is written to a file (/dev/stdout for standard output)", f[i].name);
    /* A report must not overwrite what the run reads. --failures may rewrite the --expect list:
     * that is how a list is brought up to date. */
    const struct {
      const char *option, *path;
    } inputs[] = {
        {"expect", strcmp(f[i].name, "failures") ? o->expect : NULL}, {"profile", o->profile}, {"vectors", o->vectors}};
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++)
      if (inputs[k].path && cs_same_file(inputs[k].path, o->report[i]))
        return cs_err_set(err, "--%s %s is the --%s file: the report would overwrite what the run reads", f[i].name,
                          o->report[i], inputs[k].option);
    if (cs_prepare_output(o->report[i], made, err))
      return -1;
    /* Reports are written one after the other: a second one in the same file would replace the first. */
    for (size_t k = 0; k < i; k++)
      if (o->report[k] && cs_same_file(o->report[k], o->report[i]))
        return cs_err_set(err, "--%s %s and --%s %s are the same file: each report needs its own", f[k].name,
                          o->report[k], f[i].name, o->report[i]);
  }
  return 0;
}

size_t cs_options_usage(FILE *out, cs_cmd_bit cmd) {
  size_t n = 0;
  for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
    if (rows[k].commands & cmd) {
      fprintf(out, "  --%s %s\n", rows[k].name, rows[k].help);
      n++;
    }
  return n;
}

cs_ruleset *cs_cli_ruleset(const cs_options *o, cs_err *err) {
  cs_ruleset *rs = cs_ruleset_new(err);
  if (!rs)
    return NULL;
  if (o->profile && cs_ruleset_load_profile(rs, o->profile, err))
    goto fail;
  for (size_t i = 0; i < o->nrules; i++)
    if (cs_ruleset_override(rs, o->rules[i], err))
      goto fail;
  if (cs_ruleset_check(rs, err))
    goto fail;
  return rs;
fail:
  cs_ruleset_free(rs);
  return NULL;
}

void cs_options_inline_profile(cs_options *o, const cs_ruleset *rs, cs_arena *a) {
  if (!o->profile)
    return;
  cs_buf text = {0};
  size_t n = cs_ruleset_overrides(rs, &text);
  const char *p = text.data;
  /* At most four keys per target: well within CS_MAX_LIST. */
  for (size_t i = 0; i < n && i < CS_MAX_LIST; i++, p += strlen(p) + 1)
    o->rules[i] = cs_arena_strc(a, p).ptr;
  o->nrules = n < CS_MAX_LIST ? n : CS_MAX_LIST;
  o->profile = NULL;
  cs_buf_free(&text);
}

int cs_read_input(const char *path, size_t max_bytes, cs_buf *b, cs_err *err) {
  bool std = !path || !strcmp(path, "-");
  if (!std && !*path) /* "cannot open" would name nothing */
    return cs_err_set(err, "an empty file name (give a file, or - for stdin)");
  FILE *f = std ? stdin : fopen(path, "rb");
  if (!f)
    return cs_err_set(err, "%s: cannot open: %s", path, strerror(errno));
  char chunk[65536];
  size_t n;
  const size_t limit = max_bytes ? max_bytes : (size_t)256 << 20;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    if (b->len + n > limit) {
      if (!std)
        fclose(f);
      return cs_err_set(err, "%s: larger than %zu MiB", std ? "stdin" : path, limit >> 20);
    }
    cs_buf_put(b, chunk, n);
  }
  int bad = ferror(f), why = errno; /* a directory opens, then fails to read with EISDIR */
  if (!std)
    fclose(f);
  if (bad)
    return cs_err_set(err, "%s: cannot read: %s", std ? "stdin" : path, strerror(why));
  if (!b->data)
    cs_buf_put(b, "", 0);
  return 0;
}

cJSON *cs_read_json_object(const char *path, const char *what, size_t max_bytes, cs_err *err) {
  cs_buf b = {0};
  cJSON *root = NULL;
  const char *label = !path || !strcmp(path, "-") ? "stdin" : path; /* as cs_read_input names it */
  if (cs_read_input(path, max_bytes, &b, err))
    goto cleanup;
  root = cs_json_parse_strict(cs_buf_view(&b), max_bytes, "the JSON value", err);
  if (!root) {
    cs_err_prefix(err, "%s", label);
    goto cleanup;
  }
  if (!cJSON_IsObject(root)) {
    cs_err_set(err, "%s: not %s (not a JSON object)", label, what);
  } else if (cs_json_names_once(root, err)) { /* cJSON takes the first, another reader the last */
    cs_err_prefix(err, "%s", label);
  } else {
    goto cleanup;
  }
  cJSON_Delete(root);
  root = NULL;
cleanup:
  cs_buf_free(&b);
  return root;
}

int cs_json_text(cs_buf *out, const cJSON *root) {
  char *text = cJSON_Print(root);
  if (!text)
    return -1;
  cs_esc_json_text(out, text);
  cs_buf_putc(out, '\n');
  cJSON_free(text);
  return 0;
}

int cs_write_json(const char *path, const cJSON *root, cs_err *err) {
  cs_buf body = {0};
  if (cs_json_text(&body, root))
    return cs_err_set(err, "%s: out of memory", path);
  int rc = cs_write_file(path, body.data, body.len, err);
  cs_buf_free(&body);
  return rc;
}
