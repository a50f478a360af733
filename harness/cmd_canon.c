/* harness/cmd_canon.c: `callsign canon` and `callsign emit`: the reference on one history, for users
 * and for debugging. Output: one JSON object {"calls":[...],"results":[...]} on stdout; an emit
 * answer that repeats an ID or breaks the target's rule is refused instead (exit 2). */
#include <stdio.h>
#include <string.h>

#include "core/history_json.h"
#include "core/utf8.h"
#include "harness/cli.h"
#include "providers/canonical.h"

static void print_answer(const cs_answer *ans) {
  cs_buf b = {0};
  cs_answer_write(&b, ans);
  cs_buf_putc(&b, '\n');
  /* A short write is not checked here: main checks stdout once, after every command. */
  fwrite(b.data, 1, b.len, stdout);
  cs_buf_free(&b);
}

/* An ID in a one-line message: JSON-quoted, so no control character gets out, and cut after 64
 * bytes at a character boundary (min_len may ask for IDs of thousands of characters). */
static void show_id(cs_buf *b, cs_str id) {
  size_t n = id.ptr ? cs_utf8_clamp(id.ptr, id.len, 64) : id.len;
  cs_buf_json_str(b, (cs_str){id.ptr, n});
  if (n < id.len)
    cs_buf_puts(b, "...");
}

/* The reference emits every history it can; an answer that repeats an ID or breaks the target's
 * rule (an override leaves too little room, or asks for a pattern the mappers do not aim at) is
 * refused, not printed as if it could be sent. */
static int refuse_emit(const cs_emit_check *chk, const cs_answer *wire, const cs_history_index *ix, cs_ruleset *rs,
                       cs_target_id target) {
  const char *tn = cs_target_get(target)->name;
  if (chk->repeated)
    return cs_fail(CS_EXIT_USAGE,
                   "emit: the %s rule leaves no room for %u distinct IDs: call %u finds all %u of its candidates "
                   "taken",
                   tn, ix->ncalls, chk->bad, CS_EMIT_ATTEMPTS);
  char why[CS_RULE_WHY_MAX] = "";
  if (cs_rule_check(rs, target, wire->calls[chk->bad], chk->bad, ix->calls[chk->bad]->server, why, sizeof why) ==
      CS_RULE_UNDECIDED) /* the pattern, not the answer, is at fault: `why` says so whole */
    return cs_fail(CS_EXIT_USAGE, "emit: call %u: %s", chk->bad, why);
  cs_buf b = {0};
  show_id(&b, wire->calls[chk->bad]);
  cs_fail(CS_EXIT_USAGE, "emit: call %u would get %s, which breaks the %s rule (%s)", chk->bad, b.data, tn, why);
  cs_buf_free(&b);
  return CS_EXIT_USAGE;
}

static int canon_or_emit(int argc, char **argv, cs_cmd_bit cmd) {
  cs_options o;
  cs_err err = {{0}};
  cs_buf in = {0};
  cs_arena a = {0};
  cs_ruleset *rs = NULL;
  cs_hasher *hasher = NULL;
  int status = CS_EXIT_USAGE;
  if (cs_options_parse(&o, argc, argv, 2, cmd, &err)) {
    cs_fail(CS_EXIT_USAGE, "%s", err.msg);
    goto cleanup;
  }
  int target = -1;
  if (cmd == CS_CMD_EMIT) {
    if (!o.targets || (o.targets & (o.targets - 1))) {
      cs_fail(CS_EXIT_USAGE, "emit: give exactly one --target (see callsign list)");
      goto cleanup;
    }
    for (target = 0; !(o.targets >> target & 1u); target++)
      ;
  }
  if (o.npositional > 1) {
    cs_fail(CS_EXIT_USAGE, "%s: at most one input file", argv[1]);
    goto cleanup;
  }
  const char *path = o.npositional ? o.positional[0] : "-";
  const char *label = strcmp(path, "-") ? path : "stdin";
  if (!(rs = cs_cli_ruleset(&o, &err))) {
    cs_fail(CS_EXIT_USAGE, "%s", err.msg);
    goto cleanup;
  }
  if (cs_read_input(path, 0, &in, &err)) {
    cs_fail(CS_EXIT_USAGE, "%s", err.msg);
    goto cleanup;
  }
  cs_history h;
  if (cs_history_parse(cs_buf_view(&in), NULL, &a, &h, &err)) {
    cs_fail(CS_EXIT_USAGE, "%s: %s", label, err.msg);
    goto cleanup;
  }
  hasher = cs_hasher_new();
  if (!hasher) {
    cs_fail(CS_EXIT_USAGE, "OpenSSL provides no SHA-256");
    goto cleanup;
  }
  cs_digest d = {hasher, NULL, NULL};
  cs_history_index ix;
  cs_history_index_build(&h, &a, &ix);
  cs_answer canon = cs_canonicalize(&h, &ix, &d, &a);
  if (cmd == CS_CMD_CANON) {
    print_answer(&canon);
  } else {
    cs_emit_check chk;
    cs_answer wire = cs_reference_emit_checked(&h, &ix, &canon, rs, (cs_target_id)target, &d, &a, true, &chk);
    if (chk.bad < ix.ncalls) {
      refuse_emit(&chk, &wire, &ix, rs, (cs_target_id)target);
      goto cleanup;
    }
    print_answer(&wire);
  }
  status = CS_EXIT_OK;
cleanup:
  cs_hasher_free(hasher);
  cs_ruleset_free(rs);
  cs_arena_free(&a);
  cs_buf_free(&in);
  return status;
}

int cs_cmd_canon(int argc, char **argv) {
  return canon_or_emit(argc, argv, CS_CMD_CANON);
}
int cs_cmd_emit(int argc, char **argv) {
  return canon_or_emit(argc, argv, CS_CMD_EMIT);
}
