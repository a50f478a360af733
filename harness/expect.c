/* harness/expect.c: parsing and matching the known-failures list. */
#include "harness/expect.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/fs.h"
#include "harness/property.h"
#include "providers/target.h"
#include "reports/escape.h"

/* Cuts line into its whitespace-separated fields, in place: how many (4 meaning four or more). */
static int split_fields(char *line, char *field[4]) {
  int k = 0;
  for (char *q = line; *q && k < 4;) {
    q += strspn(q, " \t\r\n\v\f");
    if (!*q)
      break;
    field[k++] = q;
    q += strcspn(q, " \t\r\n\v\f");
    if (*q)
      *q++ = 0;
  }
  return k;
}

int cs_expect_load(const char *path, cs_expect *out, cs_err *err) {
  memset(out, 0, sizeof *out);
  bool from_stdin = !strcmp(path, "-"); /* as replay and vectors --check read '-' */
  FILE *f = from_stdin ? stdin : fopen(path, "r");
  if (from_stdin)
    path = "stdin";
  if (!f)
    return cs_err_set(err, "%s: cannot open: %s", path, strerror(errno));
  char line[1024];
  int lineno = 0, rc = 0, got;
  size_t cap = 0;
  while ((got = cs_read_line(f, line, sizeof line, path, &lineno, err)) > 0) {
    char *hash = strchr(line, '#');
    if (hash)
      *hash = 0;
    char *field[4];
    int k = split_fields(line, field);
    if (k == 0)
      continue;
    if (k == 1 || k == 4) {
      rc = cs_err_set(err, "%s:%d: expected 'property target [implementation]'", path, lineno);
      break;
    }
    /* Each field within what its entry holds; a longer one is named, not cut. */
    const struct {
      const char *name;
      size_t max;
    } limits[3] = {{"property", sizeof out->e->property - 1},
                   {"target", sizeof out->e->target - 1},
                   {"implementation", sizeof out->e->impl - 1}};
    int too_long = -1;
    for (int j = 0; j < k && too_long < 0; j++)
      if (strlen(field[j]) > limits[j].max)
        too_long = j;
    if (too_long >= 0) {
      rc = cs_err_set(err, "%s:%d: the %s name is longer than %zu bytes", path, lineno, limits[too_long].name,
                      limits[too_long].max);
      break;
    }
    /* As --failures writes them: a name it could not write raw (a control or hidden character, not
     * UTF-8) is in a comment, and a line holding one would carry it to a terminal. */
    int not_word = -1;
    for (int j = 0; j < k && not_word < 0; j++)
      if (!cs_esc_is_word(field[j]))
        not_word = j;
    if (not_word >= 0) {
      rc = cs_err_set(err, "%s:%d: the %s name holds a control or invisible character, or is not UTF-8", path, lineno,
                      limits[not_word].name);
      break;
    }
    const char *p = field[0], *t = field[1], *i = k == 3 ? field[2] : "";
    const cs_property *prop = cs_property_find(p);
    if (!prop) {
      rc = cs_err_set(err, "%s:%d: unknown property '%s' (see callsign list)", path, lineno, p);
      break;
    }
    if (prop->per_target ? cs_target_parse(t) < 0 : strcmp(t, "-") != 0) {
      rc = cs_err_set(err, "%s:%d: '%s' is not a target of %s (use %s)", path, lineno, t, p,
                      prop->per_target ? "a target name" : "-");
      break;
    }
    if (prop->only_target >= 0 && cs_target_parse(t) != prop->only_target) {
      /* It could never be judged: kept by every --failures for ever, and warned about on every run. */
      rc = cs_err_set(err, "%s:%d: '%s' is not a target of %s (use %s)", path, lineno, t, p,
                      cs_target_get((cs_target_id)prop->only_target)->name);
      break;
    }
    for (size_t j = 0; j < out->n; j++) {
      const cs_expect_entry *o = &out->e[j];
      if (strcmp(o->property, p) || strcmp(o->target, t))
        continue;
      bool same = k == 3 ? !strcmp(o->impl, i) : !o->impl[0];
      if (same || !o->impl[0] || k == 2) {
        rc = same ? cs_err_set(err, "%s:%d: repeats line %d", path, lineno, o->line)
                  : cs_err_set(err, "%s:%d: overlaps line %d (a line without an implementation covers them all)", path,
                               lineno, o->line);
        goto done;
      }
    }
    if (out->n == cap) {
      cap = cap ? cap * 2 : 16;
      out->e = cs_xrealloc_array(out->e, cap, sizeof *out->e);
    }
    cs_expect_entry *e = &out->e[out->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->property, sizeof e->property, "%s", p);
    snprintf(e->target, sizeof e->target, "%s", t);
    e->line = lineno;
    if (k == 3)
      snprintf(e->impl, sizeof e->impl, "%s", i);
  }
  if (got < 0)
    rc = -1;
done:
  if (!from_stdin)
    fclose(f);
  if (rc)
    cs_expect_free(out);
  return rc;
}

cs_expect_entry *cs_expect_find(cs_expect *x, const char *impl, const char *property, const char *target) {
  for (size_t i = 0; x && i < x->n; i++) {
    cs_expect_entry *e = &x->e[i];
    if (!strcmp(e->property, property) && !strcmp(e->target, target) && (!e->impl[0] || !strcmp(e->impl, impl)))
      return e;
  }
  return NULL;
}

void cs_expect_free(cs_expect *x) {
  free(x->e);
  memset(x, 0, sizeof *x);
}
