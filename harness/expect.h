/* harness/expect.h: the known-failures list of --expect: plain text, one `property target` per line
 * (target `-` for target-less properties), optionally followed by an implementation name; '#'
 * starts a comment. A run passes when the failures are exactly those listed; a listed failure that
 * now passes is reported as fixed, so the list only shrinks. */
#ifndef CS_HARNESS_EXPECT_H
#define CS_HARNESS_EXPECT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

typedef struct {
  char property[96], target[32], impl[96]; /* impl "" : any implementation */
  int line;                                /* in the file, for messages */
  bool matched;
} cs_expect_entry;

typedef struct {
  cs_expect_entry *e;
  size_t n;
} cs_expect;

/* Parses the file ("-": stdin, named "stdin" in messages); an unknown property or target is an error naming the line,
 * and so is an entry that an earlier one already covers (the same line twice, or a line with an implementation beside
 * one without, which covers every implementation): the later one could never match. */
int cs_expect_load(const char *path, cs_expect *out, cs_err *err);
/* The entry listing (impl, property, target), or NULL. */
cs_expect_entry *cs_expect_find(cs_expect *x, const char *impl, const char *property, const char *target);
void cs_expect_free(cs_expect *x);

#endif
