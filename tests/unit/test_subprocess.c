/* tests/unit/test_subprocess.c: impls/subprocess.c against the fixture programs in tests/fixtures/:
 * hello parsing, correct replies, every fault status followed by correct answers after the restart,
 * pipelining, the bounded stderr tail, start failures, and no leaked fds or zombies. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/history_json.h"
#include "impls/impl.h"
#include "impls/subprocess_parse.h"

#define ECHO "tests/fixtures/proto_echo.py"
#define MINI "tests/fixtures/proto_mini.sh"

static cs_arena A;
static void setup(void) {
  memset(&A, 0, sizeof A);
}
static void teardown(void) {
  cs_arena_free(&A);
}
TestSuite(subprocess, .init = setup, .fini = teardown, .timeout = 60);

static int restart_impl(cs_impl *im, cs_err *err) {
  return im->vt->restart(im, err);
}

static const cs_subprocess_config FAST = {.deadline_ms = 300};
static const cs_subprocess_config SLOW_DEADLINE = {.deadline_ms = 30000};

/* Opens the echo fixture with extra arguments (NULL-terminated list). */
static cs_impl *open_echo(const cs_subprocess_config *cfg, const char *const *extra) {
  char *argv[16] = {ECHO};
  size_t n = 1;
  for (; extra && *extra && n < 15; extra++)
    argv[n++] = (char *)*extra;
  argv[n] = NULL;
  cs_err err = {{0}};
  cs_impl *im = cs_subprocess_open(argv, cfg, &err);
  cr_assert_not_null(im, "open failed: %s", err.msg);
  return im;
}
#define OPEN_ECHO(cfg, ...) open_echo((cfg), (const char *const[]){__VA_ARGS__, NULL})

/* Opening must fail; the one-line message must contain each of `parts`. */
static void open_fails(char *const *argv, const char *const *parts) {
  cs_err err = {{0}};
  cs_impl *im = cs_subprocess_open(argv, &FAST, &err);
  cr_assert_null(im, "opened %s", argv[0]);
  cr_assert_null(strchr(err.msg, '\n'), "message spans lines: %s", err.msg);
  for (; *parts; parts++)
    cr_assert_not_null(strstr(err.msg, *parts), "message \"%s\" lacks \"%s\"", err.msg, *parts);
  cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "a child was left behind");
}
#define OPEN_FAILS(argv, ...) open_fails((argv), (const char *const[]){__VA_ARGS__, NULL})

static cs_history *history(const char *json) {
  cs_history *h = CS_ARENA_NEW(&A, cs_history, 1);
  cs_err err;
  cr_assert_eq(cs_history_parse(cs_str_c(json), NULL, &A, h, &err), 0, "%s", err.msg);
  return h;
}

/* One normalize request for anthropic with a single ID. */
static cs_request norm1(const char *id) {
  cs_str *ids = CS_ARENA_NEW(&A, cs_str, 1);
  ids[0] = cs_arena_strc(&A, id);
  return (cs_request){.op = CS_OP_NORMALIZE, .target = CS_PROV_ANTHROPIC, .ids = ids, .nids = 1};
}

static void assert_norm_ok(const cs_reply *r, const char *id, size_t i) {
  cr_assert_eq(r->status, CS_REPLY_OK, "reply %zu: status %s: %.*s", i, cs_reply_status_name(r->status),
               (int)r->message.len, r->message.ptr ? r->message.ptr : "");
  cr_assert_eq(r->nids, 1, "reply %zu", i);
  cr_assert(cs_str_eq_c(r->ids[0], id), "reply %zu: got %.*s, want %s", i, (int)r->ids[0].len, r->ids[0].ptr, id);
}

static void assert_fault(const cs_reply *r, cs_reply_status st, const char *part) {
  cr_assert_eq(r->status, st, "status %s, want %s: %.*s", cs_reply_status_name(r->status), cs_reply_status_name(st),
               (int)r->message.len, r->message.ptr ? r->message.ptr : "");
  cr_assert_not_null(r->message.ptr);
  cr_assert_null(memchr(r->message.ptr, '\n', r->message.len), "message spans lines");
  cr_assert_not_null(strstr(r->message.ptr, part), "message \"%s\" lacks \"%s\"", r->message.ptr, part);
}

static int count_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  cr_assert_not_null(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* Sends five single-ID normalize requests, the third carrying TRIGGER; checks that only the third
 * gets `st` (message containing `part`), that the others are answered correctly, and that a later
 * batch is answered too. */
static void fault_then_recover(const char *opt, cs_reply_status st, const char *part, const cs_subprocess_config *cfg) {
  cs_impl *im = OPEN_ECHO(cfg, opt, "TRIGGER");
  const char *ids[5] = {"a1", "b2", "TRIGGER", "d4", "e5"};
  cs_request rq[5];
  cs_reply rep[5];
  for (int i = 0; i < 5; i++)
    rq[i] = norm1(ids[i]);
  cs_err err;
  cr_assert_eq(cs_impl_exec(im, rq, rep, 5, &A, &err), 0, "%s", err.msg);
  for (size_t i = 0; i < 5; i++)
    if (i == 2)
      assert_fault(&rep[i], st, part);
    else
      assert_norm_ok(&rep[i], ids[i], i);
  cr_assert_eq(cs_impl_exec(im, &rq[3], rep, 2, &A, &err), 0, "%s", err.msg);
  assert_norm_ok(&rep[0], "d4", 0);
  assert_norm_ok(&rep[1], "e5", 1);
  cs_impl_destroy(im);
  cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "a child was left behind");
}

Test(subprocess, hello_is_parsed) {
  cs_impl *im = OPEN_ECHO(&FAST, "--scheme", "callsign-canonical-v1", "--ops", "emit,canonicalize,normalize,frobnicate",
                          "--targets", "anthropic,openai_chat,mars");
  cr_assert_str_eq(im->info.name, "proto-echo");
  cr_assert_str_eq(im->info.version, "0.3");
  cr_assert_eq(im->info.ops, CS_OP_ALL, "unknown op 'frobnicate' must be ignored");
  unsigned want = (1u << CS_PROV_ANTHROPIC) | (1u << CS_PROV_OPENAI_CHAT); /* 'mars' is ignored */
  cr_assert_eq(im->info.emit_targets, want);
  cr_assert_eq(im->info.normalize_targets, want);
  cr_assert(im->info.claims_canonical_v1);
  cr_assert_str_eq(im->info.unknown, "op \"frobnicate\", target \"mars\"");
  cs_impl_destroy(im);

  im = OPEN_ECHO(&FAST, "--ops", "normalize", "--targets", "mistral,kimi");
  cr_assert_eq(im->info.ops, CS_OP_NORMALIZE);
  cr_assert_eq(im->info.emit_targets, 0);
  cr_assert_eq(im->info.normalize_targets, (1u << CS_PROV_MISTRAL) | (1u << CS_PROV_KIMI));
  cr_assert_not(im->info.claims_canonical_v1);
  cs_impl_destroy(im);

  char *mini[] = {MINI, NULL};
  cs_err err;
  im = cs_subprocess_open(mini, NULL, &err);
  cr_assert_not_null(im, "%s", err.msg);
  cr_assert_str_eq(im->info.name, "mini");
  cr_assert(im->info.claims_canonical_v1);
  cr_assert_eq(im->info.normalize_targets, 1u << CS_PROV_GEMINI);
  cs_impl_destroy(im);
}

