/* core/fs.c: mkdir -p, writing a whole file, reading a text file line by line; each failure with
 * its reason. */
#include "core/fs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cs_mkdir_p(const char *path, cs_err *err) {
  char tmp[2048];
  if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
    return cs_err_set(err, "%.200s...: path too long", path);
  for (char *p = tmp + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = 0;
    if (mkdir(tmp, 0777) && errno != EEXIST)
      return cs_err_set(err, "%s: cannot create: %s", tmp, strerror(errno));
    *p = '/';
  }
  if (mkdir(tmp, 0777) && errno != EEXIST)
    return cs_err_set(err, "%s: cannot create: %s", tmp, strerror(errno));
  struct stat st;
  if (stat(tmp, &st))
    return cs_err_set(err, "%s: cannot create: %s", tmp, strerror(errno));
  if (!S_ISDIR(st.st_mode)) /* mkdir's EEXIST says only that the name is taken */
    return cs_err_set(err, "%s: cannot create: %s", tmp, strerror(EEXIST));
  return 0;
}

int cs_prepare_output(const char *path, cs_err *err) {
  char dir[2048];
  const char *slash = strrchr(path, '/');
  size_t n = slash ? (size_t)(slash - path) : 0;
  if (!slash) {
    strcpy(dir, ".");
  } else if (n == 0) {
    strcpy(dir, "/");
  } else if (n < sizeof dir) {
    memcpy(dir, path, n);
    dir[n] = 0;
  } else {
    return cs_err_set(err, "%.200s...: path too long", path);
  }
  if (cs_mkdir_p(dir, err))
    return -1;
  struct stat st;
  if (stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return cs_err_set(err, "%s: cannot write: %s", path, strerror(EISDIR));
    if (access(path, W_OK))
      return cs_err_set(err, "%s: cannot write: %s", path, strerror(errno));
  } else if (access(dir, W_OK | X_OK)) {
    return cs_err_set(err, "%s: cannot write: %s", path, strerror(errno));
  }
  return 0;
}

int cs_write_file(const char *path, const void *data, size_t len, cs_err *err) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return cs_err_set(err, "%s: cannot write: %s", path, strerror(errno));
  int rc = 0;
  if (len && fwrite(data, 1, len, f) != len)
    rc = cs_err_set(err, "%s: cannot write: %s", path, strerror(errno));
  if (fclose(f) && rc == 0)
    rc = cs_err_set(err, "%s: cannot write: %s", path, strerror(errno));
  return rc;
}

int cs_read_line(FILE *f, char *line, size_t n, const char *path, int *lineno, cs_err *err) {
  /* Byte by byte rather than fgets: fgets hides a NUL byte, and strlen would then cut the line
   * there and quietly drop the rest ("max_len=9\0junk" read as "max_len=9"). */
  size_t len = 0;
  int c = getc(f);
  if (c == EOF)
    return ferror(f) ? cs_err_set(err, "%s: cannot read: %s", path, strerror(errno)) : 0;
  ++*lineno;
  for (; c != EOF && c != '\n'; c = getc(f)) {
    if (c == 0)
      return cs_err_set(err, "%s:%d: line holds a NUL byte", path, *lineno);
    if (len == n - 1) /* the line does not end within the buffer */
      return cs_err_set(err, "%s:%d: line longer than %zu bytes", path, *lineno, n - 1);
    line[len++] = (char)c;
  }
  line[len] = 0;
  if (c == EOF && ferror(f))
    return cs_err_set(err, "%s: cannot read: %s", path, strerror(errno));
  if (*lineno == 1 && len >= 3 && !memcmp(line, "\xef\xbb\xbf", 3))
    memmove(line, line + 3, len - 2); /* the rest and its NUL */
  return 1;
}
