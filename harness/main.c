/* harness/main.c: the command table and dispatch of the `callsign` binary. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "harness/cli.h"
#include "harness/session.h"
#include "impls/impl.h"

typedef struct {
  const char *name;
  int (*run)(int argc, char **argv);
  cs_cmd_bit bit;
  const char *args;
  const char *summary;
  const char *notes; /* printed after the options, or NULL */
} command;

static int cmd_help(int argc, char **argv);

static const command commands[] = {
    {"run", cs_cmd_run, CS_CMD_RUN, "[--impl NAME | --impl-cmd -- ARGV...]",
     "check implementations against every property and print the compliance matrix (default)", NULL},
    {"replay", cs_cmd_replay, CS_CMD_REPLAY, "--impl NAME TOKEN|FILE|-",
     "re-run one case from a replay token or a saved case file ('-': the file on stdin)", NULL},
    {"vectors", cs_cmd_vectors, CS_CMD_VECTORS, "[--check | --generate] [FILE]",
     "check or regenerate the canonical v1 vectors (--check -: from stdin; --generate rewrites a file, not -)", NULL},
    {"canon", cs_cmd_canon, CS_CMD_CANON, "[FILE]",
     "print the reference's canonical IDs for one history (file or stdin)", NULL},
    {"emit", cs_cmd_emit, CS_CMD_EMIT, "--target T [FILE]",
     "print the reference's wire IDs for one history and target (exit 2 when the rule has no room for them)", NULL},
    {"probe", cs_cmd_probe, CS_CMD_PROBE, "--provider P [--model M] [--base-url URL] [--discover] [--dry-run]",
     "send live requests to a provider and compare its verdicts with callsign's rule (or --discover it)", NULL},
    {"fuzz", cs_cmd_fuzz, CS_CMD_FUZZ, "--impl NAME | --impl-cmd -- ARGV... [--time D] [--jobs N] [--shard I/N]",
     "time-bounded campaign; distinct shrunk failures go to --out and the corpus (--merge OUT DIR... merges)", NULL},
    {"collide", cs_cmd_collide, CS_CMD_COLLIDE, "--impl NAME | --impl-cmd -- ARGV... --target T",
     "search for two different IDs an implementation maps to the same ID; plant the pair as a regression case",
     "Without --time or --budget the search runs until a collision or a signal: SIGINT or SIGTERM ends it with\n"
     "the summary of what was searched, saying it was interrupted (the same signal again ends it at once).\n"
     "exit status: 1 a collision was found, 0 none within --budget, --time or before a signal, 2 usage, input\n"
     "or output error (a corpus that cannot be written), 3 the implementation could not be run, answered no\n"
     "request or too few IDs to search, or the pair found could not be confirmed (a fault on every try, or no\n"
     "collision again)"},
    {"list", cs_cmd_list, CS_CMD_LIST, "[--markdown]",
     "list targets, properties, implementations and pathology classes (--markdown: as the README's tables)", NULL},
    {"help", cmd_help, 0, "[COMMAND]", "show this help or a command's options", NULL},
};

static int cmd_help(int argc, char **argv) {
  const char *which = argc > 2 ? argv[2] : NULL;
  if (argc > 3)
    return cs_fail(CS_EXIT_USAGE, "help: unexpected argument '%s'", argv[3]);
  for (size_t i = 0; which && i < sizeof commands / sizeof *commands; i++) {
    if (strcmp(commands[i].name, which) == 0) {
      printf("usage: callsign %s %s\n%s\n\noptions:\n", commands[i].name, commands[i].args, commands[i].summary);
      size_t shown = cs_options_usage(stdout, commands[i].bit);
      /* list and help parse their one option themselves; the table holds the shared ones */
      if (commands[i].run == cs_cmd_list)
        printf("  --markdown   print the tables as Markdown, as the README holds them\n");
      else if (commands[i].run == cmd_help)
        printf("  (none: the argument is a command's name)\n");
      else if (!shown)
        printf("  (none)\n");
      if (commands[i].notes)
        printf("\n%s\n", commands[i].notes);
      return CS_EXIT_OK;
    }
  }
  if (which)
    return cs_fail(CS_EXIT_USAGE, "help: unknown command '%s'", which);
  printf(
      "callsign %s: property-based conformance harness for LLM tool-call IDs\n\nusage: callsign COMMAND [OPTIONS]\n\n",
      CS_VERSION);
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    printf("  %-8s %s\n", commands[i].name, commands[i].summary);
  printf("\n`callsign help COMMAND` lists a command's options. Exit status: 0 all required properties hold,\n"
         "1 a property failed, 2 usage, input or output error, 3 an implementation could not be run.\n");
  return CS_EXIT_OK;
}