static const char *HIST = "{\"turns\":[{\"role\":\"user\",\"text\":\"hi\"},"
                          "{\"role\":\"assistant\",\"provider\":\"kimi\",\"turn_key\":\"k2\",\"calls\":["
                          "{\"id\":\"functions.glob:0\",\"name\":\"glob\",\"args\":{\"p\":\"*.c\"}},"
                          "{\"id\":null,\"name\":\"read_file\",\"args\":{}},"
                          "{\"id\":\"q\\\"uo\\\\te \xe2\x80\xa8 \xf0\x9f\x98\x80 \\u0001\",\"name\":\"x\"},"
                          "{\"id\":\"srvtoolu_01AbC\",\"name\":\"web_search\",\"server\":true}]},"
                          "{\"role\":\"tool\",\"turn_key\":\"k3\",\"results\":["
                          "{\"call_id\":\"functions.glob:0\",\"name\":\"glob\",\"content\":\"a.c\"},"
                          "{\"call_id\":null,\"name\":\"read_file\",\"content\":\"...\"},"
                          "{\"call_id\":\"\",\"name\":\"x\"}]}]}";

static void assert_echo_answer(const cs_reply *r, const cs_history *h) {
  cr_assert_eq(r->status, CS_REPLY_OK, "%.*s", (int)r->message.len, r->message.ptr ? r->message.ptr : "");
  cs_history_index ix;
  cs_history_index_build(h, &A, &ix);
  cr_assert_eq(r->answer.ncalls, ix.ncalls);
  cr_assert_eq(r->answer.nresults, ix.nresults);
  for (uint32_t i = 0; i < ix.ncalls; i++)
    cr_assert(cs_str_eq(r->answer.calls[i], ix.calls[i]->id), "call %u", i);
  for (uint32_t i = 0; i < ix.nresults; i++)
    cr_assert(cs_str_eq(r->answer.results[i], ix.results[i]->call_id), "result %u", i);
}

Test(subprocess, replies_are_correct) {
  cs_impl *im = OPEN_ECHO(&FAST, "--targets", "anthropic");
  cs_history *h = history(HIST);
  cs_str ids[4] = {cs_str_c("a|b"), CS_NULL_STR, cs_str_c(""), cs_str_c("\xc3\xa9\n\"")};
  cs_request rq[3] = {
      {.op = CS_OP_EMIT, .target = CS_PROV_ANTHROPIC, .history = h},
      {.op = CS_OP_CANONICALIZE, .history = h},
      {.op = CS_OP_NORMALIZE, .target = CS_PROV_MISTRAL, .ids = ids, .nids = 4},
  };
  cs_reply rep[3];
  cs_err err;
  cr_assert_eq(cs_impl_exec(im, rq, rep, 3, &A, &err), 0, "%s", err.msg);
  assert_echo_answer(&rep[0], h);
  assert_echo_answer(&rep[1], h);
  cr_assert_eq(rep[2].status, CS_REPLY_OK);
  cr_assert_eq(rep[2].nids, 4);
  for (int i = 0; i < 4; i++)
    cr_assert(cs_str_eq(rep[2].ids[i], ids[i]), "id %d", i);
  /* Zero requests, and an empty history. */
  cr_assert_eq(cs_impl_exec(im, rq, rep, 0, &A, &err), 0);
  cs_history *empty = history("{\"turns\":[]}");
  cs_request e = {.op = CS_OP_CANONICALIZE, .history = empty};
  cr_assert_eq(cs_impl_exec(im, &e, rep, 1, &A, &err), 0, "%s", err.msg);
  cr_assert_eq(rep[0].status, CS_REPLY_OK);
  cr_assert_eq(rep[0].answer.ncalls, 0);
  cr_assert_eq(restart_impl(im, &err), 0, "%s", err.msg);
  cr_assert_eq(cs_impl_exec(im, rq, rep, 1, &A, &err), 0, "%s", err.msg);
  assert_echo_answer(&rep[0], h);
  cs_impl_destroy(im);
}

Test(subprocess, bad_request_is_an_error) {
  cs_impl *im = OPEN_ECHO(&FAST, "--targets", "anthropic");
  cs_request rq = {.op = (cs_op)9};
  cs_reply rep;
  cs_err err = {{0}};
  cr_assert_eq(cs_impl_exec(im, &rq, &rep, 1, &A, &err), -1);
  cr_assert_not_null(strstr(err.msg, "unknown op"), "%s", err.msg);
  rq = (cs_request){.op = CS_OP_EMIT, .target = CS_PROV_ANTHROPIC};
  cr_assert_eq(cs_impl_exec(im, &rq, &rep, 1, &A, &err), -1);
  cr_assert_not_null(strstr(err.msg, "without a history"), "%s", err.msg);
  cs_impl_destroy(im);
}

Test(subprocess, crash_on_request) {
  fault_then_recover("--crash-on", CS_REPLY_CRASH, "exited with status 3", &FAST);
}
Test(subprocess, crash_message_has_stderr) {
  fault_then_recover("--crash-on", CS_REPLY_CRASH, "stderr: fixture: crash-on triggered", &FAST);
}
Test(subprocess, hang_is_a_timeout) {
  fault_then_recover("--hang-on", CS_REPLY_TIMEOUT, "within 300 ms; stderr: fixture: hanging", &FAST);
}
Test(subprocess, garbage_is_protocol) {
  fault_then_recover("--garbage-on", CS_REPLY_PROTOCOL, "answer is not valid JSON text: 1:2: invalid literal", &FAST);
}
Test(subprocess, wrong_seq_is_protocol) {
  fault_then_recover("--wrong-seq-on", CS_REPLY_PROTOCOL, "expected", &FAST);
}
/* PROTOCOL.md ends every line in \n: an answer without one is not taken, and the message says why. */
Test(subprocess, an_answer_without_its_line_end_is_named_at_exit) {
  fault_then_recover(
      "--unended-on", CS_REPLY_CRASH,
      "exited with status 0 before answering seq 3 (normalize anthropic) (30 bytes came without a line end)", &FAST);
}
Test(subprocess, wrong_length_is_protocol) {
  fault_then_recover("--short-on", CS_REPLY_PROTOCOL, "\"ids\" has 0 entries, expected 1", &FAST);
}
Test(subprocess, wrong_type_is_protocol) {
  fault_then_recover("--number-on", CS_REPLY_PROTOCOL, "ids[0] is neither a string nor null", &FAST);
}
Test(subprocess, stdout_flood_is_capped) {
  cs_subprocess_config cfg = {.deadline_ms = 2000, .max_line = 1u << 20};
  fault_then_recover("--huge-on", CS_REPLY_PROTOCOL, "longer than 1048576 bytes", &cfg);
}

Test(subprocess, error_answer_is_rejected_without_restart) {
  /* crash-after 5 counts per process: were the process restarted, all six would be answered. */
  cs_impl *im = OPEN_ECHO(&FAST, "--error-on", "TRIGGER", "--crash-after", "5");
  const char *ids[6] = {"a", "TRIGGER", "c", "d", "e", "f"};
  cs_request rq[6];
  cs_reply rep[6];
  for (int i = 0; i < 6; i++)
    rq[i] = norm1(ids[i]);
  cs_err err;
  cr_assert_eq(cs_impl_exec(im, rq, rep, 6, &A, &err), 0, "%s", err.msg);
  assert_norm_ok(&rep[0], "a", 0);
  assert_fault(&rep[1], CS_REPLY_REJECTED, "cannot handle this ID second line");
  for (size_t i = 2; i < 5; i++)
    assert_norm_ok(&rep[i], ids[i], i);
  assert_fault(&rep[5], CS_REPLY_CRASH, "crashing after 5 requests");
  cs_impl_destroy(im);
}

