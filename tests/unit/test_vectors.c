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
  write_file("{\"algorithm\":\"callsign-canonical-v1\",\"numberOfTests\":2,\"testGroups\":[{\"type\":"
             "\"CanonicalHistory\",\"tests\":["
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
  write_file("{\"algorithm\":\"callsign-canonical-v1\",\"numberOfTests\":1,\"testGroups\":[{\"type\":"
             "\"CanonicalHistory\",\"tests\":["
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

/* A test group of a type the format does not define is refused whole, as is one without a type. */
Test(vectors, a_group_of_another_type_refuses_the_file) {
  static const char *const groups[] = {"{\"type\":\"Other\",", "{"};
  static const char *const said[] = {"\"Other\"", "missing"};
  for (int k = 0; k < 2; k++) {
    char text[512];
    snprintf(text, sizeof text,
             "{\"algorithm\":\"callsign-canonical-v1\",\"numberOfTests\":1,\"testGroups\":[%s\"tests\":["
             "{\"tcId\":1,\"history\":{\"turns\":[]}}]}]}",
             groups[k]);
    write_file(text);
    for (int counted = 0; counted < 2; counted++) {
      cs_err err = {{0}};
      cJSON *root = cs_vectors_load(path, counted, &err);
      cr_assert_null(root, "a group of type %s was loaded", said[k]);
      char want[256];
      snprintf(want, sizeof want,
               "%s: a test group's type is %s, not \"CanonicalHistory\" (the one the format defines)", path, said[k]);
      cr_assert_str_eq(err.msg, want);
    }
    remove_file();
    strcpy(path, "/tmp/cs-vectors-XXXXXX");
  }
}

/* A tcId past the limit is refused, and the message names the limit. */
Test(vectors, a_tcid_past_the_limit_is_refused_naming_it) {
  write_file(
      "{\"algorithm\":\"callsign-canonical-v1\",\"numberOfTests\":1,\"testGroups\":[{\"type\":\"CanonicalHistory\","
      "\"tests\":[{\"tcId\":1000000001,\"history\":{\"turns\":[]}}]}]}");
  cs_err err = {{0}};
  cr_assert_null(cs_vectors_load(path, false, &err));
  char want[160];
  snprintf(want, sizeof want, "%s: test 1 has no whole tcId from 1 to 1000000000", path);
  cr_assert_str_eq(err.msg, want);
}
