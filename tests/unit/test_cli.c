/* Unit tests for harness/cli.c: durations (--time, --deadline), the parsing every command shares. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "harness/cli.h"

Test(cli, durations_in_every_unit) {
  const struct {
    const char *text;
    double seconds;
  } ok[] = {{"30", 30}, {"30s", 30}, {"1.5", 1.5}, {"250ms", 0.25}, {"5m", 300}, {"2h", 7200}, {"0", 0}, {"0.5m", 30}};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    double v = -1;
    cr_assert_eq(cs_parse_duration(ok[i].text, &v), 0, "%s", ok[i].text);
    cr_assert_float_eq(v, ok[i].seconds, 1e-9, "%s: %g", ok[i].text, v);
  }
}

Test(cli, durations_refused) {
  const char *bad[] = {
      "",    "s",   "-1",  "-1s",      "10x",   "10 s",   "10sec", "1d",
      "abc", "nan", "inf", "infinity", "1e999", "1e308h", "1e307m"}; /* finite numbers whose unit makes them infinite */
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    double v = 42;
    cr_assert_eq(cs_parse_duration(bad[i], &v), -1, "%s was taken", bad[i]);
    cr_assert_float_eq(v, 42, 0, "%s: a refused duration writes nothing", bad[i]);
  }
}

/* What `help CMD` lists is what CMD takes: every listed option parses without "does not apply" or
 * a refusal, and the options a command refuses are not listed for it. */
Test(cli, help_lists_exactly_the_options_a_command_takes) {
  static const cs_cmd_bit cmds[] = {CS_CMD_RUN,     CS_CMD_FUZZ, CS_CMD_REPLAY, CS_CMD_COLLIDE, CS_CMD_PROBE,
                                    CS_CMD_VECTORS, CS_CMD_LIST, CS_CMD_CANON,  CS_CMD_EMIT};
  for (size_t c = 0; c < sizeof cmds / sizeof *cmds; c++) {
    char text[8192] = "";
    FILE *f = fmemopen(text, sizeof text - 1, "w");
    cr_assert_not_null(f);
    size_t shown = cs_options_usage(f, cmds[c]);
    fclose(f);
    size_t listed = 0, lines = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
      char opt[64];
      lines++;
      if (sscanf(line, "  %63s", opt) != 1 || strncmp(opt, "--", 2) != 0 || !strcmp(opt, "--impl-cmd"))
        continue;
      char *argv[] = {"callsign", opt, "1", NULL};
      cs_options o = {0};
      cs_err err = {{0}};
      cs_options_parse(&o, 3, argv, 1, cmds[c], &err);
      cr_assert(!strstr(err.msg, "does not apply") && !strstr(err.msg, "writes its results") &&
                    !strstr(err.msg, "are options of") && !strstr(err.msg, "is for fuzz"),
                "command %#x lists %s but refuses it: %s", (unsigned)cmds[c], opt, err.msg);
      listed++;
    }
    cr_assert_eq(shown, lines, "command %#x: %zu options counted, %zu lines", (unsigned)cmds[c], shown, lines);
    /* list parses its one option itself; canon takes none (canonical IDs follow no target's rule) */
    cr_assert(cmds[c] == CS_CMD_LIST || cmds[c] == CS_CMD_CANON || listed > 0, "command %#x lists no option",
              (unsigned)cmds[c]);
    if (cmds[c] == CS_CMD_CANON)
      cr_assert_eq(shown, 0, "canon lists %zu options", shown);
  }
  /* and a refused option says why */
  char *argv[] = {"callsign", "--json", "x.json", NULL};
  cs_options o = {0};
  cs_err err = {{0}};
  cr_assert_eq(cs_options_parse(&o, 3, argv, 1, CS_CMD_FUZZ, &err), -1);
  cr_assert(strstr(err.msg, "--out DIR") != NULL, "%s", err.msg);
}

/* The vectors are one file for every target under the default rules: `vectors` neither lists nor
 * takes --target, --rule or --profile, and says why in one line. */