Test(subprocess, crash_after_k_restarts_each_time) {
  cs_impl *im = OPEN_ECHO(&FAST, "--crash-after", "2");
  const char *ids[6] = {"a", "b", "c", "d", "e", "f"};
  cs_request rq[6];
  cs_reply rep[6];
  for (int i = 0; i < 6; i++)
    rq[i] = norm1(ids[i]);
  cs_err err;
  cr_assert_eq(cs_impl_exec(im, rq, rep, 6, &A, &err), 0, "%s", err.msg);
  for (size_t i = 0; i < 6; i++)
    if (i % 3 == 2)
      assert_fault(&rep[i], CS_REPLY_CRASH, "the process exited with status 3 before answering seq");
    else
      assert_norm_ok(&rep[i], ids[i], i);
  cs_impl_destroy(im);
}

/* One normalize request for `target` with a single ID. */
static cs_request norm_for(cs_target_id target, const char *id) {
  cs_request r = norm1(id);
  r.target = target;
  return r;
}

#define NA CS_PROV_ANTHROPIC
#define NO CS_PROV_OPENAI_CHAT

static void assert_status(const cs_reply *rep, size_t n, const cs_reply_status *want) {
  for (size_t i = 0; i < n; i++)
    cr_assert_eq(rep[i].status, want[i], "reply %zu: %s, want %s: %.*s", i, cs_reply_status_name(rep[i].status),
                 cs_reply_status_name(want[i]), (int)rep[i].message.len, rep[i].message.ptr ? rep[i].message.ptr : "");
}

Test(subprocess, a_kind_that_never_answers_is_given_up) {
  cs_impl *im = OPEN_ECHO(&FAST, "--crash-on", "TRIGGER");
  im->give_up_after = 3;
  /* normalize openai_chat answers first, so only the kind that never answered is given up. */
  cs_request rq[8] = {norm_for(NO, "ok0"),     norm_for(NA, "TRIGGER"), norm_for(NA, "TRIGGER"),
                      norm_for(NA, "TRIGGER"), norm_for(NA, "TRIGGER"), norm_for(NA, "ok1"),
                      norm_for(NO, "TRIGGER"), norm_for(NO, "ok2")};
  cs_reply rep[8];
  cs_err err;
  cr_assert_eq(cs_impl_exec(im, rq, rep, 8, &A, &err), 0, "%s", err.msg);
  const cs_reply_status want[8] = {CS_REPLY_OK,      CS_REPLY_CRASH,   CS_REPLY_CRASH, CS_REPLY_CRASH,
                                   CS_REPLY_SKIPPED, CS_REPLY_SKIPPED, CS_REPLY_CRASH, CS_REPLY_OK};
  assert_status(rep, 8, want);
  assert_fault(&rep[4], CS_REPLY_SKIPPED, "normalize anthropic was given up");
  cs_request one = norm_for(NA, "x");
  cr_assert_eq(im->given_up, 1u << cs_request_kind(&one), "given up: %#x", im->given_up);
  /* Without give_up_after the kind is sent again (shrinking a fault of that kind needs it). */
  im->give_up_after = 0;
  cr_assert_eq(cs_impl_exec(im, &rq[5], rep, 1, &A, &err), 0, "%s", err.msg);
  assert_norm_ok(&rep[0], "ok1", 0);
  cs_impl_destroy(im);
}

Test(subprocess, a_kind_answered_once_is_never_given_up) {
  cs_impl *im = OPEN_ECHO(&FAST, "--crash-on", "TRIGGER");
  im->give_up_after = 2;
  cs_request rq[5] = {norm_for(NA, "ok"), norm_for(NA, "TRIGGER"), norm_for(NA, "TRIGGER"), norm_for(NA, "TRIGGER"),
                      norm_for(NA, "ok2")};
  cs_reply rep[5];
  cs_err err;
  cr_assert_eq(cs_impl_exec(im, rq, rep, 5, &A, &err), 0, "%s", err.msg);
  const cs_reply_status want[5] = {CS_REPLY_OK, CS_REPLY_CRASH, CS_REPLY_CRASH, CS_REPLY_CRASH, CS_REPLY_OK};
  assert_status(rep, 5, want);
  cr_assert_eq(im->given_up, 0);
  cs_impl_destroy(im);
}

/* ...but a program that answers now and then and faults every few requests is given up in full
 * once ten times give_up_after faults were counted: each costs a restart, and a run of them hours. */
Test(subprocess, ten_times_the_limit_in_faults_gives_up_every_kind) {
  cs_impl *im = OPEN_ECHO(&FAST, "--crash-on", "TRIGGER");
  im->give_up_after = 1;
  cs_request rq[21];
  for (size_t i = 0; i < 21; i++)
    rq[i] = norm_for(NA, i % 2 ? "TRIGGER" : "ok"); /* answered, fault, answered, fault, ... */
  cs_reply rep[21];
  cs_err err;
  cr_assert_eq(cs_impl_exec(im, rq, rep, 19, &A, &err), 0, "%s", err.msg);
  cr_assert_eq(im->given_up, 0, "given up after 9 faults: %#x", im->given_up);
  cr_assert_eq(cs_impl_exec(im, &rq[19], rep, 2, &A, &err), 0, "%s", err.msg);
  cr_assert_eq(rep[0].status, CS_REPLY_CRASH, "the tenth fault");
  cr_assert_eq(rep[1].status, CS_REPLY_SKIPPED, "a request after it was sent");
  cr_assert_eq(im->given_up, CS_KINDS_ALL, "given up: %#x", im->given_up);
  cs_impl_destroy(im);
}

/* A rare fault is not given up on, however many came: one in eleven requests, ten times over. */
Test(subprocess, rare_faults_are_never_given_up) {
  cs_impl *im = OPEN_ECHO(&FAST, "--crash-on", "TRIGGER");
  im->give_up_after = 1;
  cs_request rq[120];
  for (size_t i = 0; i < 120; i++)
    rq[i] = norm_for(NA, i % 12 == 11 ? "TRIGGER" : "ok");
  cs_reply rep[120];
  cs_err err;
  cr_assert_eq(cs_impl_exec(im, rq, rep, 120, &A, &err), 0, "%s", err.msg);
  cr_assert_eq(rep[119].status, CS_REPLY_CRASH, "the tenth fault");
  cr_assert_eq(im->given_up, 0, "given up after 10 faults among 110 answers: %#x", im->given_up);
  cs_impl_destroy(im);
}

Test(subprocess, nothing_answered_gives_up_every_kind_and_starts_no_process) {
  cs_impl *im = OPEN_ECHO(&FAST, "--crash-after", "0");
  im->give_up_after = 3;
  cs_request rq[6] = {norm_for(NA, "a"), norm_for(NO, "b"), norm_for(NA, "c"),
                      norm_for(NO, "d"), norm_for(NA, "e"), norm_for(NO, "f")};
  cs_reply rep[6];
  cs_err err;
  cr_assert_eq(cs_impl_exec(im, rq, rep, 6, &A, &err), 0, "%s", err.msg);
  const cs_reply_status want[6] = {CS_REPLY_CRASH,   CS_REPLY_CRASH,   CS_REPLY_CRASH,
                                   CS_REPLY_SKIPPED, CS_REPLY_SKIPPED, CS_REPLY_SKIPPED};
  assert_status(rep, 6, want);
  cr_assert_eq(im->given_up, CS_KINDS_ALL);
  /* A batch of given-up kinds only is answered without a process: no child is left to wait for. */
  cr_assert_eq(cs_impl_exec(im, rq, rep, 2, &A, &err), 0, "%s", err.msg);
  cr_assert_eq(rep[0].status, CS_REPLY_SKIPPED);
  cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "a process was started for skipped requests");
  cs_impl_destroy(im);
}

