/* impls/impl_names.c: the stable names of ops, reply statuses and request kinds (PROTOCOL.md ops,
 * report labels). */
#include "impls/impl.h"

#include <stdio.h>

const char *cs_op_name(cs_op op) {
  switch (op) {
  case CS_OP_EMIT:
    return "emit";
  case CS_OP_CANONICALIZE:
    return "canonicalize";
  case CS_OP_NORMALIZE:
    return "normalize";
  }
  return "unknown";
}

const char *cs_reply_status_name(cs_reply_status s) {
  switch (s) {
  case CS_REPLY_OK:
    return "ok";
  case CS_REPLY_REJECTED:
    return "rejected";
  case CS_REPLY_CRASH:
    return "crash";
  case CS_REPLY_TIMEOUT:
    return "timeout";
  case CS_REPLY_PROTOCOL:
    return "protocol";
  case CS_REPLY_CUT:
    return "cut";
  case CS_REPLY_SKIPPED:
    return "skipped";
  }
  return "unknown";
}

unsigned cs_request_kind(const cs_request *r) {
  if (r->op == CS_OP_CANONICALIZE)
    return 0;
  unsigned t = (unsigned)r->target < CS_TARGET_COUNT ? (unsigned)r->target : 0;
  return (r->op == CS_OP_EMIT ? 1 : 1 + CS_TARGET_COUNT) + t;
}

void cs_request_kind_name(unsigned kind, char *out, size_t n) {
  if (kind == 0)
    snprintf(out, n, "%s", cs_op_name(CS_OP_CANONICALIZE));
  else if (kind <= CS_TARGET_COUNT)
    snprintf(out, n, "%s %s", cs_op_name(CS_OP_EMIT), cs_provider_name((cs_provider)(kind - 1)));
  else
    snprintf(out, n, "%s %s", cs_op_name(CS_OP_NORMALIZE), cs_provider_name((cs_provider)(kind - 1 - CS_TARGET_COUNT)));
}
