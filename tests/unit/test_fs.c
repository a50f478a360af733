/* tests/unit/test_fs.c: core/fs.c: mkdir -p creates missing parents, accepts existing ones, and
 * names the directory it could not make; an output path is checked, parents made, before it is
 * written; a whole-file write replaces the file or says why not; the line reader counts lines,
 * drops newlines, and refuses a line longer than its buffer. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
  cr_assert_eq(cs_mkdir_p(deep, NULL, &err), 0, "%s", err.msg);
  cr_assert(is_dir(deep));
  cr_assert_eq(cs_mkdir_p(deep, NULL, &err), 0, "an existing directory is fine");
  snprintf(deep, sizeof deep, "%s/a/file", root);
  FILE *f = fopen(deep, "w");
  cr_assert_not_null(f);
  fclose(f);
  cr_assert_eq(cs_mkdir_p(deep, NULL, &err), -1, "a file took the directory's place");
  cr_assert_not_null(strstr(err.msg, "file: cannot create: Not a directory"), "%s", err.msg);
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
  cr_assert_eq(cs_mkdir_p(below, NULL, &err), -1);
  cr_assert_not_null(strstr(err.msg, "cannot create"), "%s", err.msg);
  cr_assert_not_null(strstr(err.msg, file), "%s", err.msg);
  unlink(file);
  rmdir(root);
}

/* A directory that could be made is checked at its nearest existing ancestor, and nothing is made;
 * a file in the way, as the path itself or above it, is refused. */
Test(fs, dir_writable_looks_up_to_what_exists_and_makes_nothing) {
  char root[] = "/tmp/cs-fs-XXXXXX", deep[128], file[128], below[160];
  cr_assert_not_null(mkdtemp(root));
  snprintf(deep, sizeof deep, "%s/a/b/c", root);
  cs_err err = {{0}};
  cr_assert_eq(cs_dir_writable(deep, &err), 0, "%s", err.msg);
  cr_assert_eq(cs_dir_writable(root, &err), 0, "%s", err.msg);
  snprintf(deep, sizeof deep, "%s/a", root);
  struct stat st;
  cr_assert_neq(stat(deep, &st), 0, "nothing is made");
  snprintf(file, sizeof file, "%s/plain", root);
  FILE *f = fopen(file, "w");
  cr_assert_not_null(f);
  fclose(f);
  cr_assert_eq(cs_dir_writable(file, &err), -1);
  cr_assert_not_null(strstr(err.msg, "plain: not a directory"), "%s", err.msg);
  snprintf(below, sizeof below, "%s/x", file);
  cr_assert_eq(cs_dir_writable(below, &err), -1);
  cr_assert_not_null(strstr(err.msg, "plain: not a directory"), "the file in the way is named: %s", err.msg);
  unlink(file);
  rmdir(root);
}

/* A long path is the system's to refuse, never cut: up to PATH_MAX it is made and written, past it the
 * error still says why, however long the path. */
Test(fs, a_long_path_is_made_whole_and_an_overlong_one_refused_with_its_reason) {
  char root[] = "/tmp/cs-fs-XXXXXX";
  cr_assert_not_null(mkdtemp(root));
  char part[51], longp[PATH_MAX], report[PATH_MAX + 200];
  memset(part, 'd', sizeof part - 1); /* components of 50 bytes: each well within NAME_MAX */
  part[sizeof part - 1] = 0;
  int n = snprintf(longp, sizeof longp, "%s", root);
  while (n < PATH_MAX - 100)
    n += snprintf(longp + n, sizeof longp - (size_t)n, "/%s", part);
  cs_err err = {{0}};
  cr_assert_eq(cs_mkdir_p(longp, NULL, &err), 0, "%s", err.msg);
  struct stat st;
  cr_assert(stat(longp, &st) == 0 && S_ISDIR(st.st_mode), "the directory was not made whole");
  snprintf(report, sizeof report, "%s/new/r.json", longp);
  cr_assert_eq(cs_prepare_output(report, NULL, &err), 0, "%s", err.msg);
  cr_assert_eq(cs_write_file(report, "x", 1, &err), 0, "%s", err.msg);
  unlink(report);
  /* past PATH_MAX: refused, with the reason in the one line */
  snprintf(report, sizeof report, "%s/%s/%s", longp, part, part);
  cr_assert_eq(cs_mkdir_p(report, NULL, &err), -1);
  cr_assert(!strncmp(err.msg, root, strlen(root)) && strstr(err.msg, "ddd...") != NULL, "%s", err.msg);
  cr_assert_not_null(strstr(err.msg, ": cannot create: File name too long"), "%s", err.msg);
  char cmd[64];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  cr_assert_eq(system(cmd), 0);
}