Test(cli, vectors_takes_no_target_rule_or_profile) {
  char text[8192] = "";
  FILE *f = fmemopen(text, sizeof text - 1, "w");
  cr_assert_not_null(f);
  cs_options_usage(f, CS_CMD_VECTORS);
  fclose(f);
  const char *opts[][2] = {{"--target", "anthropic"}, {"--rule", "anthropic.max_len=9"}, {"--profile", "p.txt"}};
  for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
    char listed[32];
    snprintf(listed, sizeof listed, "  %s ", opts[i][0]);
    cr_assert_null(strstr(text, listed), "help vectors lists %s", opts[i][0]);
    char *argv[] = {"callsign", (char *)opts[i][0], (char *)opts[i][1], NULL};
    cs_options o = {0};
    cs_err err = {{0}};
    cr_assert_eq(cs_options_parse(&o, 3, argv, 1, CS_CMD_VECTORS, &err), -1, "vectors took %s", opts[i][0]);
    cr_assert(strstr(err.msg, opts[i][0]) && strstr(err.msg, "does not apply") && !strchr(err.msg, '\n'), "%s",
              err.msg);
  }
}

/* Parses one option with its value for `cmd`: 0, or -1 with the reason in `err`. */
/* --deadline applies to an external program only: it gets one. */
static int parse_one(cs_cmd_bit cmd, const char *opt, const char *value, cs_options *o, cs_err *err) {
  char *argv[] = {"callsign", (char *)opt, (char *)value, "--impl-cmd", "--", "prog", NULL};
  memset(err, 0, sizeof *err);
  return cs_options_parse(o, strcmp(opt, "--deadline") ? 3 : 6, argv, 1, cmd, err);
}

/* replay runs the one case its token or file gives: `replay --cases 5000 --time 1h cs1.AA` ran one
 * case and passed. What it ignores is refused, saying why; what shapes the case or its run stays. */
Test(cli, replay_refuses_what_it_ignores) {
  cs_options o;
  cs_err err;
  const char *ignored[][2] = {
      {"--cases", "5000"}, {"--time", "1h"}, {"--seed", "7"}, {"--jobs", "2"}, {"--shard", "0/2"}};
  for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++) {
    cr_assert_eq(parse_one(CS_CMD_REPLAY, ignored[i][0], ignored[i][1], &o, &err), -1, "replay took %s", ignored[i][0]);
    char want[64];
    snprintf(want, sizeof want, "replay: %s does not apply", ignored[i][0]);
    cr_assert(strstr(err.msg, want) == err.msg, "%s", err.msg);
    cr_assert_eq(parse_one(CS_CMD_RUN, ignored[i][0], ignored[i][1], &o, &err), 0, "run: %s", err.msg);
  }
  const char *used[][2] = {{"--deadline", "100"},  {"--max-id-len", "64"},       {"--rule", "mistral.max_len=9"},
                           {"--profile", "p.txt"}, {"--property", "emit.regex"}, {"--target", "mistral"},
                           {"--quiet", NULL},      {"--strict", NULL},           {"--json", "r.json"}};
  for (size_t i = 0; i < sizeof used / sizeof *used; i++) {
    if (used[i][1]) {
      cr_assert_eq(parse_one(CS_CMD_REPLAY, used[i][0], used[i][1], &o, &err), 0, "%s: %s", used[i][0], err.msg);
      continue;
    }
    char *argv[] = {"callsign", (char *)used[i][0], NULL};
    memset(&err, 0, sizeof err);
    cr_assert_eq(cs_options_parse(&o, 2, argv, 1, CS_CMD_REPLAY, &err), 0, "%s: %s", used[i][0], err.msg);
  }
}

/* protocol.answer judges the requests of other properties: named alone, a run or a campaign would
 * send none and pass; a replay sends every request of its case, so it takes it. */