Test(subprocess, failed_restart_gives_crash_replies_then_skips) {
  char path[] = "/tmp/callsign_once_XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  close(fd);
  unlink(path);
  cs_impl *im = OPEN_ECHO(&FAST, "--once", path, "--crash-on", "TRIGGER");
  cs_request rq[3] = {norm1("a"), norm1("TRIGGER"), norm1("c")};
  cs_reply rep[3];
  cs_err err;
  cr_assert_eq(cs_impl_exec(im, rq, rep, 3, &A, &err), 0, "%s", err.msg);
  assert_norm_ok(&rep[0], "a", 0);
  assert_fault(&rep[1], CS_REPLY_CRASH, "crash-on triggered");
  assert_fault(&rep[2], CS_REPLY_CRASH, "restart failed");
  assert_fault(&rep[2], CS_REPLY_CRASH, "already started once");
  /* The crash is the request's; the restart's fault is the program's start, not request c's. */
  cr_assert(!rep[1].at_start);
  cr_assert(rep[2].at_start);
  /* The next batch tries once more, and fails the same way. */
  cr_assert_eq(cs_impl_exec(im, &rq[0], rep, 1, &A, &err), 0, "%s", err.msg);
  assert_fault(&rep[0], CS_REPLY_CRASH, "restart failed");
  cr_assert(rep[0].at_start);
  cr_assert_eq(restart_impl(im, &err), -1);
  cr_assert_not_null(strstr(err.msg, "exited with status 2"), "%s", err.msg);
  /* Three failed in a row: no more is tried, and a request is not sent, which is no fault. */
  cr_assert_eq(cs_impl_exec(im, &rq[0], rep, 1, &A, &err), 0, "%s", err.msg);
  cr_assert_eq(rep[0].status, CS_REPLY_SKIPPED, "%s", cs_reply_status_name(rep[0].status));
  cr_assert(rep[0].at_start);
  cr_assert_not_null(strstr(rep[0].message.ptr, "not restarted: the last 3 restarts failed"), "%s", rep[0].message.ptr);
  cs_impl_destroy(im);
  unlink(path);
  cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "a child was left behind");
}

static void pipeline_run(unsigned pipeline, size_t n) {
  cs_subprocess_config cfg = {.deadline_ms = 5000, .pipeline = pipeline};
  cs_impl *im = OPEN_ECHO(&cfg, "--targets", "anthropic");
  cs_history *h = history(HIST);
  cs_request *rq = CS_ARENA_NEW(&A, cs_request, n);
  cs_reply *rep = CS_ARENA_NEW(&A, cs_reply, n);
  for (size_t i = 0; i < n; i++)
    rq[i] = i % 3 == 2 ? norm1(cs_arena_printf(&A, "id-%zu", i).ptr)
                       : (cs_request){.op = i % 3 ? CS_OP_CANONICALIZE : CS_OP_EMIT, .history = h};
  cs_err err;
  cr_assert_eq(cs_impl_exec(im, rq, rep, n, &A, &err), 0, "%s", err.msg);
  for (size_t i = 0; i < n; i++)
    if (i % 3 == 2)
      assert_norm_ok(&rep[i], cs_arena_printf(&A, "id-%zu", i).ptr, i);
    else
      assert_echo_answer(&rep[i], h);
  cs_impl_destroy(im);
}

Test(subprocess, pipelining_1000_requests) {
  pipeline_run(0, 1000);
}
Test(subprocess, pipeline_of_one) {
  pipeline_run(1, 50);
}

Test(subprocess, deadline_counts_from_the_previous_answer) {
  /* 12 answers of 60 ms each, all in flight at once: 720 ms in total, but none waits 300 ms. */
  cs_impl *im = OPEN_ECHO(&FAST, "--slow", "0.06");
  cs_request rq[12];
  cs_reply rep[12];
  for (int i = 0; i < 12; i++)
    rq[i] = norm1("s");
  cs_err err;
  cr_assert_eq(cs_impl_exec(im, rq, rep, 12, &A, &err), 0, "%s", err.msg);
  for (size_t i = 0; i < 12; i++)
    assert_norm_ok(&rep[i], "s", i);
  cs_impl_destroy(im);
}

/* A process that dies while a child it started keeps writing to stderr (and holds stdout open):
 * its death is seen at once and is a crash, not a timeout at the deadline. The child dies of
 * SIGPIPE once the pipes are closed. */
Test(subprocess, death_is_seen_while_a_child_keeps_stderr_busy) {
  char *argv[] = {"sh", "-c",
                  "(while :; do echo helper log >&2; done) </dev/null & read -r hello; "
                  "echo '{\"seq\":0,\"protocol\":1,\"name\":\"gc\",\"version\":\"1\",\"ops\":[\"normalize\"],"
                  "\"targets\":[\"anthropic\"]}'; read -r request; exit 7",
                  NULL};
  cs_err err;
  cs_impl *im = cs_subprocess_open(argv, &(cs_subprocess_config){.deadline_ms = 3000}, &err);
  cr_assert_not_null(im, "%s", err.msg);
  cs_request rq = norm1("a");
  cs_reply rep;
  int64_t t0 = cs_now_ns();
  cr_assert_eq(cs_impl_exec(im, &rq, &rep, 1, &A, &err), 0, "%s", err.msg);
  int64_t ms = (cs_now_ns() - t0) / 1000000;
  assert_fault(&rep, CS_REPLY_CRASH, "exited with status 7 before answering seq 1");
  cr_assert_lt(ms, 1000, "the crash took %lld ms to be seen", (long long)ms);
  cs_impl_destroy(im);
}

/* The caller's stop time: what is still unanswered then comes back CS_REPLY_CUT (not a fault), at
 * the stop time, not at the 5 s deadline; answers that came before it are kept; the next batch,
 * without a stop, gets a fresh process. */
Test(subprocess, stop_time_cuts_what_is_unanswered) {
  cs_impl *im = OPEN_ECHO(&(cs_subprocess_config){.deadline_ms = 5000}, "--hang-on", "TRIGGER");
  const char *ids[4] = {"a1", "b2", "TRIGGER", "d4"};
  cs_request rq[4];
  cs_reply rep[4];
  for (int i = 0; i < 4; i++)
    rq[i] = norm1(ids[i]);
  cs_err err;
  int64_t t0 = cs_now_ns();
  im->stop_at_ns = t0 + 400 * 1000000LL;
  cr_assert_eq(cs_impl_exec(im, rq, rep, 4, &A, &err), 0, "%s", err.msg);
  double took_ms = (double)(cs_now_ns() - t0) / 1e6;
  cr_assert(took_ms >= 390 && took_ms < 2500, "exec took %.0f ms for a stop 400 ms away", took_ms);
  assert_norm_ok(&rep[0], "a1", 0);
  assert_norm_ok(&rep[1], "b2", 1);
  assert_fault(&rep[2], CS_REPLY_CUT, "was unanswered after");
  assert_fault(&rep[2], CS_REPLY_CUT, "deadline 5000 ms");
  cr_assert_eq(rep[3].status, CS_REPLY_CUT, "status %s", cs_reply_status_name(rep[3].status));
  im->stop_at_ns = 0;
  cr_assert_eq(cs_impl_exec(im, &rq[3], rep, 1, &A, &err), 0, "%s", err.msg);
  assert_norm_ok(&rep[0], "d4", 0);
  cs_impl_destroy(im);
  cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "a child was left behind");
}

/* A stop time already past: every request is cut at once and nothing is sent (the fixture exits on
 * its third request: had the cut batch gone out, the second batch would meet that crash). */
Test(subprocess, past_stop_time_sends_nothing) {
  cs_impl *im = OPEN_ECHO(&FAST, "--crash-after", "2");
  cs_request rq[2] = {norm1("a1"), norm1("b2")};
  cs_reply rep[2];
  cs_err err;
  im->stop_at_ns = cs_now_ns() - 1;
  cr_assert_eq(cs_impl_exec(im, rq, rep, 2, &A, &err), 0, "%s", err.msg);
  for (size_t i = 0; i < 2; i++)
    cr_assert_eq(rep[i].status, CS_REPLY_CUT, "reply %zu: status %s", i, cs_reply_status_name(rep[i].status));
  assert_fault(&rep[0], CS_REPLY_CUT, "the time ran out before normalize anthropic was sent");
  im->stop_at_ns = 0;
  cr_assert_eq(cs_impl_exec(im, rq, rep, 2, &A, &err), 0, "%s", err.msg);
  assert_norm_ok(&rep[0], "a1", 0);
  assert_norm_ok(&rep[1], "b2", 1);
  cs_impl_destroy(im);
}

