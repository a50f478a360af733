/* tests/unit/test_vectors.c: loading the canonical vectors: a file whose tests cannot be read is
 * refused whole with the file and the test named, so no command mistakes it for a mismatch of the
 * implementation; the committed file loads. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/vectors.h"

static char path[] = "/tmp/cs-vectors-XXXXXX";

static void write_file(const char *text) {
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  FILE *f = fdopen(fd, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  cr_assert_eq(fclose(f), 0);
}

static void remove_file(void) {
  unlink(path);
}

TestSuite(vectors, .fini = remove_file);

Test(vectors, a_history_that_does_not_parse_refuses_the_file) {
  write_file("{\"algorithm\":\"callsign-canonical-v1\",\"numberOfTests\":2,\"testGroups\":[{\"tests\":["
             "{\"tcId\":7,\"history\":{\"turns\":5}},{\"tcId\":1,\"history\":{\"turns\":[]}}]}]}");
  for (int counted = 0; counted < 2; counted++) {
    cs_err err = {{0}};
    cJSON *root = cs_vectors_load(path, counted, &err);
    cr_assert_null(root, "a vector whose history does not parse was loaded");
    char want[128];
    snprintf(want, sizeof want, "%s: tcId 7: history.turns: ", path);
    cr_assert(!strncmp(err.msg, want, strlen(want)), "%s", err.msg);
    cr_assert_null(strchr(err.msg, '\n'), "%s", err.msg);
  }
}

Test(vectors, the_committed_file_loads) {
  cs_err err = {{0}};
  char where[4200];
  cJSON *root = cs_vectors_load(cs_vectors_locate(where, sizeof where), true, &err);
  cr_assert_not_null(root, "%s", err.msg);
  cJSON_Delete(root);
}

/* Expectations are the specification: a complete file must hold them in full, for the history's calls
 * and results; --generate (not counted) recomputes them, so an edited test may come without. */
Test(vectors, expectations_are_required_and_sized_only_in_a_complete_file) {
  write_file("{\"algorithm\":\"callsign-canonical-v1\",\"numberOfTests\":1,\"testGroups\":[{\"tests\":["
             "{\"tcId\":3,\"history\":{\"turns\":[{\"role\":\"assistant\",\"provider\":\"kimi\",\"turn_key\":\"t\","
             "\"calls\":[{\"id\":\"a\",\"name\":\"glob\"}]}]},\"canonical\":{\"calls\":[],\"results\":[]}}]}]}");
  cs_err err = {{0}};
  cJSON *root = cs_vectors_load(path, true, &err);
  cr_assert_null(root, "a canonical answer without the history's call was loaded");
  char want[160];
  snprintf(want, sizeof want, "%s: tcId 3: canonical.calls holds 0 IDs, the history has 1 calls", path);
  cr_assert_str_eq(err.msg, want);
  root = cs_vectors_load(path, false, &err);
  cr_assert_not_null(root, "%s", err.msg);
  cJSON_Delete(root);
}