Test(cli, protocol_answer_alone_is_refused_but_in_replay) {
  cs_options o;
  cs_err err = {{0}};
  cr_assert_eq(parse_one(CS_CMD_RUN, "--property", "protocol.answer", &o, &err), -1);
  cr_assert(strstr(err.msg, "sends none of its own"), "%s", err.msg);
  cr_assert_eq(parse_one(CS_CMD_FUZZ, "--property", "protocol", &o, &err), -1);
  cr_assert_eq(parse_one(CS_CMD_REPLAY, "--property", "protocol.answer", &o, &err), 0, "%s", err.msg);
  char *argv[] = {"callsign", "--property", "protocol.answer", "--property", "emit.regex", NULL};
  cr_assert_eq(cs_options_parse(&o, 5, argv, 1, CS_CMD_RUN, &err), 0, "%s", err.msg);
  /* vectors reads a file and sends no request: with it, protocol.answer still checks nothing */
  char *with_vectors[] = {"callsign", "--property", "protocol.answer", "--property", "vectors", NULL};
  cr_assert_eq(cs_options_parse(&o, 5, with_vectors, 1, CS_CMD_RUN, &err), -1);
  cr_assert_eq(parse_one(CS_CMD_RUN, "--property", "vectors", &o, &err), 0, "vectors alone: %s", err.msg);
}

/* Under a bound other than the default the corpus's tokens are other cases: run and fuzz leave it
 * alone (and say so); the default bound, given or not, keeps it; replay has no corpus. */
Test(cli, another_id_bound_turns_the_corpus_off) {
  cs_options o;
  cs_err err = {{0}};
  cr_assert_eq(parse_one(CS_CMD_RUN, "--max-id-len", "8", &o, &err), 0, "%s", err.msg);
  cr_assert(o.no_corpus && o.corpus_off_for_bound);
  cr_assert_eq(parse_one(CS_CMD_FUZZ, "--max-id-len", "100", &o, &err), 0, "%s", err.msg);
  cr_assert(o.no_corpus && o.corpus_off_for_bound);
  cr_assert_eq(parse_one(CS_CMD_RUN, "--max-id-len", "65536", &o, &err), 0, "%s", err.msg);
  cr_assert(!o.no_corpus && !o.corpus_off_for_bound);
  cr_assert_eq(parse_one(CS_CMD_REPLAY, "--max-id-len", "8", &o, &err), 0, "%s", err.msg);
  cr_assert_not(o.corpus_off_for_bound);
}

/* Bounded whole-number options: 0 is refused rather than read as the default, and so is a value
 * past the bound (generated IDs are held whole in memory: a length near 4 GiB exhausted it; a
 * deadline past an hour lets a hung implementation stall the run). */
Test(cli, bounded_options) {
  static const struct {
    const char *opt, *low, *high, *bad[3], *why;
    size_t field; /* offset of the unsigned field in cs_options */
    unsigned want_low, want_high;
  } rows[] = {
      {"--max-id-len",
       "1",
       "1048576",
       {"0", "1048577", "4294967295"},
       "--max-id-len: must be 1 to 1048576",
       offsetof(cs_options, max_id_len),
       1,
       1048576},
      {"--deadline",
       "1",
       "3600000",
       {"0", "3600001", "4294967295"},
       "--deadline: must be 1 to 3600000 milliseconds",
       offsetof(cs_options, deadline_ms),
       1,
       3600000},
  };
  for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
    cs_options o;
    cs_err err;
    cr_assert_eq(parse_one(CS_CMD_RUN, rows[r].opt, rows[r].low, &o, &err), 0, "%s", err.msg);
    cr_assert_eq(*(unsigned *)((char *)&o + rows[r].field), rows[r].want_low, "%s", rows[r].opt);
    cr_assert_eq(parse_one(CS_CMD_FUZZ, rows[r].opt, rows[r].high, &o, &err), 0, "%s", err.msg);
    cr_assert_eq(*(unsigned *)((char *)&o + rows[r].field), rows[r].want_high, "%s", rows[r].opt);
    for (size_t i = 0; i < 3; i++) {
      cr_assert_eq(parse_one(CS_CMD_RUN, rows[r].opt, rows[r].bad[i], &o, &err), -1, "%s %s was taken", rows[r].opt,
                   rows[r].bad[i]);
      cr_assert_str_eq(err.msg, rows[r].why);
    }
  }
}