static int dispatch(int argc, char **argv) {
  if (argc < 2 || argv[1][0] == '-') {
    /* `--help COMMAND` is `help COMMAND`: argv[2] is the command in both. */
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
      return cmd_help(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "--version")) {
      if (argc > 2)
        return cs_fail(CS_EXIT_USAGE, "--version: unexpected argument '%s'", argv[2]);
      printf("callsign %s\n", CS_VERSION);
      return CS_EXIT_OK;
    }
    /* `callsign` alone, or options alone: the default command is run. */
    return cs_cmd_run(argc, argv);
  }
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
    if (strcmp(commands[i].name, argv[1]) != 0)
      continue;
    /* `run --help` is `help run` (before --impl-cmd --, where the rest is the implementation's). */
    for (int k = 2; k < argc && strcmp(argv[k], "--impl-cmd"); k++)
      if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h"))
        return cmd_help(3, (char *[]){argv[0], "help", argv[1], NULL});
    return commands[i].run(argc, argv);
  }
  return cs_fail(CS_EXIT_USAGE, "unknown command '%s' (see callsign help)", argv[1]);
}

/* Every command's output reaches stdout through stdio, so one check here covers them all: a full
 * disk or a closed pipe must not pass for a printed matrix, ID list or vector verdict. A lost output
 * is an input/output error: it turns 0 or 1 into 2, like a report file that cannot be written in
 * `run`; a 2 or 3 the command already returned stands, with its own reason already on stderr. */
static int check_stdout(int status) {
  errno = 0;
  int flushed = fflush(stdout);
  if ((flushed == 0 && !ferror(stdout)) || status >= CS_EXIT_USAGE)
    return status;
  /* errno is the flush's when it failed; an earlier failed write leaves only the error flag. */
  return cs_fail(CS_EXIT_USAGE, "stdout: %s", flushed && errno ? strerror(errno) : "write error");
}

/* A fatal signal (Ctrl-C, a CI timeout's SIGTERM, a closed terminal, a CPU-time limit's SIGXCPU)
 * ends callsign as it always did, but first the implementations it started: each runs in a process
 * group of its own, which a Ctrl-C at the terminal does not reach, and a hung one would not see its
 * stdin close. */
static void on_fatal_signal(int sig) {
  cs_subprocess_kill_all();
  signal(sig, SIG_DFL);
  raise(sig);
}

int main(int argc, char **argv) {
  /* Every signal whose default action ends the process, but those of a fault in callsign itself
   * (SIGSEGV and kin, left to the sanitizers and the core dump). `fuzz` puts its own graceful
   * handlers over SIGINT and SIGTERM. */
  const int fatal[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF};
  cs_catch_signals(fatal, sizeof fatal / sizeof *fatal, on_fatal_signal, 0);
  /* A closed stdout pipe or a file size limit is an output error like a full disk: the write fails
   * (EPIPE, EFBIG), the reports are still written, and the exit status is 2. */
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN);
  /* cJSON returns NULL when it runs out of memory, which every caller would report as a syntax error
   * in valid input: its allocations end the process as callsign's own do, saying why. */
  cJSON_InitHooks(&(cJSON_Hooks){.malloc_fn = cs_xmalloc, .free_fn = free});
  return check_stdout(dispatch(argc, argv));
}