/* A stop signal's flag, set while a request hangs (from another thread, as a signal would land):
 * the request is cut then, not at its deadline, and says why; the flag cleared, the next batch
 * starts a new process. */
static volatile sig_atomic_t interrupt_flag;
static void *raise_flag_later(void *arg) {
  (void)arg;
  struct timespec ts = {0, 300 * 1000000L};
  nanosleep(&ts, NULL);
  interrupt_flag = SIGINT;
  return NULL;
}

Test(subprocess, stop_signal_cuts_a_hanging_request) {
  cs_impl *im = OPEN_ECHO(&SLOW_DEADLINE, "--hang-on", "HANG");
  cs_request rq[2] = {norm1("HANG"), norm1("a1")};
  cs_reply rep[2];
  cs_err err;
  interrupt_flag = 0;
  im->interrupt = &interrupt_flag;
  pthread_t th;
  cr_assert_eq(pthread_create(&th, NULL, raise_flag_later, NULL), 0);
  int64_t t0 = cs_now_ns();
  cr_assert_eq(cs_impl_exec(im, rq, rep, 2, &A, &err), 0, "%s", err.msg);
  double took_ms = (double)(cs_now_ns() - t0) / 1e6;
  pthread_join(th, NULL);
  cr_assert(took_ms >= 290 && took_ms < 2500, "exec took %.0f ms for a signal 300 ms away", took_ms);
  assert_fault(&rep[0], CS_REPLY_CUT, "when a stop signal came");
  cr_assert_eq(rep[1].status, CS_REPLY_CUT, "status %s", cs_reply_status_name(rep[1].status));
  cr_assert(cs_impl_stop_came(im));
  interrupt_flag = 0;
  cr_assert(!cs_impl_stop_came(im));
  cr_assert_eq(cs_impl_exec(im, &rq[1], rep, 1, &A, &err), 0, "%s", err.msg);
  assert_norm_ok(&rep[0], "a1", 0);
  cs_impl_destroy(im);
}

/* first_fault_ends_exec (shrinking tries): after a fault or an error answer the rest of the call is
 * not sent; a hang costs one deadline, not one per request. The next call starts afresh. */
Test(subprocess, first_fault_ends_the_call_when_asked) {
  cs_impl *im = OPEN_ECHO(&FAST, "--hang-on", "HANG", "--error-on", "ERR");
  im->first_fault_ends_exec = true;
  cs_request rq[4] = {norm1("a1"), norm1("HANG"), norm1("b2"), norm1("c3")};
  cs_reply rep[4];
  cs_err err;
  int64_t t0 = cs_now_ns();
  cr_assert_eq(cs_impl_exec(im, rq, rep, 4, &A, &err), 0, "%s", err.msg);
  double took_ms = (double)(cs_now_ns() - t0) / 1e6;
  assert_norm_ok(&rep[0], "a1", 0);
  cr_assert_eq(rep[1].status, CS_REPLY_TIMEOUT, "status %s", cs_reply_status_name(rep[1].status));
  assert_fault(&rep[2], CS_REPLY_SKIPPED, "not sent: an earlier request of the batch (normalize anthropic) faulted");
  assert_fault(&rep[3], CS_REPLY_SKIPPED, "not sent");
  cr_assert(took_ms < 900, "exec took %.0f ms: more than one deadline of 300", took_ms);
  cs_request er[3] = {norm1("ERR"), norm1("b2"), norm1("c3")};
  cr_assert_eq(cs_impl_exec(im, er, rep, 3, &A, &err), 0, "%s", err.msg);
  cr_assert_eq(rep[0].status, CS_REPLY_REJECTED, "status %s", cs_reply_status_name(rep[0].status));
  cr_assert_eq(rep[1].status, CS_REPLY_SKIPPED);
  cr_assert_eq(rep[2].status, CS_REPLY_SKIPPED);
  im->first_fault_ends_exec = false; /* every request is sent again */
  cr_assert_eq(cs_impl_exec(im, er, rep, 3, &A, &err), 0, "%s", err.msg);
  cr_assert_eq(rep[0].status, CS_REPLY_REJECTED);
  assert_norm_ok(&rep[1], "b2", 0);
  assert_norm_ok(&rep[2], "c3", 0);
  cs_impl_destroy(im);
}

/* A process start that is still waiting for its hello answer at the stop time ends then, not at
 * the hello deadline (at least 5 s): the requests it was for are cut, and a restart says it failed. */
Test(subprocess, stop_time_ends_a_hello_wait) {
  char flag[] = "/tmp/cs-once-hang-XXXXXX";
  int fd = mkstemp(flag);
  cr_assert(fd >= 0);
  close(fd);
  unlink(flag); /* the first hello creates it; every later one hangs */
  cs_impl *im = OPEN_ECHO(&FAST, "--once-hang", flag, "--crash-on", "TRIGGER");
  cs_request rq[2] = {norm1("TRIGGER"), norm1("a1")};
  cs_reply rep[2];
  cs_err err;
  cr_assert_eq(cs_impl_exec(im, rq, rep, 1, &A, &err), 0, "%s", err.msg);
  cr_assert_eq(rep[0].status, CS_REPLY_CRASH, "status %s", cs_reply_status_name(rep[0].status));
  int64_t t0 = cs_now_ns();
  im->stop_at_ns = t0 + 300 * 1000000LL;
  cr_assert_eq(cs_impl_exec(im, &rq[1], rep, 1, &A, &err), 0, "%s", err.msg);
  double took_ms = (double)(cs_now_ns() - t0) / 1e6;
  cr_assert(took_ms >= 290 && took_ms < 2500, "exec took %.0f ms for a stop 300 ms away", took_ms);
  /* The request waited on a start whose hello never came: the reason says so. */
  assert_fault(&rep[0], CS_REPLY_CUT,
               "the time ran out before the hello answer (normalize anthropic waited on that start)");
  t0 = cs_now_ns();
  im->stop_at_ns = t0 + 300 * 1000000LL;
  cr_assert_neq(restart_impl(im, &err), 0, "a restart whose hello never came succeeded");
  took_ms = (double)(cs_now_ns() - t0) / 1e6;
  cr_assert(took_ms < 2500, "restart took %.0f ms for a stop 300 ms away", took_ms);
  cr_assert_not_null(strstr(err.msg, "the time ran out before the hello answer"), "%s", err.msg);
  cs_impl_destroy(im);
  unlink(flag);
  cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "a child was left behind");
}

Test(subprocess, stderr_flood_is_drained_and_bounded) {
  cs_subprocess_config cfg = {.deadline_ms = 5000, .stderr_tail = 1000};
  cs_impl *im = OPEN_ECHO(&cfg, "--stderr-flood", "3000000", "--crash-on", "TRIGGER");
  cs_request rq[4] = {norm1("a"), norm1("b"), norm1("TRIGGER"), norm1("d")};
  cs_reply rep[4];
  cs_err err;
  cr_assert_eq(cs_impl_exec(im, rq, rep, 2, &A, &err), 0, "%s", err.msg);
  assert_norm_ok(&rep[0], "a", 0);
  assert_norm_ok(&rep[1], "b", 1);
  cs_str tail = im->vt->stderr_tail(im);
  cr_assert_eq(tail.len, 1000);
  cr_assert(tail.len >= 13 && memcmp(tail.ptr + tail.len - 13, "END-OF-FLOOD\n", 13) == 0);
  cr_assert_eq(cs_impl_exec(im, &rq[2], rep, 2, &A, &err), 0, "%s", err.msg);
  assert_fault(&rep[0], CS_REPLY_CRASH, "END-OF-FLOOD fixture: crash-on triggered");
  cr_assert_lt(rep[0].message.len, 700, "message not bounded: %zu bytes", rep[0].message.len);
  assert_norm_ok(&rep[1], "d", 1);
  cs_impl_destroy(im);
}