/* --time 0 meant no limit in run and the default ten minutes in fuzz: refused in both, and so is
 * a time too long to add to a clock. */
Test(cli, time_zero_is_refused) {
  cs_options o;
  cs_err err;
  const cs_cmd_bit cmds[] = {CS_CMD_RUN, CS_CMD_FUZZ, CS_CMD_COLLIDE};
  for (size_t i = 0; i < 3; i++) {
    for (const char *const *v = (const char *const[]){"0", "0s", "0m", NULL}; *v; v++) {
      cr_assert_eq(parse_one(cmds[i], "--time", *v, &o, &err), -1, "%s was taken", *v);
      cr_assert_str_eq(err.msg, "--time: must be more than 0 (leave it out for the default)");
    }
    cr_assert_eq(parse_one(cmds[i], "--time", "1s", &o, &err), 0, "%s", err.msg);
    cr_assert_eq(o.time_s, 1.0);
    /* A stop time in nanoseconds past 2^63 wrapped into the past: every case was "cut". */
    cr_assert_eq(parse_one(cmds[i], "--time", "8760h", &o, &err), 0, "%s", err.msg);
    for (const char *const *v = (const char *const[]){"8761h", "1e10", "2562047h", NULL}; *v; v++) {
      cr_assert_eq(parse_one(cmds[i], "--time", *v, &o, &err), -1, "%s was taken", *v);
      cr_assert_str_eq(err.msg, "--time: at most 8760h (a year)");
    }
  }
}

/* A whole number too large for its option is named as such, not as "not a whole number". */
Test(cli, too_large_number_is_named) {
  cs_options o;
  cs_err err;
  cr_assert_eq(parse_one(CS_CMD_RUN, "--deadline", "4294967296", &o, &err), -1);
  cr_assert_str_eq(err.msg, "--deadline: '4294967296' is more than 4294967295");
  cr_assert_eq(parse_one(CS_CMD_RUN, "--jobs", "99999999999", &o, &err), -1);
  cr_assert_str_eq(err.msg, "--jobs: '99999999999' is more than 4294967295");
  cr_assert_eq(parse_one(CS_CMD_RUN, "--deadline", "12x", &o, &err), -1);
  cr_assert_str_eq(err.msg, "--deadline: '12x' is not a whole number");
}

/* A probe with --max-requests 0 sent the default 50 requests: 0 is refused instead. */
Test(cli, max_requests_zero_is_refused) {
  cs_options o;
  cs_err err;
  cr_assert_eq(parse_one(CS_CMD_PROBE, "--max-requests", "0", &o, &err), -1, "0 was taken");
  cr_assert_str_eq(err.msg, "--max-requests: must be at least 1");
  cr_assert_eq(parse_one(CS_CMD_PROBE, "--max-requests", "1", &o, &err), 0, "%s", err.msg);
  cr_assert_eq(o.max_requests, 1);
}

/* run --cases 0 ran the default 2000 cases, fuzz --cases 0 a ten-minute campaign and probe 4
 * cases: 0 is refused in every command that takes --cases. */
Test(cli, cases_zero_is_refused) {
  const cs_cmd_bit cmds[] = {CS_CMD_RUN, CS_CMD_FUZZ, CS_CMD_PROBE};
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
    cs_options o;
    cs_err err;
    cr_assert_eq(parse_one(cmds[i], "--cases", "0", &o, &err), -1, "command %#x took --cases 0", (unsigned)cmds[i]);
    cr_assert_str_eq(err.msg, "--cases: must be at least 1");
    cr_assert_eq(parse_one(cmds[i], "--cases", "1", &o, &err), 0, "%s", err.msg);
    cr_assert_eq(o.cases, 1);
  }
}

/* --rate near 0 made the pause between requests endless (or overflowed its time_t). */
Test(cli, rate_is_bounded) {
  cs_options o;
  cs_err err;
  const char *bad[] = {"1e-300", "1e-9", "0.0099", "1000.5", "1e300"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    cr_assert_eq(parse_one(CS_CMD_PROBE, "--rate", bad[i], &o, &err), -1, "%s was taken", bad[i]);
    cr_assert_str_eq(err.msg, "--rate: must be 0.01 to 1000 requests per second");
  }
  const char *good[] = {"0.01", "2", "1000"};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++)
    cr_assert_eq(parse_one(CS_CMD_PROBE, "--rate", good[i], &o, &err), 0, "%s: %s", good[i], err.msg);
}