/* An output path is checked without touching it: new parents are made, the file itself is not. */
Test(fs, prepare_output_makes_parents_and_refuses_what_cannot_be_written) {
  char root[] = "/tmp/cs-fs-XXXXXX", path[160];
  cr_assert_not_null(mkdtemp(root));
  cs_err err = {{0}};
  snprintf(path, sizeof path, "%s/new/deeper/report.json", root);
  cr_assert_eq(cs_prepare_output(path, NULL, &err), 0, "%s", err.msg);
  snprintf(path, sizeof path, "%s/new/deeper", root);
  cr_assert(is_dir(path), "the parent directories were not made");
  snprintf(path, sizeof path, "%s/new/deeper/report.json", root);
  cr_assert_neq(access(path, F_OK), 0, "the file itself was created");
  cr_assert_eq(cs_write_file(path, "{}", 2, &err), 0, "%s", err.msg);
  cr_assert_eq(cs_prepare_output(path, NULL, &err), 0, "an existing writable file: %s", err.msg);
  FILE *f = fopen(path, "rb");
  char got[8] = "";
  cr_assert_not_null(f);
  cr_assert_eq(fread(got, 1, sizeof got - 1, f), 2, "an existing file was changed");
  fclose(f);
  cr_assert_eq(cs_prepare_output(root, NULL, &err), -1, "a directory passed as a file");
  cr_assert_not_null(strstr(err.msg, "cannot write: Is a directory"), "%s", err.msg);
  snprintf(path, sizeof path, "%s/new/deeper/report.json/below", root);
  cr_assert_eq(cs_prepare_output(path, NULL, &err), -1, "a path below a file passed");
  cr_assert_not_null(strstr(err.msg, "report.json: cannot create: Not a directory"), "%s", err.msg);
  cr_assert_eq(cs_prepare_output("relative-name.json", NULL, &err), 0, "a bare name is in the working directory: %s",
               err.msg);
  cr_assert_neq(access("relative-name.json", F_OK), 0);
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  cr_assert_eq(system(cmd), 0);
}

/* access() says yes to root for files it cannot write (in /proc, /sys, on a read-only file system):
 * the check opens the file, so such a path is refused before the run, as the write would be after. */
Test(fs, prepare_output_refuses_what_root_cannot_write) {
  cs_err err = {{0}};
  cr_assert_eq(cs_prepare_output("/proc/callsign-report.json", NULL, &err), -1, "a new file in /proc passed");
  cr_assert_not_null(strstr(err.msg, "/proc/callsign-report.json: cannot write: "), "%s", err.msg);
  struct stat st;
  if (stat("/sys/kernel/notes", &st) == 0 && access("/sys/kernel/notes", W_OK) == 0) {
    cr_assert_eq(cs_prepare_output("/sys/kernel/notes", NULL, &err), -1, "a file open() refuses passed");
    cr_assert_not_null(strstr(err.msg, "cannot write: Permission denied"), "%s", err.msg);
  }
  /* A FIFO is not opened (its reader would see an end, and with none the open blocks). */
  char root[] = "/tmp/cs-fs-XXXXXX", fifo[64];
  cr_assert_not_null(mkdtemp(root));
  snprintf(fifo, sizeof fifo, "%s/fifo", root);
  cr_assert_eq(mkfifo(fifo, 0600), 0);
  cr_assert_eq(cs_prepare_output(fifo, NULL, &err), 0, "%s", err.msg);
  unlink(fifo);
  rmdir(root);
}

/* A dangling symlink's report is made where the link points: that place decides, and the check
 * leaves nothing behind there. */
