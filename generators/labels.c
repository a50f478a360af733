/* generators/labels.c: names and descriptions of the statistics labels, from the X-macro table. */
#include "generators/labels.h"

#include <string.h>

static const char *const label_names[CS_LABEL_COUNT] = {
#define CS_LABEL_NAME(id, name, desc) name,
    CS_LABEL_TABLE(CS_LABEL_NAME)
#undef CS_LABEL_NAME
};

static const char *const label_descs[CS_LABEL_COUNT] = {
#define CS_LABEL_DESC(id, name, desc) desc,
    CS_LABEL_TABLE(CS_LABEL_DESC)
#undef CS_LABEL_DESC
};

/* The set is one 64-bit word. */
_Static_assert(CS_LABEL_COUNT < 64, "cs_labelset holds at most 63 labels");

const char *cs_label_name(cs_label l) {
  return (unsigned)l < CS_LABEL_COUNT ? label_names[l] : "?";
}
const char *cs_label_desc(cs_label l) {
  return (unsigned)l < CS_LABEL_COUNT ? label_descs[l] : "?";
}

int cs_label_find(const char *name) {
  for (int l = 0; l < CS_LABEL_COUNT; l++)
    if (!strcmp(label_names[l], name))
      return l;
  return -1;
}