Test(subprocess, hello_failures) {
  char *exits[] = {ECHO, "--hello-exit", NULL};
  OPEN_FAILS(exits, "exited with status 2 before answering hello", "stderr: fixture: refusing to start");
  char *hangs[] = {ECHO, "--hello-hang", NULL};
  OPEN_FAILS(hangs, "no answer to hello within 5000 ms");
  char *proto[] = {ECHO, "--hello-protocol", "2", NULL};
  OPEN_FAILS(proto, "\"protocol\":1");
  char *unended[] = {ECHO, "--hello-unended", NULL};
  OPEN_FAILS(unended, "exited with status 0 before answering hello (", " bytes came without a line end)");
  char *garbage[] = {ECHO, "--hello-garbage", NULL};
  OPEN_FAILS(garbage, "hello answer is not valid JSON text: 1:1: expected a JSON value near 'hello there'");
}

/* Parses a hello line: NULL when taken, else the reason (static). */
static const char *hello_why(const char *line) {
  static char why[300];
  cs_impl_info info = {0};
  char *name = NULL, *version = NULL;
  why[0] = 0;
  char unknown[128];
  int rc = cs_subprocess_parse_hello(cs_str_c(line), &info, &name, &version, unknown, sizeof unknown, why, sizeof why);
  free(name);
  free(version);
  return rc ? why : NULL;
}
static void hello_refused(const char *line, const char *reason) {
  const char *why = hello_why(line);
  cr_assert_not_null(why, "taken: %s", line);
  cr_assert_not_null(strstr(why, reason), "%s: %s", line, why);
}
static void hello_taken(const char *line) {
  const char *why = hello_why(line);
  cr_assert_null(why, "%s: %s", line, why);
}

/* One JSON object per line, in the hello answer as in every answer. */
Test(subprocess, hello_with_data_after_the_object_is_refused) {
  const char *lines[] = {
      "{\"seq\":0,\"protocol\":1,\"name\":\"x\",\"version\":\"1\",\"ops\":[\"emit\"],\"targets\":[\"anthropic\"]} "
      "garbage",
      "{\"seq\":0,\"protocol\":1,\"name\":\"x\",\"version\":\"1\",\"ops\":[\"emit\"],\"targets\":[\"anthropic\"]}[]"};
  for (size_t i = 0; i < 2; i++)
    hello_refused(lines[i], "data after the JSON object");
  const char *ok =
      "{\"seq\":0,\"protocol\":1,\"name\":\"x\",\"version\":\"1\",\"ops\":[\"emit\"],\"targets\":[\"anthropic\"]} \r";
  hello_taken(ok);
}

/* Nothing to check is not a pass: unknown ops, or emit with no known target, are refused. */
Test(subprocess, hello_with_nothing_to_check_is_refused) {
  const struct {
    const char *line, *why;
  } c[] = {
      {"{\"seq\":0,\"protocol\":1,\"name\":\"x\",\"version\":\"1\",\"ops\":[],\"targets\":[\"anthropic\"]}",
       "no op callsign knows"},
      {"{\"seq\":0,\"protocol\":1,\"name\":\"x\",\"version\":\"1\",\"ops\":[\"emmit\"],\"targets\":[\"anthropic\"]}",
       "no op callsign knows"},
      {"{\"seq\":0,\"protocol\":1,\"name\":\"x\",\"version\":\"1\",\"ops\":[\"emit\"],\"targets\":[\"antropic\"]}",
       "nothing callsign can check"},
  };
  for (size_t i = 0; i < sizeof c / sizeof *c; i++)
    hello_refused(c[i].line, c[i].why);
  const char *canon_only = "{\"seq\":0,\"protocol\":1,\"name\":\"x\",\"version\":\"1\",\"ops\":[\"canonicalize\"],"
                           "\"targets\":[]}";
  hello_taken(canon_only);
}

/* Ops and targets callsign does not know are skipped, and listed so the harness can say so (a typo
 * would otherwise drop their checks in silence). */
Test(subprocess, hello_lists_what_it_does_not_know) {
  cs_impl_info info = {0};
  char *name = NULL, *version = NULL, unknown[128], why[300];
  const char *line = "{\"seq\":0,\"protocol\":1,\"name\":\"x\",\"version\":\"1\",\"ops\":[\"emitt\",\"canonicalize\"],"
                     "\"targets\":[\"antropic\",\"mistral\"]}";
  cr_assert_eq(
      cs_subprocess_parse_hello(cs_str_c(line), &info, &name, &version, unknown, sizeof unknown, why, sizeof why), 0,
      "%s", why);
  cr_assert_str_eq(unknown, "op \"emitt\", target \"antropic\"");
  cr_assert_eq(info.ops, CS_OP_CANONICALIZE);
  free(name);
  free(version);
  line = "{\"seq\":0,\"protocol\":1,\"name\":\"x\",\"version\":\"1\",\"ops\":[\"emit\"],\"targets\":[\"mistral\"]}";
  cr_assert_eq(cs_subprocess_parse_hello(cs_str_c(line), &info, NULL, NULL, unknown, sizeof unknown, why, sizeof why),
               0);
  cr_assert_str_eq(unknown, "", "nothing unknown");
}

static cs_reply_status answer_why(const char *line, uint64_t seq, const char **why);

/* JSON that cJSON refuses gets the strict parser's reason, as a file would: nesting too deep, a lone
 * surrogate escape. */
Test(subprocess, refused_json_names_its_reason) {
  char deep[2100];
  memset(deep, '[', 1001);
  memset(deep + 1001, ']', 1001);
  deep[2002] = 0;
  hello_refused(deep, "hello answer is not valid JSON text: 1:1001: JSON nested deeper than 1000 levels");
  const char *why;
  cr_assert_eq(answer_why("{\"seq\":1,\"ids\":[\"\\udc00\"]}", 1, &why), CS_REPLY_PROTOCOL);
  cr_assert_not_null(strstr(why, "answer is not valid JSON text: 1:") && strstr(why, "unpaired UTF-16 surrogate"), "%s",
                     why);
}

/* The name is the implementation's in reports, the corpus and fuzz results: an empty one is refused. */
Test(subprocess, hello_with_an_empty_name_is_refused) {
  hello_refused(
      "{\"seq\":0,\"protocol\":1,\"name\":\"\",\"version\":\"1\",\"ops\":[\"emit\"],\"targets\":[\"anthropic\"]}",
      "hello answer has an empty \"name\"");
  hello_taken(
      "{\"seq\":0,\"protocol\":1,\"name\":\"n\",\"version\":\"\",\"ops\":[\"emit\"],\"targets\":[\"anthropic\"]}");
}

/* Judges an answer line to a one-ID normalize request sent with `seq` to a process whose first
 * request was sent with `first`: the status, and the reason (static) in `why`. */