Test(fs, prepare_output_follows_a_dangling_link_to_where_it_points) {
  char root[] = "/tmp/cs-fs-XXXXXX", link[96], target[96];
  cr_assert_not_null(mkdtemp(root));
  cs_err err = {{0}};
  snprintf(link, sizeof link, "%s/to-missing-dir.json", root);
  snprintf(target, sizeof target, "%s/no-such-dir/report.json", root);
  cr_assert_eq(symlink(target, link), 0);
  cr_assert_eq(cs_prepare_output(link, NULL, &err), -1, "a link into a missing directory passed");
  cr_assert_not_null(strstr(err.msg, "to-missing-dir.json: cannot write: No such file or directory"), "%s", err.msg);

  snprintf(link, sizeof link, "%s/to-new-file.json", root);
  snprintf(target, sizeof target, "%s/report.json", root);
  cr_assert_eq(symlink("report.json", link), 0);
  cr_assert_eq(cs_prepare_output(link, NULL, &err), 0, "%s", err.msg);
  cr_assert_neq(access(target, F_OK), 0, "the check left the link's target behind");
  struct stat st;
  cr_assert_eq(lstat(link, &st), 0, "the link itself was removed");
  cr_assert(S_ISLNK(st.st_mode));
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  cr_assert_eq(system(cmd), 0);
}

/* Two spellings of one report path, existing or not yet, are one file; different names are not. */
Test(fs, same_file_sees_through_spellings) {
  char root[] = "/tmp/cs-fs-XXXXXX", a[96], b[128], c[96];
  cr_assert_not_null(mkdtemp(root));
  snprintf(a, sizeof a, "%s/r.out", root);
  snprintf(b, sizeof b, "%s/./../%s/r.out", root, strrchr(root, '/') + 1);
  snprintf(c, sizeof c, "%s/s.out", root);
  cr_assert(cs_same_file(a, a));
  cr_assert(cs_same_file(a, b), "not made yet: %s and %s", a, b);
  cr_assert_not(cs_same_file(a, c));
  cs_err err = {{0}};
  cr_assert_eq(cs_write_file(a, "x", 1, &err), 0, "%s", err.msg);
  cr_assert(cs_same_file(b, a), "existing: %s and %s", b, a);
  cr_assert_not(cs_same_file(a, c), "one exists, the other not");
  cr_assert_eq(link(a, c), 0);
  cr_assert(cs_same_file(a, c), "a hard link");
  unlink(a);
  unlink(c);
  rmdir(root);
}

/* A dangling symlink is the file a write through it would make: the link and its target's name are
 * one file, while the link and another name in its directory are not. */
Test(fs, same_file_follows_a_dangling_link) {
  char root[] = "/tmp/cs-fs-XXXXXX", link_path[96], target[96], other[96], sub[96], deep[128];
  cr_assert_not_null(mkdtemp(root));
  snprintf(link_path, sizeof link_path, "%s/r.json", root);
  snprintf(target, sizeof target, "%s/r.xml", root);
  snprintf(other, sizeof other, "%s/s.xml", root);
  cr_assert_eq(symlink("r.xml", link_path), 0);
  cr_assert(cs_same_file(link_path, target), "a dangling link and the file it would make");
  cr_assert(cs_same_file(target, link_path));
  cr_assert_not(cs_same_file(link_path, other));
  snprintf(sub, sizeof sub, "%s/d", root);
  cr_assert_eq(mkdir(sub, 0777), 0);
  snprintf(deep, sizeof deep, "%s/d/l.json", root);
  cr_assert_eq(symlink("../r.json", deep), 0); /* a chain: d/l.json -> r.json -> r.xml */
  cr_assert(cs_same_file(deep, target), "a chain of links, relative to each link's directory");
  unlink(deep);
  rmdir(sub);
  unlink(link_path);
  rmdir(root);
}