/* A --memory above the machine's memory is refused as an option, before collide opens anything;
 * the table it asked for could not be allocated (or aborted the process). */
Test(cli, memory_above_the_machine_is_refused) {
  cs_options o;
  cs_err err;
  const char *bad[] = {"1e15", "900000G"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    cr_assert_eq(parse_one(CS_CMD_COLLIDE, "--memory", bad[i], &o, &err), -1, "%s was taken", bad[i]);
    cr_assert(strstr(err.msg, "is more than this machine's memory") != NULL, "%s: %s", bad[i], err.msg);
  }
  cr_assert_eq(parse_one(CS_CMD_COLLIDE, "--memory", "64M", &o, &err), 0, "%s", err.msg);
  cr_assert_eq(o.memory, (uint64_t)64 << 20);
}

/* A long bad value is echoed as a short excerpt, so the reason after it is never cut off. */
Test(cli, a_long_value_keeps_its_reason) {
  static char v[1500];
  memset(v, '7', sizeof v - 2);
  v[sizeof v - 2] = 'x';
  static const struct {
    cs_cmd_bit cmd;
    const char *opt, *reason;
  } rows[] = {
      {CS_CMD_RUN, "--cases", "...' is not a whole number"},
      {CS_CMD_RUN, "--time", "...' is not a duration (30s, 5m, 2h)"},
      {CS_CMD_RUN, "--min-coverage", "...' is not a share (0.02 or 2%)"},
      {CS_CMD_RUN, "--target", "...' (see callsign list)"},
      {CS_CMD_RUN, "--property", "...' (see callsign list)"},
      {CS_CMD_RUN, "--shard", "...' is not I/N with 0 <= I < N"},
      {CS_CMD_PROBE, "--rate", "...' is not a positive number"},
      {CS_CMD_COLLIDE, "--memory", "...' is not a size from 64K (512M, 2G)"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    cs_options o;
    cs_err err;
    cr_assert_eq(parse_one(rows[i].cmd, rows[i].opt, v, &o, &err), -1, "%s took it", rows[i].opt);
    cr_assert(strstr(err.msg, rows[i].reason) != NULL, "%s: %s", rows[i].opt, err.msg);
    cr_assert_lt(strlen(err.msg), 200, "%s: %s", rows[i].opt, err.msg);
  }
  v[0] = '-';
  char *argv[] = {"callsign", v, NULL};
  cs_options o;
  cs_err err = {{0}};
  cr_assert_eq(cs_options_parse(&o, 2, argv, 1, CS_CMD_RUN, &err), -1);
  cr_assert(strstr(err.msg, "...' (options are --long)") != NULL, "%s", err.msg);
}

/* Reports are written one after the other: a report option given twice, or two reports naming one
 * file, would silently lose a report. Both are refused before the run. */
Test(cli, each_report_gets_its_own_file) {
  const char *twice[][5] = {{"--json", "a.json", "--json", "b.json", "--json given twice"},
                            {"--junit", "a.xml", "--junit", "a.xml", "--junit given twice"},
                            {"--failures", "f", "--failures", "g", "--failures given twice"}};
  for (size_t i = 0; i < sizeof twice / sizeof *twice; i++) {
    char *argv[] = {"callsign",          (char *)twice[i][0], (char *)twice[i][1],
                    (char *)twice[i][2], (char *)twice[i][3], NULL};
    cs_options o;
    cs_err err = {{0}};
    cr_assert_eq(cs_options_parse(&o, 5, argv, 1, CS_CMD_RUN, &err), -1, "%s", twice[i][4]);
    cr_assert_str_eq(err.msg, twice[i][4]);
  }
  char root[] = "/tmp/cs-cli-XXXXXX", a[64], b[80], made_dir[64];
  cr_assert_not_null(mkdtemp(root));
  snprintf(a, sizeof a, "%s/new/deeper/same.out", root);
  snprintf(b, sizeof b, "%s/new/deeper/./same.out", root);
  char *argv[] = {"callsign", "--junit", a, "--json", b, NULL};
  cs_options o;
  cs_err err = {{0}};
  cs_made made = {0};
  cr_assert_eq(cs_options_parse(&o, 5, argv, 1, CS_CMD_RUN, &err), 0, "%s", err.msg);
  cr_assert_eq(cs_options_prepare_reports(&o, &made, &err), -1, "two reports in one file");
  cr_assert(strstr(err.msg, "are the same file") && strstr(err.msg, "--junit") && strstr(err.msg, "--json"), "%s",
            err.msg);
  /* The refused command takes back the directories made for its first report. */
  snprintf(made_dir, sizeof made_dir, "%s/new", root);
  cr_assert_eq(made.n, 2, "made %zu directories, not new and new/deeper", made.n);
  cr_assert_str_eq(made.dir[0], made_dir);
  cs_made_undo(&made);
  cr_assert_eq(made.n, 0);
  cr_assert_eq(access(made_dir, F_OK), -1, "%s was left behind", made_dir);
  snprintf(a, sizeof a, "%s/same.out", root);
  snprintf(b, sizeof b, "%s/other.out", root);
  argv[4] = b;
  cr_assert_eq(cs_options_parse(&o, 5, argv, 1, CS_CMD_RUN, &err), 0, "%s", err.msg);
  cr_assert_eq(cs_options_prepare_reports(&o, &made, &err), 0, "%s", err.msg);
  cr_assert_eq(made.n, 0, "the directory was there: nothing made");
  cr_assert_eq(rmdir(root), 0, "a report file was left behind");
}

/* 64-bit values past 2^64 - 1 are named as too large. */
Test(cli, too_large_u64_is_named) {
  cs_options o;
  cs_err err;
  cr_assert_eq(parse_one(CS_CMD_RUN, "--seed", "18446744073709551616", &o, &err), -1);
  cr_assert_str_eq(err.msg, "--seed: '18446744073709551616' is more than 18446744073709551615");
  cr_assert_eq(parse_one(CS_CMD_RUN, "--seed", "18446744073709551615", &o, &err), 0, "%s", err.msg);
}

/* A share is the decimal it states: 12.3% is 0.123 exactly as the double nearest it, not
 * 12.3 / 100 (0.12300000000000001), which would put a class at 123 of 1000 cases below it. */
Test(cli, share_is_the_decimal_it_states) {
  cs_options o;
  cs_err err;
  const char *same[][2] = {{"12.3%", "0.123"}, {"12.3", "0.123"}, {"33.3%", "0.333"}, {"0.9%", "0.009"},
                           {"5.", "0.05"},     {".5", "0.5"},     {"100%", "1.0"},    {"0", "0"}};
  for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
    cr_assert_eq(parse_one(CS_CMD_RUN, "--min-coverage", same[i][0], &o, &err), 0, "%s", err.msg);
    cr_assert_eq(o.min_coverage, strtod(same[i][1], NULL), "%s read as %.17g", same[i][0], o.min_coverage);
  }
  cr_assert_eq(parse_one(CS_CMD_RUN, "--min-coverage", "12.3%", &o, &err), 0);
  cr_assert_eq(o.min_coverage, 123.0 / 1000.0, "a class at 123 of 1000 cases is at the threshold, not below");
  for (const char *const *v =
           (const char *const[]){"0x10", " 1%", "5 ", "1e-2", "1e-400", "nan", "-1", "%", ".", "", "1%%", NULL};
       *v; v++) {
    cr_assert_eq(parse_one(CS_CMD_RUN, "--min-coverage", *v, &o, &err), -1, "'%s' was taken", *v);
    cr_assert(strstr(err.msg, "is not a share"), "%s", err.msg);
  }
}