static cs_reply_status answer_why_after(const char *line, uint64_t seq, uint64_t first, const char **why) {
  static char buf[700];
  cs_request rq = norm1("x");
  cs_reply rep;
  memset(&rep, 0, sizeof rep);
  buf[0] = 0;
  cs_reply_status st = cs_subprocess_parse_answer(0, &rq, seq, first, cs_str_c(line), &rep, &A, buf, sizeof buf);
  *why = buf;
  return st;
}
/* The same, for the first request of a process: only hello was answered before it. */
static cs_reply_status answer_why(const char *line, uint64_t seq, const char **why) {
  return answer_why_after(line, seq, seq, why);
}
static void answer_refused(const char *line, uint64_t seq, const char *reason) {
  const char *why;
  cs_reply_status st = answer_why(line, seq, &why);
  cr_assert_eq(st, CS_REPLY_PROTOCOL, "%s: status %s: %s", line, cs_reply_status_name(st), why);
  cr_assert_not_null(strstr(why, reason), "%s: \"%s\" lacks \"%s\"", line, why, reason);
}
static void answer_taken(const char *line, uint64_t seq) {
  const char *why;
  cs_reply_status st = answer_why(line, seq, &why);
  cr_assert_eq(st, CS_REPLY_OK, "%s: status %s: %s", line, cs_reply_status_name(st), why);
}

/* A seq that is not a whole number is named as such, with its value: never "seq 5, expected 5". */
Test(subprocess, a_fractional_seq_is_named_as_such) {
  answer_refused("{\"seq\":5.4,\"ids\":[\"x\"]}", 5, "answer has seq 5.4, which is not a whole number (expected 5)");
  answer_refused("{\"seq\":5.000000000000001,\"ids\":[\"x\"]}", 5, "seq 5.000000000000001, which is not a whole");
  answer_refused("{\"seq\":4.5,\"ids\":[\"x\"]}", 5, "seq 4.5, which is not a whole number");
  answer_refused("{\"seq\":1e999,\"ids\":[\"x\"]}", 5, "which is not a whole number");
  answer_refused("{\"seq\":6,\"ids\":[\"x\"]}", 5, "answer has seq 6, expected 5 (answers come in request order)");
  answer_refused("{\"seq\":-5,\"ids\":[\"x\"]}", 5, "answer has seq -5, expected 5");
  answer_taken("{\"seq\":5,\"ids\":[\"x\"]}", 5);
  answer_taken("{\"seq\":5.0,\"ids\":[\"x\"]}", 5); /* the same number, written otherwise */
  const char *rest = ",\"protocol\":1,\"name\":\"x\",\"version\":\"1\",\"ops\":[\"emit\"],\"targets\":[\"anthropic\"]}";
  char line[200];
  snprintf(line, sizeof line, "{\"seq\":0.5%s", rest);
  hello_refused(line, "hello answer has seq 0.5, which is not a whole number (it must have \"seq\":0)");
  snprintf(line, sizeof line, "{\"seq\":3%s", rest);
  hello_refused(line, "hello answer has seq 3 (it must have \"seq\":0)");
  snprintf(line, sizeof line, "{\"seq\":\"0\"%s", rest);
  hello_refused(line, "hello answer must have \"seq\":0");
}

/* A whole seq shows as the digits the program wrote, however many trailing zeros it has; a number
 * past 2^53 or a fraction keeps the shortest text that reads back. */
Test(subprocess, a_large_seq_shows_as_its_digits) {
  answer_refused("{\"seq\":1180,\"ids\":[\"x\"]}", 1179, "answer has seq 1180, expected 1179 (");
  answer_refused("{\"seq\":1000000,\"ids\":[\"x\"]}", 5, "answer has seq 1000000, expected 5 (");
  answer_refused("{\"seq\":-2000,\"ids\":[\"x\"]}", 5, "answer has seq -2000, expected 5 (");
  answer_refused("{\"seq\":1e300,\"ids\":[\"x\"]}", 5, "answer has seq 1e+300, expected 5 (");
  answer_refused("{\"seq\":1180.5,\"ids\":[\"x\"]}", 5, "answer has seq 1180.5, which is not a whole number");
  const char *rest = ",\"protocol\":1,\"name\":\"x\",\"version\":\"1\",\"ops\":[\"emit\"],\"targets\":[\"anthropic\"]}";
  char line[200];
  snprintf(line, sizeof line, "{\"seq\":1000%s", rest);
  hello_refused(line, "hello answer has seq 1000 (it must have \"seq\":0)");
}

/* A seq this process already answered (hello's 0 among them) is a second answer, not an answer out
 * of order; one it was never sent is out of order. */
Test(subprocess, a_second_answer_is_named_as_such) {
  const char *why;
  const struct {
    const char *line, *why;
  } c[] = {
      {"{\"seq\":4184,\"ids\":[\"x\"]}", "a second answer to seq 4184 (each request gets one answer)"},
      /* Only the answer just read is taken for a copy: a program numbering answers itself is told
       * the seq it should have written. */
      {"{\"seq\":4000,\"ids\":[\"x\"]}", "answer has seq 4000, expected 4185 (answers come in request order)"},
      {"{\"seq\":0,\"ids\":[\"x\"]}", "answer has seq 0, expected 4185 (answers come in request order)"},
      {"{\"seq\":3999,\"ids\":[\"x\"]}", "answer has seq 3999, expected 4185 (answers come in request order)"},
      {"{\"seq\":4186,\"ids\":[\"x\"]}", "answer has seq 4186, expected 4185 (answers come in request order)"},
      {"{\"seq\":4184.5,\"ids\":[\"x\"]}", "answer has seq 4184.5, which is not a whole number (expected 4185)"},
  };
  for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
    cr_assert_eq(answer_why_after(c[i].line, 4185, 4000, &why), CS_REPLY_PROTOCOL, "%s", c[i].line);
    cr_assert_str_eq(why, c[i].why);
  }
  /* A program that writes an answer twice: the copy is read as the answer to the next request. */
  cs_impl *im = OPEN_ECHO(&FAST, "--twice-on", "TRIGGER");
  cs_request rq[3] = {norm1("a1"), norm1("TRIGGER"), norm1("c3")};
  cs_reply rep[3];
  cs_err err;
  cr_assert_eq(cs_impl_exec(im, rq, rep, 3, &A, &err), 0, "%s", err.msg);
  assert_norm_ok(&rep[1], "TRIGGER", 1);
  assert_fault(&rep[2], CS_REPLY_PROTOCOL, "bad answer to seq 3 (normalize anthropic): a second answer to seq 2 (");
  cs_impl_destroy(im);
}

/* A blank line (a CRLF one too) is named as one, not as JSON that ends early. */
Test(subprocess, an_empty_line_is_named_as_such) {
  const char *blanks[] = {"", "\r", " \t "};
  for (size_t i = 0; i < sizeof blanks / sizeof *blanks; i++) {
    answer_refused(blanks[i], 5, "an empty line (each answer is one JSON object on one line)");
    hello_refused(blanks[i], "hello answer is an empty line (each answer is one JSON object on one line)");
  }
}

/* What cJSON lets through but RFC 8259 forbids is a protocol fault, and so is a member named twice
 * (which value counts would depend on the reader). */