Test(fs, write_file_replaces_and_says_why_it_cannot) {
  char root[] = "/tmp/cs-fs-XXXXXX", file[128], below[160];
  cr_assert_not_null(mkdtemp(root));
  snprintf(file, sizeof file, "%s/out.txt", root);
  cs_err err = {{0}};
  cr_assert_eq(cs_write_file(file, "first, longer\n", 14, &err), 0, "%s", err.msg);
  cr_assert_eq(cs_write_file(file, "second\n", 7, &err), 0, "%s", err.msg);
  char got[32] = "";
  FILE *f = fopen(file, "rb");
  cr_assert_not_null(f);
  size_t n = fread(got, 1, sizeof got - 1, f);
  fclose(f);
  cr_assert_eq(n, 7, "the old, longer content was not replaced: %zu bytes", n);
  cr_assert_str_eq(got, "second\n");
  cr_assert_eq(cs_write_file(file, NULL, 0, &err), 0, "%s", err.msg); /* empty: no data pointer needed */
  cr_assert_eq(cs_write_file(root, "x", 1, &err), -1, "wrote to a directory");
  cr_assert_not_null(strstr(err.msg, "cannot write: Is a directory"), "%s", err.msg);
  snprintf(below, sizeof below, "%s/x", file);
  cr_assert_eq(cs_write_file(below, "x", 1, &err), -1, "wrote below a file");
  cr_assert_not_null(strstr(err.msg, below), "%s", err.msg);
  cr_assert_not_null(strstr(err.msg, "Not a directory"), "%s", err.msg);
  unlink(file);
  rmdir(root);
}

/* Counts the entries of `dir` other than . and .. (a temporary file left behind would show). */
static int entries(const char *dir) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

static void read_back(const char *path, char *got, size_t n) {
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "%s", path);
  size_t k = fread(got, 1, n - 1, f);
  got[k] = 0;
  fclose(f);
}

/* A write that fails part-way (here a file size limit) leaves the old file whole, and no
 * temporary file beside it. */
Test(fs, write_file_is_whole_or_not_at_all) {
  char root[] = "/tmp/cs-fs-XXXXXX", file[128], got[64];
  cr_assert_not_null(mkdtemp(root));
  snprintf(file, sizeof file, "%s/report.json", root);
  cs_err err = {{0}};
  cr_assert_eq(cs_write_file(file, "{\"old\":1}\n", 10, &err), 0, "%s", err.msg);
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = {4096, 4096};
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
  static char big[20000];
  memset(big, 'x', sizeof big);
  cr_assert_eq(cs_write_file(file, big, sizeof big, &err), -1, "a cut-off write went unnoticed");
  cr_assert_not_null(strstr(err.msg, "File too large"), "%s", err.msg);
  read_back(file, got, sizeof got);
  cr_assert_str_eq(got, "{\"old\":1}\n");
  cr_assert_eq(entries(root), 1, "a temporary file was left behind");
  unlink(file);
  rmdir(root);
}

/* The replaced file keeps its permissions; a symlink stays a link and its file is replaced. */
Test(fs, write_file_keeps_mode_and_links) {
  char root[] = "/tmp/cs-fs-XXXXXX", file[128], link[128], got[64];
  cr_assert_not_null(mkdtemp(root));
  snprintf(file, sizeof file, "%s/real.txt", root);
  snprintf(link, sizeof link, "%s/link.txt", root);
  cs_err err = {{0}};
  cr_assert_eq(cs_write_file(file, "one\n", 4, &err), 0, "%s", err.msg);
  cr_assert_eq(chmod(file, 0640), 0);
  cr_assert_eq(symlink("real.txt", link), 0);
  cr_assert_eq(cs_write_file(link, "two\n", 4, &err), 0, "%s", err.msg);
  struct stat st;
  cr_assert_eq(lstat(link, &st), 0);
  cr_assert(S_ISLNK(st.st_mode), "the link was replaced by a file");
  cr_assert_eq(stat(file, &st), 0);
  cr_assert_eq(st.st_mode & 07777, 0640, "mode %o", (unsigned)(st.st_mode & 07777));
  read_back(file, got, sizeof got);
  cr_assert_str_eq(got, "two\n");
  cr_assert_eq(entries(root), 2);
  unlink(link);
  unlink(file);
  rmdir(root);
}

#if defined(__linux__)
/* A full disk shows on write or close, not on open: the failure must still be reported. */
Test(fs, write_file_reports_a_full_disk) {
  struct stat st;
  if (stat("/dev/full", &st) != 0)
    cr_skip_test("no /dev/full");
  char big[70000];
  memset(big, 'x', sizeof big);
  cs_err err = {{0}};
  cr_assert_eq(cs_write_file("/dev/full", big, sizeof big, &err), -1, "a full disk went unnoticed");
  cr_assert_not_null(strstr(err.msg, "No space left on device"), "%s", err.msg);
}
#endif

static FILE *text_file(const char *text) {
  FILE *f = tmpfile();
  cr_assert_not_null(f);
  fputs(text, f);
  rewind(f);
  return f;
}