/* An option that takes one value, given twice, is refused: the last would silently win. Lists
 * (--impl, --target, --property, --rule) add up. */
Test(cli, one_value_options_given_twice_are_refused) {
  cs_options o;
  cs_err err;
  char *twice[] = {"callsign", "run", "--shard", "0/2", "--cases", "5", "--shard", "1/2"};
  cr_assert_eq(cs_options_parse(&o, 8, twice, 2, CS_CMD_RUN, &err), -1);
  cr_assert_str_eq(err.msg, "--shard given twice");
  char *eq[] = {"callsign", "run", "--seed=1", "--seed", "2"};
  cr_assert_eq(cs_options_parse(&o, 5, eq, 2, CS_CMD_RUN, &err), -1);
  cr_assert_str_eq(err.msg, "--seed given twice");
  char *lists[] = {"callsign",   "run",   "--impl",   "reference",      "--impl",     "prefix-swap",
                   "--target",   "kimi",  "--target", "mistral",        "--property", "emit",
                   "--property", "canon", "--rule",   "kimi.min_len=2", "--rule",     "mistral.min_len=9"};
  cr_assert_eq(cs_options_parse(&o, 18, lists, 2, CS_CMD_RUN, &err), 0, "%s", err.msg);
  cr_assert_eq(o.nimpls, 2);
  cr_assert_eq(o.nrules, 2);
  /* A list is a set: a repeated target would pass emit's and collide's "exactly one" unseen. */
  char *target_twice[] = {"callsign", "emit", "--target", "mistral", "--target", "mistral", "h.json"};
  cr_assert_eq(cs_options_parse(&o, 7, target_twice, 2, CS_CMD_EMIT, &err), -1);
  cr_assert_str_eq(err.msg, "--target mistral given twice");
}