Test(subprocess, answers_must_be_strict_json) {
  const struct {
    const char *line, *why;
  } bad[] = {
      {"{\"seq\":05,\"ids\":[\"x\"]}", "answer is not valid JSON text: 1:8: number with a leading zero"},
      {"{\"seq\":5,\"ids\":[\"x\"],\"n\":-00}", "1:26: number with a leading zero"},
      {"{\"seq\":5.,\"ids\":[\"x\"]}", "1:8: malformed number"},
      {"{\"seq\":5,\"ids\":[\"x\"],\"n\":-.5}", "malformed number"},
      {"{\"seq\":5,\"ids\":[\"x\"],\"n\":1.e5}", "malformed number"},
      {"{\"seq\":5,\"ids\":[\"a\x01\x1f"
       "b\"]}",
       "1:19: raw control character U+0001 in a string (it must be escaped)"},
      {"{\"seq\":5,\"ids\":[\"a\tb\"]}", "raw control character U+0009 in a string"},
      {"{\"seq\":5,\"ids\":[\"x\"],\"k\\\"\x1f\":1}", "raw control character U+001F in a string"},
      {"{\"seq\":5,\x01\"ids\":[\"x\"]}", "1:10: control character U+0001 outside a string"},
      {"\x0b{\"seq\":5,\"ids\":[\"x\"]}", "control character U+000B outside a string"},
      {"{\"seq\":5,\"seq\":9,\"ids\":[\"x\"]}", "answer has the member \"seq\" twice (a name may occur once)"},
      {"{\"seq\":5,\"ids\":[\"x\"],\"ids\":[\"y\"]}", "answer has the member \"ids\" twice"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    answer_refused(bad[i].line, 5, bad[i].why);
  /* Past 16 members the names are sorted to find a repeat. */
  char many[400] = "{\"seq\":5,\"ids\":[\"x\"]";
  for (int i = 0; i < 20; i++)
    snprintf(many + strlen(many), sizeof many - strlen(many), ",\"m%d\":%d", i, i);
  strcat(many, "}");
  answer_taken(many, 5);
  many[strlen(many) - 1] = 0;
  strcat(many, ",\"m7\":0}");
  answer_refused(many, 5, "answer has the member \"m7\" twice");
  /* Strict JSON that looks close to the faults above is taken. */
  answer_taken("{\"seq\":5,\t\"ids\":[\"\\u0001\\\\\\\"05\x7f\xc3\xa9\"],\"n\":[0,-0,0.5,-0.5e-05,1E+5,10,1e05]} \r",
               5);
  answer_taken("{\"seq\":5,\"ids\":[\"x\"],\"o\":{\"ids\":1,\"seq\":2},\"t\":[true,false,null]}", 5);

  const char *rest = "\"version\":\"1\",\"ops\":[\"emit\"],\"targets\":[\"anthropic\"]}";
  char line[300];
  snprintf(line, sizeof line, "{\"seq\":0,\"protocol\":01,\"name\":\"x\",%s", rest);
  hello_refused(line, "hello answer is not valid JSON text: 1:21: number with a leading zero");
  snprintf(line, sizeof line, "{\"seq\":0,\"protocol\":1,\"name\":\"x\x02\",%s", rest);
  hello_refused(line, "raw control character U+0002 in a string");
  snprintf(line, sizeof line, "{\"seq\":0,\"protocol\":1,\"name\":\"x\",\"name\":\"y\",%s", rest);
  hello_refused(line, "hello answer has the member \"name\" twice (a name may occur once)");
}

Test(subprocess, cannot_start) {
  char *missing[] = {"tests/fixtures/no-such-program", NULL};
  OPEN_FAILS(missing, "cannot start 'tests/fixtures/no-such-program'", "No such file or directory");
  char *empty[] = {NULL};
  OPEN_FAILS(empty, "no program");
  /* exec says "Permission denied" for these, which sends the user to chmod. */
  char *dir[] = {"tests/fixtures", NULL};
  OPEN_FAILS(dir, "cannot start 'tests/fixtures': is a directory");
  char *device[] = {"/dev/null", NULL};
  OPEN_FAILS(device, "cannot start '/dev/null': not an executable file");
}

Test(subprocess, no_fd_leaks_and_no_zombies) {
  char *mini[] = {MINI, NULL};
  int before = count_fds();
  for (int i = 0; i < 200; i++) {
    cs_err err;
    cs_impl *im = cs_subprocess_open(mini, &FAST, &err);
    cr_assert_not_null(im, "round %d: %s", i, err.msg);
    if (i % 50 == 0)
      cr_assert_eq(restart_impl(im, &err), 0, "%s", err.msg);
    cs_impl_destroy(im);
  }
  cr_assert_eq(count_fds(), before, "fds before %d, after %d", before, count_fds());
  errno = 0;
  cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1);
  cr_assert_eq(errno, ECHILD, "a child was left behind");
  /* Faults and restarts leak nothing either. */
  cs_impl *im = OPEN_ECHO(&FAST, "--garbage-on", "TRIGGER");
  cs_request rq[2] = {norm1("TRIGGER"), norm1("x")};
  cs_reply rep[2];
  cs_err err;
  int opened = count_fds();
  for (int i = 0; i < 5; i++) {
    cr_assert_eq(cs_impl_exec(im, rq, rep, 2, &A, &err), 0, "%s", err.msg);
    assert_fault(&rep[0], CS_REPLY_PROTOCOL, "answer is not valid JSON text");
    assert_norm_ok(&rep[1], "x", 1);
  }
  cr_assert_eq(count_fds(), opened);
  cs_impl_destroy(im);
  cr_assert_eq(count_fds(), before);
}

/* The tail of a long stderr holds whole lines: the kept bytes start after a line end. */
Test(subprocess, stderr_tail_starts_at_a_line) {
  cs_subprocess_config cfg = {.deadline_ms = 5000, .stderr_tail = 1000};
  cs_impl *im = OPEN_ECHO(&cfg, "--stderr-lines", "200");
  cs_request rq[1] = {norm1("a")};
  cs_reply rep[1];
  cs_err err;
  cr_assert_eq(cs_impl_exec(im, rq, rep, 1, &A, &err), 0, "%s", err.msg);
  cs_str tail = im->vt->stderr_tail(im);
  cr_assert_gt(tail.len, 900);
  cr_assert(tail.len >= 9 && memcmp(tail.ptr, "log line ", 9) == 0, "starts with '%.20s'", tail.ptr);
  static const char last[] = "0199 of the fixture's stderr\n";
  cr_assert(memcmp(tail.ptr + tail.len - (sizeof last - 1), last, sizeof last - 1) == 0);
  cs_impl_destroy(im);
}

/* "error": null is many serializers' way of writing no error (Pydantic, serde without skip): the
 * answer is an answer, in hello and after it; any other non-string error is still a fault. */
Test(subprocess, a_null_error_is_no_error) {
  answer_taken("{\"seq\":5,\"ids\":[\"x\"],\"error\":null}", 5);
  const char *why;
  cr_assert_eq(answer_why("{\"seq\":5,\"error\":\"no\"}", 5, &why), CS_REPLY_REJECTED);
  answer_refused("{\"seq\":5,\"ids\":[\"x\"],\"error\":5}", 5, "\"error\" is not a string");
  hello_taken("{\"seq\":0,\"protocol\":1,\"name\":\"x\",\"version\":\"1\",\"ops\":[\"emit\"],"
              "\"targets\":[\"anthropic\"],\"error\":null}");
  hello_refused("{\"seq\":0,\"protocol\":1,\"name\":\"x\",\"version\":\"1\",\"ops\":[\"emit\"],"
                "\"targets\":[\"anthropic\"],\"error\":\"down\"}",
                "hello answered with an error: down");
}

/* A canonicalize-only program may leave "targets" out; given, it must be an array, and emit or
 * normalize without one has nothing callsign can check. */
Test(subprocess, hello_without_targets_is_a_program_without_targets) {
  hello_taken("{\"seq\":0,\"protocol\":1,\"name\":\"x\",\"version\":\"1\",\"ops\":[\"canonicalize\"]}");
  hello_refused("{\"seq\":0,\"protocol\":1,\"name\":\"x\",\"version\":\"1\",\"ops\":[\"emit\"]}",
                "nothing callsign can check");
  hello_refused("{\"seq\":0,\"protocol\":1,\"name\":\"x\",\"version\":\"1\",\"ops\":[\"canonicalize\"],"
                "\"targets\":\"anthropic\"}",
                "\"targets\" must be an array");
  hello_refused("{\"seq\":0,\"protocol\":1,\"name\":\"x\",\"version\":\"1\",\"targets\":[]}",
                "hello answer needs an array field \"ops\"");
}