Test(fs, read_line_counts_and_drops_newlines) {
  FILE *f = text_file("first\n\nlast without newline");
  char line[32];
  int lineno = 0;
  cs_err err = {{0}};
  cr_assert_eq(cs_read_line(f, line, sizeof line, "t.txt", &lineno, &err), 1);
  cr_assert_str_eq(line, "first");
  cr_assert_eq(cs_read_line(f, line, sizeof line, "t.txt", &lineno, &err), 1);
  cr_assert_str_eq(line, "");
  cr_assert_eq(cs_read_line(f, line, sizeof line, "t.txt", &lineno, &err), 1);
  cr_assert_str_eq(line, "last without newline");
  cr_assert_eq(cs_read_line(f, line, sizeof line, "t.txt", &lineno, &err), 0);
  cr_assert_eq(lineno, 3);
  fclose(f);
}

/* The buffer holds n - 1 bytes: a line of exactly that length is read whole, with or without its
 * newline; one byte more is an error naming the line, not a second line. */
Test(fs, read_line_limit_is_the_buffer) {
  char line[8];
  int lineno = 0;
  cs_err err = {{0}};
  FILE *f = text_file("1234567\n1234567");
  cr_assert_eq(cs_read_line(f, line, sizeof line, "t.txt", &lineno, &err), 1, "%s", err.msg);
  cr_assert_str_eq(line, "1234567");
  cr_assert_eq(cs_read_line(f, line, sizeof line, "t.txt", &lineno, &err), 1, "%s", err.msg);
  cr_assert_str_eq(line, "1234567");
  cr_assert_eq(cs_read_line(f, line, sizeof line, "t.txt", &lineno, &err), 0);
  fclose(f);
  lineno = 0;
  f = text_file("ok\n12345678\nnext\n");
  cr_assert_eq(cs_read_line(f, line, sizeof line, "t.txt", &lineno, &err), 1);
  cr_assert_eq(cs_read_line(f, line, sizeof line, "t.txt", &lineno, &err), -1);
  cr_assert_str_eq(err.msg, "t.txt:2: line longer than 7 bytes");
  fclose(f);
  /* The same lines with CRLF ends are as long: the CR of a full line is its line end. */
  lineno = 0;
  f = text_file("1234567\r\n1234567\r\n1234567\r");
  for (int k = 0; k < 3; k++) {
    cr_assert_eq(cs_read_line(f, line, sizeof line, "t.txt", &lineno, &err), 1, "%s", err.msg);
    cr_assert_str_eq(line, "1234567");
  }
  cr_assert_eq(cs_read_line(f, line, sizeof line, "t.txt", &lineno, &err), 0);
  fclose(f);
  lineno = 0;
  f = text_file("1234567\rx\n");
  cr_assert_eq(cs_read_line(f, line, sizeof line, "t.txt", &lineno, &err), -1, "a CR inside a line is a byte");
  fclose(f);
}

/* A NUL byte would end the line for every string function after the read: refused, not cut. */
Test(fs, read_line_refuses_a_nul_byte) {
  static const char text[] = "ok\nmistral.max_len=9\0junk\nnext\n";
  FILE *f = tmpfile();
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(text, 1, sizeof text - 1, f), sizeof text - 1);
  rewind(f);
  char line[64];
  int lineno = 0;
  cs_err err = {{0}};
  cr_assert_eq(cs_read_line(f, line, sizeof line, "p.txt", &lineno, &err), 1, "%s", err.msg);
  cr_assert_eq(cs_read_line(f, line, sizeof line, "p.txt", &lineno, &err), -1);
  cr_assert_str_eq(err.msg, "p.txt:2: line holds a NUL byte");
  fclose(f);
}

Test(fs, read_line_from_a_directory_says_why) {
  FILE *f = fopen("/tmp", "r");
  if (!f)
    cr_skip_test("this system does not open directories as files");
  char line[8];
  int lineno = 0;
  cs_err err = {{0}};
  cr_assert_eq(cs_read_line(f, line, sizeof line, "/tmp", &lineno, &err), -1);
  cr_assert_str_eq(err.msg, "/tmp: cannot read: Is a directory");
  cr_assert_eq(lineno, 0);
  fclose(f);
}

