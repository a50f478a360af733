/* harness/cmd_list.c: `callsign list`: the target, property, implementation and label tables, as
 * the README shows them (`callsign list --markdown` prints the README's tables). */
#include <stdio.h>
#include <string.h>

#include "generators/labels.h"
#include "harness/cli.h"
#include "harness/property.h"
#include "providers/target.h"

static void cell(bool md, const char *s, int width) {
  if (md) {
    /* '|' would end the cell, and '<' open an HTML tag a renderer drops ("adk-<uuid>"). */
    fputs("| ", stdout);
    for (const char *p = s; *p; p++)
      fputs(*p == '|' ? "\\|" : *p == '<' ? "&lt;" : (char[2]){*p, 0}, stdout);
    fputc(' ', stdout);
  } else {
    printf("%-*s ", width, s);
  }
}

static void end_row(bool md) {
  fputs(md ? "|\n" : "\n", stdout);
}

int cs_cmd_list(int argc, char **argv) {
  bool md = argc > 2 && !strcmp(argv[2], "--markdown");
  if (argc > 2 && !md)
    return cs_fail(CS_EXIT_USAGE, "list: the only option is --markdown");
  if (argc > 3)
    return cs_fail(CS_EXIT_USAGE, "list: unexpected argument '%s'", argv[3]);
  printf(md ? "### Targets\n\n| target | rule | evidence |\n|---|---|---|\n" : "TARGETS\n");
  for (int t = 0; t < CS_TARGET_COUNT; t++) {
    const cs_target *tg = cs_target_get((cs_target_id)t);
    cell(md, tg->name, 17);
    cell(md, tg->summary, 0);
    if (md)
      cell(md, tg->evidence, 0);
    end_row(md);
  }
  size_t np;
  const cs_property *p = cs_properties(&np);
  printf(md ? "\n### Properties\n\n| property | tier | contract |\n|---|---|---|\n" : "\nPROPERTIES\n");
  for (size_t i = 0; i < np; i++) {
    char name[80];
    snprintf(name, sizeof name, md ? "`%s`" : "%s", p[i].name);
    cell(md, name, 24);
    cell(md, p[i].tier == CS_TIER_REQUIRED ? "required" : "recommended", 11);
    cell(md, p[i].contract, 0);
    end_row(md);
  }
  size_t nb;
  const cs_builtin *b = cs_builtins(&nb);
  printf(
      md ? "\n### Built-in implementations\n\n| implementation | design | what the design gives up |\n|---|---|---|\n"
         : "\nIMPLEMENTATIONS\n");
  for (size_t i = 0; i < nb; i++) {
    char name[80];
    snprintf(name, sizeof name, md ? "`%s`" : "%s", b[i].name);
    cell(md, name, 20);
    cell(md, b[i].design, 0);
    if (md)
      cell(md, b[i].breaks, 0);
    end_row(md);
  }
  printf(md ? "\n### Pathology classes (statistics labels)\n\n| label | meaning |\n|---|---|\n" : "\nLABELS\n");
  for (int l = 0; l < CS_LABEL_COUNT; l++) {
    char name[80];
    snprintf(name, sizeof name, md ? "`%s`" : "%s", cs_label_name((cs_label)l));
    cell(md, name, 28);
    cell(md, cs_label_desc((cs_label)l), 0);
    end_row(md);
  }
  return CS_EXIT_OK;
}
