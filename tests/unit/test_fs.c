/* tests/unit/test_fs.c: core/fs.c: mkdir -p creates missing parents, accepts existing ones, and
 * names the directory it could not make. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"

static bool is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

Test(fs, creates_parents_and_accepts_existing) {
  char root[] = "/tmp/cs-fs-XXXXXX", deep[128];
  cr_assert_not_null(mkdtemp(root));
  snprintf(deep, sizeof deep, "%s/a/b/c", root);
  cs_err err = {{0}};
  cr_assert_eq(cs_mkdir_p(deep, &err), 0, "%s", err.msg);
  cr_assert(is_dir(deep));
  cr_assert_eq(cs_mkdir_p(deep, &err), 0, "an existing directory is fine");
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  cr_assert_eq(system(cmd), 0);
}

Test(fs, a_file_in_the_way_is_named) {
  char root[] = "/tmp/cs-fs-XXXXXX", file[128], below[160];
  cr_assert_not_null(mkdtemp(root));
  snprintf(file, sizeof file, "%s/plain", root);
  FILE *f = fopen(file, "w");
  cr_assert_not_null(f);
  fclose(f);
  snprintf(below, sizeof below, "%s/x/y", file);
  cs_err err = {{0}};
  cr_assert_eq(cs_mkdir_p(below, &err), -1);
  cr_assert_not_null(strstr(err.msg, "cannot create"), "%s", err.msg);
  cr_assert_not_null(strstr(err.msg, file), "%s", err.msg);
  unlink(file);
  rmdir(root);
}

Test(fs, an_overlong_path_is_refused) {
  char longp[3000];
  memset(longp, 'a', sizeof longp - 1);
  longp[sizeof longp - 1] = 0;
  cs_err err = {{0}};
  cr_assert_eq(cs_mkdir_p(longp, &err), -1);
  cr_assert_not_null(strstr(err.msg, "path too long"));
}