/* A byte-order mark opening the file is dropped; the same bytes anywhere else are left alone. */
Test(fs, read_line_drops_a_leading_byte_order_mark) {
  char line[64];
  int lineno = 0;
  cs_err err = {{0}};
  FILE *f = text_file("\xef\xbb\xbfopenai_chat.max_len=64\n\xef\xbb\xbfsecond\n");
  cr_assert_eq(cs_read_line(f, line, sizeof line, "p.txt", &lineno, &err), 1, "%s", err.msg);
  cr_assert_str_eq(line, "openai_chat.max_len=64");
  cr_assert_eq(cs_read_line(f, line, sizeof line, "p.txt", &lineno, &err), 1, "%s", err.msg);
  cr_assert_str_eq(line, "\xef\xbb\xbfsecond");
  fclose(f);
  lineno = 0;
  f = text_file("\xef\xbb\xbf");
  cr_assert_eq(cs_read_line(f, line, sizeof line, "p.txt", &lineno, &err), 1, "%s", err.msg);
  cr_assert_str_eq(line, "");
  fclose(f);
}

/* A report path spelled as a directory is refused before anything is made. */
Test(fs, prepare_output_refuses_a_directory_spelling_first) {
  char root[] = "/tmp/cs-fs-XXXXXX", path[96];
  cr_assert_not_null(mkdtemp(root));
  snprintf(path, sizeof path, "%s/r.json/", root);
  cs_err err = {{0}};
  cr_assert_eq(cs_prepare_output(path, NULL, &err), -1);
  cr_assert_not_null(strstr(err.msg, "Is a directory"), "%s", err.msg);
  snprintf(path, sizeof path, "%s/r.json", root);
  struct stat st;
  cr_assert_neq(stat(path, &st), 0, "r.json was made");
  rmdir(root);
}

/* Run as root, a replaced report keeps the owner it had (root's rename would make it root's). */
Test(fs, write_file_keeps_the_owner_as_root) {
  if (geteuid() != 0)
    cr_skip_test("not root");
  char root[] = "/tmp/cs-fs-XXXXXX", file[128];
  cr_assert_not_null(mkdtemp(root));
  snprintf(file, sizeof file, "%s/r.json", root);
  cs_err err = {{0}};
  cr_assert_eq(cs_write_file(file, "old\n", 4, &err), 0, "%s", err.msg);
  cr_assert_eq(chown(file, 65534, 65534), 0);
  cr_assert_eq(cs_write_file(file, "new\n", 4, &err), 0, "%s", err.msg);
  struct stat st;
  cr_assert_eq(stat(file, &st), 0);
  cr_assert_eq(st.st_uid, 65534, "owner %u", (unsigned)st.st_uid);
  cr_assert_eq(st.st_gid, 65534, "group %u", (unsigned)st.st_gid);
  unlink(file);
  rmdir(root);
}

/* Through a symlink the file it leads to is replaced as a plain file is: a write cut short by a size
 * limit leaves it as it was. */
Test(fs, write_file_through_a_link_is_whole_or_not_at_all) {
  char root[] = "/tmp/cs-fs-XXXXXX", file[128], link[128], got[64];
  cr_assert_not_null(mkdtemp(root));
  snprintf(file, sizeof file, "%s/real.json", root);
  snprintf(link, sizeof link, "%s/link.json", root);
  cs_err err = {{0}};
  cr_assert_eq(cs_write_file(file, "{\"old\":1}\n", 10, &err), 0, "%s", err.msg);
  cr_assert_eq(symlink("real.json", link), 0);
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = {4096, 4096};
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
  static char big[20000];
  memset(big, 'x', sizeof big);
  cr_assert_eq(cs_write_file(link, big, sizeof big, &err), -1, "a cut-off write went unnoticed");
  cr_assert_not_null(strstr(err.msg, "link.json: cannot write: File too large"), "%s", err.msg);
  read_back(file, got, sizeof got);
  cr_assert_str_eq(got, "{\"old\":1}\n");
  cr_assert_eq(entries(root), 2, "a temporary file was left behind");
  unlink(link);
  unlink(file);
  rmdir(root);
}

