/* impls/subprocess_parse.h: the two line parsers of the PROTOCOL.md client (impls/subprocess.c),
 * exposed so that the reader fuzz target (fuzz/fuzz_reader.c) and unit tests can feed them any
 * bytes. Internal to impls/: the harness talks to implementations through impls/impl.h. Both are
 * total: any line yields a verdict, never a crash. */
#ifndef CS_IMPLS_SUBPROCESS_PARSE_H
#define CS_IMPLS_SUBPROCESS_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "impls/impl.h"

/* Checks a hello answer line; fills `info` (and heap copies of name and version when `name` and
 * `version` are not NULL). The ops and targets it does not know are listed in `unknown` (un bytes,
 * cut short when longer; not written when NULL; info->unknown is left NULL). 0, or -1 with the
 * reason in `why`. */
int cs_subprocess_parse_hello(cs_str line, cs_impl_info *info, char **name, char **version, char *unknown, size_t un,
                              char *why, size_t wn);

/* Judges the answer line to request `r` sent with `seq` to a process whose first request was sent
 * with `first_seq` (so hello's 0 and [first_seq, seq) are answered; lines longer than `max_line` are
 * refused): CS_REPLY_OK with the reply filled (memory in `a`), CS_REPLY_REJECTED with the
 * implementation's error text in `why`, or CS_REPLY_PROTOCOL with the reason in `why`. */
cs_reply_status cs_subprocess_parse_answer(size_t max_line, const cs_request *r, uint64_t seq, uint64_t first_seq,
                                           cs_str line, cs_reply *out, cs_arena *a, char *why, size_t wn);

#endif
