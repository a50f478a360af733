/* impls/impl_names.c: the stable names of ops and reply statuses (PROTOCOL.md ops, report labels). */
#include "impls/impl.h"

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
  }
  return "unknown";
}