/* Runs `what` as user nobody in a child (the checks need a user other than root); its status. */
static int as_nobody(void (*what)(const char *), const char *arg) {
  pid_t pid = fork();
  if (pid == 0) {
    if (setgid(65534) || setuid(65534))
      _exit(90);
    what(arg);
    _exit(0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 99;
}

static void write_expecting_refusal(const char *file) {
  cs_err err = {{0}};
  if (cs_write_file(file, "new\n", 4, &err) != -1)
    _exit(1);
  if (!strstr(err.msg, "cannot write: Permission denied"))
    _exit(2);
}

/* A file its mode keeps the user from writing is refused, not replaced by a rename in a directory
 * the user may write. */
Test(fs, write_file_refuses_a_file_the_user_cannot_write) {
  if (geteuid() != 0)
    cr_skip_test("not root (the check runs as another user)");
  char root[] = "/tmp/cs-fs-XXXXXX", file[128], got[64];
  cr_assert_not_null(mkdtemp(root));
  cr_assert_eq(chmod(root, 0777), 0);
  snprintf(file, sizeof file, "%s/ro.json", root);
  cs_err err = {{0}};
  cr_assert_eq(cs_write_file(file, "old\n", 4, &err), 0, "%s", err.msg);
  cr_assert_eq(chmod(file, 0444), 0);
  cr_assert_eq(as_nobody(write_expecting_refusal, file), 0);
  struct stat st;
  cr_assert_eq(stat(file, &st), 0);
  cr_assert_eq(st.st_uid, 0, "the file changed owner to %u", (unsigned)st.st_uid);
  read_back(file, got, sizeof got);
  cr_assert_str_eq(got, "old\n");
  unlink(file);
  rmdir(root);
}

static void write_over_expecting_put_back(const char *file) {
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = {4096, 4096};
  if (setrlimit(RLIMIT_FSIZE, &lim))
    _exit(3);
  static char big[20000];
  memset(big, 'x', sizeof big);
  cs_err err = {{0}};
  if (cs_write_file(file, big, sizeof big, &err) != -1)
    _exit(1);
  if (!strstr(err.msg, "File too large (the old file was put back)"))
    _exit(2);
}

/* A file that can be written but not replaced (no temporary file can be made in its directory) is
 * written over; a write cut short puts the old bytes back. */
Test(fs, write_file_written_over_puts_the_old_file_back_on_failure) {
  if (geteuid() != 0)
    cr_skip_test("not root (the check runs as another user)");
  char root[] = "/tmp/cs-fs-XXXXXX", file[128], got[64];
  cr_assert_not_null(mkdtemp(root));
  snprintf(file, sizeof file, "%s/r.json", root);
  cs_err err = {{0}};
  cr_assert_eq(cs_write_file(file, "{\"old\":1}\n", 10, &err), 0, "%s", err.msg);
  cr_assert_eq(chmod(file, 0666), 0);
  cr_assert_eq(chmod(root, 0755), 0); /* nobody may write the file, not the directory */
  cr_assert_eq(as_nobody(write_over_expecting_put_back, file), 0);
  read_back(file, got, sizeof got);
  cr_assert_str_eq(got, "{\"old\":1}\n");
  cr_assert_eq(entries(root), 1);
  unlink(file);
  rmdir(root);
}

static void write_expecting_success(const char *file) {
  cs_err err = {{0}};
  if (cs_write_file(file, "new\n", 4, &err) != 0)
    _exit(1);
}

/* A file that may be written but not read, where no temporary file can be made, is written over as
 * before: there is nothing to put back, and refusing it would refuse a path that works. */
Test(fs, write_file_writes_over_a_write_only_file) {
  if (geteuid() != 0)
    cr_skip_test("not root (the check runs as another user)");
  char root[] = "/tmp/cs-fs-XXXXXX", file[128], got[64];
  cr_assert_not_null(mkdtemp(root));
  snprintf(file, sizeof file, "%s/w.json", root);
  cs_err err = {{0}};
  cr_assert_eq(cs_write_file(file, "old\n", 4, &err), 0, "%s", err.msg);
  cr_assert_eq(chmod(file, 0222), 0);
  cr_assert_eq(chmod(root, 0755), 0);
  cr_assert_eq(as_nobody(write_expecting_success, file), 0);
  read_back(file, got, sizeof got);
  cr_assert_str_eq(got, "new\n");
  unlink(file);
  rmdir(root);
}