/* Values an option would silently drop or never use are refused. */
Test(cli, values_that_would_be_unused_are_refused) {
  cs_options o;
  cs_err err;
  char *cmd_value[] = {"callsign", "run", "--impl-cmd=garbage", "--", "prog"};
  cr_assert_eq(cs_options_parse(&o, 5, cmd_value, 2, CS_CMD_RUN, &err), -1, "--impl-cmd=VALUE was taken");
  cr_assert_not_null(strstr(err.msg, "--impl-cmd takes no value"), "%s", err.msg);
  char *builtin_deadline[] = {"callsign", "run", "--impl", "reference", "--deadline", "1"};
  cr_assert_eq(cs_options_parse(&o, 6, builtin_deadline, 2, CS_CMD_RUN, &err), -1);
  cr_assert_not_null(strstr(err.msg, "--deadline applies to --impl-cmd"), "%s", err.msg);
  char *ext_deadline[] = {"callsign", "run", "--deadline", "1", "--impl-cmd", "--", "prog"};
  cr_assert_eq(cs_options_parse(&o, 7, ext_deadline, 2, CS_CMD_RUN, &err), 0, "%s", err.msg);
  cr_assert_eq(o.deadline_ms, 1);
}

/* JSON files callsign writes (fuzz's summary.json, the vectors) escape U+2028 and U+2029 as the
 * reports do; every other character is written as cJSON prints it. */
Test(cli, written_json_escapes_line_separators) {
  char dir[] = "/tmp/cs-cli-XXXXXX", path[64];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/s.json", dir);
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "m",
                          "a\xE2\x80\xA8"
                          "b\xE2\x80\xA9"
                          "c\xE2\x80\xA7"
                          "d");
  cs_err err = {{0}};
  cr_assert_eq(cs_write_json(path, root, &err), 0, "%s", err.msg);
  cJSON_Delete(root);
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f);
  char text[256] = "";
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  cr_assert_not_null(strstr(text, "\"a\\u2028b\\u2029c\xE2\x80\xA7"
                                  "d\""),
                     "%s", text);
  cJSON *back = cJSON_Parse(text);
  cr_assert_str_eq(cJSON_GetObjectItem(back, "m")->valuestring, "a\xE2\x80\xA8"
                                                                "b\xE2\x80\xA9"
                                                                "c\xE2\x80\xA7"
                                                                "d");
  cJSON_Delete(back);
  unlink(path);
  rmdir(dir);
}
