/* core/fs.c: mkdir -p, writing a whole file, reading a text file line by line; each failure with
 * its reason. */
#include "core/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"

const char *cs_path_shown(const char *path, char out[CS_PATH_SHOWN]) {
  size_t n = strlen(path);
  if (n < CS_PATH_SHOWN)
    return path;
  snprintf(out, CS_PATH_SHOWN, "%.200s...%s", path, path + n - 100);
  return out;
}

/* "PATH: cannot VERB: REASON", with a long path shortened so that the reason still shows. */
static int fail(cs_err *err, const char *path, const char *verb, int e) {
  char shown[CS_PATH_SHOWN];
  return cs_err_set(err, "%s: cannot %s: %s", cs_path_shown(path, shown), verb, strerror(e));
}

int cs_dir_writable(const char *path, cs_err *err) {
  char *p = cs_xstrdup(path);
  size_t len = strlen(p);
  struct stat st;
  int rc = 0;
  for (;;) { /* up to the nearest existing ancestor: "a/b/c", "a/b", "a", then "." */
    if (stat(len ? p : ".", &st) == 0)
      break;
    if (errno != ENOENT && errno != ENOTDIR) { /* ENOTDIR: a file above it, named below */
      rc = cs_err_set(err, "%s: %s", len ? p : ".", strerror(errno));
      break;
    }
    while (len && p[len - 1] == '/')
      len--;
    while (len && p[len - 1] != '/')
      len--;
    while (len > 1 && p[len - 1] == '/')
      len--;
    p[len] = 0;
  }
  const char *at = len ? p : ".";
  if (rc == 0 && !S_ISDIR(st.st_mode))
    rc = cs_err_set(err, "%s: not a directory", at);
  else if (rc == 0 && access(at, W_OK | X_OK) != 0)
    rc = cs_err_set(err, "%s: cannot write there: %s", at, strerror(errno));
  free(p);
  return rc;
}

static void made_add(cs_made *m, const char *dir) {
  if (!m)
    return;
  if (m->n == m->cap) {
    m->cap = m->cap ? 2 * m->cap : 8;
    m->dir = cs_xrealloc_array(m->dir, m->cap, sizeof *m->dir);
  }
  m->dir[m->n++] = cs_xstrdup(dir);
}

void cs_made_free(cs_made *m) {
  for (size_t i = 0; i < m->n; i++)
    free(m->dir[i]);
  free(m->dir);
  *m = (cs_made){0};
}

void cs_made_undo(cs_made *m) {
  for (size_t i = m->n; i-- > 0;)
    rmdir(m->dir[i]); /* refuses a directory that is no longer empty: that one stays */
  cs_made_free(m);
}

/* mkdir, listing a directory it made in `made`. */
static int make_dir(const char *dir, cs_made *made) {
  if (mkdir(dir, 0777))
    return errno == EEXIST ? 0 : -1;
  made_add(made, dir);
  return 0;
}

/* No length limit of its own: a path is refused by the system (ENAMETOOLONG), never cut. */
int cs_mkdir_p(const char *path, cs_made *made, cs_err *err) {
  char *tmp = cs_xstrdup(path);
  int rc = -1;
  for (char *p = tmp + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = 0;
    if (make_dir(tmp, made)) {
      fail(err, tmp, "create", errno);
      goto cleanup;
    }
    *p = '/';
  }
  struct stat st;
  if (make_dir(tmp, made))
    fail(err, tmp, "create", errno);
  else if (stat(tmp, &st))
    fail(err, tmp, "create", errno);
  else if (!S_ISDIR(st.st_mode)) /* taken by a file: what open() below it would say */
    fail(err, tmp, "create", ENOTDIR);
  else
    rc = 0;
cleanup:
  free(tmp);
  return rc;
}

/* The directory of the file `path` (heap): "." for a bare name, "/" for a file at the root. */
static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  size_t n = slash ? (size_t)(slash - path) : 0;
  char *dir = cs_xstrdup(!slash ? "." : n == 0 ? "/" : path);
  if (n)
    dir[n] = 0;
  return dir;
}

/* A report through a dangling symlink is made where the link points, whose directory need not be
 * the link's: make that file, then remove it when it is still the empty one made here. */
static int try_link_target(const char *path, cs_err *err) {
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0)
    return fail(err, path, "write", errno);
  struct stat made, now;
  char *target = realpath(path, NULL);
  if (target && fstat(fd, &made) == 0 && stat(target, &now) == 0 && made.st_dev == now.st_dev &&
      made.st_ino == now.st_ino && now.st_size == 0)
    unlink(target);
  free(target);
  close(fd);
  return 0;
}

int cs_prepare_output(const char *path, cs_made *made, cs_err *err) {
  size_t n = strlen(path);
  if (n && path[n - 1] == '/') /* a directory by its spelling: refused before one is made */
    return fail(err, path, "write", EISDIR);
  char *dir = dir_of(path);
  int rc = -1;
  struct stat st;
  if (cs_mkdir_p(dir, made, err))
    goto cleanup;
  if (stat(path, &st) != 0) {
    struct stat lst;
    if (errno == ENOENT && lstat(path, &lst) == 0) { /* a dangling symlink: made where it points */
      rc = try_link_target(path, err);
      goto cleanup;
    }
    /* Only creating the file shows that it can be made: root passes access() in /proc or on a
     * read-only file system. O_EXCL: the file removed below is surely the one made here. */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || stat(path, &st) != 0)) { /* EEXIST: someone made it meanwhile */
      fail(err, path, "write", errno);
      goto cleanup;
    }
    if (fd >= 0) {
      close(fd);
      unlink(path); /* an aborted run leaves no empty report behind */
      rc = 0;
      goto cleanup;
    }
  }
  if (S_ISDIR(st.st_mode)) {
    fail(err, path, "write", EISDIR);
  } else if (!S_ISREG(st.st_mode)) { /* opening a FIFO or a device has effects (a FIFO's reader sees an end) */
    rc = access(path, W_OK) ? fail(err, path, "write", errno) : 0;
  } else {
    /* access() says yes to root for any file: open it for writing, without O_TRUNC, to be sure. */
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      fail(err, path, "write", errno);
    } else {
      close(fd);
      rc = 0;
    }
  }
cleanup:
  free(dir);
  return rc;
}

/* Where a path leads: the file when it exists, else its directory and last name. A dangling
 * symlink leads where it points (the file a write through it would make). */
typedef struct {
  struct stat st;
  char *path;       /* heap: the path identified, after any dangling links */
  const char *name; /* NULL: the file itself exists; else the last name of `path` */
  size_t name_len;
} file_id;

/* Heap: the path the symlink `path` points to, relative to the link's directory; NULL if none. */
static char *link_target(const char *path) {
  struct stat lst;
  if (lstat(path, &lst) || !S_ISLNK(lst.st_mode))
    return NULL;
  size_t cap = 256;
  for (;;) {
    char *t = cs_xmalloc(cap);
    ssize_t n = readlink(path, t, cap);
    if (n < 0) {
      free(t);
      return NULL;
    }
    if ((size_t)n < cap) {
      t[n] = 0;
      if (t[0] == '/' || !strchr(path, '/'))
        return t;
      char *dir = dir_of(path);
      cs_buf b = {0};
      cs_buf_printf(&b, "%s/%s", dir, t);
      free(dir);
      free(t);
      return b.data;
    }
    free(t);
    cap *= 2;
  }
}

static bool identify(const char *path, file_id *id) {
  id->name = NULL;
  id->name_len = 0;
  id->path = cs_xstrdup(path);
  for (int hops = 0; stat(id->path, &id->st) != 0; hops++) {
    char *t = hops < 16 ? link_target(id->path) : NULL;
    if (!t) {
      const char *slash = strrchr(id->path, '/');
      id->name = slash ? slash + 1 : id->path;
      id->name_len = strlen(id->name);
      char *dir = dir_of(id->path); /* no length limit: a long path is compared, not given up on */
      bool found = stat(dir, &id->st) == 0;
      free(dir);
      return found;
    }
    free(id->path);
    id->path = t;
  }
  return true;
}

bool cs_same_file(const char *a, const char *b) {
  if (!strcmp(a, b))
    return true;
  file_id x, y;
  bool same = false;
  bool known = identify(a, &x);
  known = identify(b, &y) && known;
  if (known && x.st.st_dev == y.st.st_dev && x.st.st_ino == y.st.st_ino && !x.name == !y.name)
    same = !x.name || (x.name_len == y.name_len && !memcmp(x.name, y.name, x.name_len));
  free(x.path);
  free(y.path);
  return same;
}

/* stdout or stderr named by a path: written to the stream itself, after what it holds already
 * (opening /dev/stdout anew would truncate the file it was redirected to). */
static FILE *std_stream(const char *path) {
  if (!strcmp(path, "/dev/stdout") || !strcmp(path, "/dev/fd/1") || !strcmp(path, "/proc/self/fd/1"))
    return stdout;
  if (!strcmp(path, "/dev/stderr") || !strcmp(path, "/dev/fd/2") || !strcmp(path, "/proc/self/fd/2"))
    return stderr;
  return NULL;
}

/* Writes over `path` in place; messages name `shown`, the path as the user gave it. */
static int write_in_place(const char *path, const char *shown, const void *data, size_t len, cs_err *err) {
  FILE *std = std_stream(path);
  if (std) {
    if ((len && fwrite(data, 1, len, std) != len) || fflush(std))
      return fail(err, shown, "write", errno ? errno : EIO);
    return 0;
  }
  FILE *f = fopen(path, "wb");
  if (!f)
    return fail(err, shown, "write", errno);
  int rc = 0;
  if (len && fwrite(data, 1, len, f) != len)
    rc = fail(err, shown, "write", errno);
  if (fclose(f) && rc == 0)
    rc = fail(err, shown, "write", errno);
  return rc;
}

/* Opens a new temporary file beside `path` (heap name in *tmp): ".NAME.tmp-PID-K", made with
 * O_EXCL so a stale one is never reused. -1 when none can be made there. */
static int open_beside(const char *path, char **tmp) {
  const char *slash = strrchr(path, '/');
  size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
  const char *base = path + dlen;
  size_t cap = dlen + strlen(base) + 48;
  char *name = cs_xmalloc(cap);
  for (unsigned k = 0; k < 100; k++) {
    snprintf(name, cap, "%.*s.%s.tmp-%ld-%u", (int)dlen, path, base, (long)getpid(), k);
    int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      *tmp = name;
      return fd;
    }
    if (errno != EEXIST)
      break;
  }
  free(name);
  return -1;
}

/* Where the symlink chain from `path` ends (heap): the first name that is not a link, or the missing
 * name a dangling link points to. NULL when the chain passes through /proc or /dev/fd (/dev/stdout:
 * the process's own descriptors, written through, never replaced) or does not end. */
static char *link_end(const char *path) {
  char *cur = cs_xstrdup(path);
  for (int hops = 0; hops < 40; hops++) {
    if (!strncmp(cur, "/proc/", 6) || !strncmp(cur, "/dev/fd/", 8))
      break;
    char *next = link_target(cur);
    if (!next)
      return cur;
    free(cur);
    cur = next;
  }
  free(cur);
  return NULL;
}

/* A regular file that cannot be replaced by a rename (no temporary file in its directory; a sticky
 * directory and another user's file) is written over; when that fails, its old bytes are put back,
 * so that it is still whole or untouched, as far as the failure lets. A file not there yet, or one
 * that cannot be read, has nothing to put back: it is written in place. */
static int write_over(const char *path, const char *shown, const void *data, size_t len, cs_err *err) {
  cs_buf old = {0};
  FILE *f = fopen(path, "rb");
  if (!f) /* none yet, or one that may be written, not read (0222) */
    return write_in_place(path, shown, data, len, err);
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    cs_buf_put(&old, chunk, n);
  bool unread = ferror(f);
  fclose(f);
  int rc = unread ? fail(err, shown, "write", EIO) : write_in_place(path, shown, data, len, err);
  if (rc && !unread) {
    cs_err lost;
    bool back = write_in_place(path, shown, old.data ? old.data : "", old.len, &lost) == 0;
    size_t at = strlen(err->msg);
    snprintf(err->msg + at, sizeof err->msg - at, "%s",
             back ? " (the old file was put back)" : " (the old file could not be put back: it may be cut off)");
  }
  cs_buf_free(&old);
  return rc;
}

int cs_write_file(const char *path, const void *data, size_t len, cs_err *err) {
  /* A symlink is followed to the file it leads to, which is replaced and the link kept; through
   * /proc or /dev/fd it is written through, in place: /dev/stdout leads to whatever stdout was
   * redirected to, which a rename would swap away from under the shell's descriptor. So are a FIFO
   * or a device. */
  const char *shown = path;
  char *end = NULL;
  struct stat st;
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
    if (!(end = link_end(path)))
      return write_in_place(path, path, data, len, err);
    path = end;
  }
  int rc = 0;
  char *tmp = NULL;
  int fd = -1;
  bool exists = stat(path, &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    rc = write_in_place(path, shown, data, len, err);
    goto cleanup;
  }
  /* A rename would replace a file its mode keeps callsign from writing (root may). */
  if (exists && faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0) {
    rc = fail(err, shown, "write", errno);
    goto cleanup;
  }
  fd = open_beside(path, &tmp);
  if (fd < 0) {
    rc = write_over(path, shown, data, len, err);
    goto cleanup;
  }
  /* A replaced file keeps its owner (when callsign may give it: as root) and its permissions. */
  if (exists && (st.st_uid != geteuid() || st.st_gid != getegid()) && fchown(fd, st.st_uid, st.st_gid) &&
      errno != EPERM)
    rc = fail(err, shown, "write", errno);
  if (rc == 0 && exists && fchmod(fd, st.st_mode & 07777))
    rc = fail(err, shown, "write", errno);
  for (size_t done = 0; rc == 0 && done < len;) {
    ssize_t w = write(fd, (const char *)data + done, len - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      rc = fail(err, shown, "write", w < 0 ? errno : EIO);
    else
      done += (size_t)w;
  }
  if (close(fd) && rc == 0)
    rc = fail(err, shown, "write", errno);
  bool renamed = rc == 0 && rename(tmp, path) == 0;
  if (!renamed)
    unlink(tmp);           /* the file at `path` is left as it was */
  if (rc == 0 && !renamed) /* not allowed to replace it (a sticky directory): written over instead */
    rc = write_over(path, shown, data, len, err);
cleanup:
  free(tmp);
  free(end);
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
    if (len == n - 1) { /* the line does not end within the buffer */
      /* unless this is the CR of its CRLF end: a file saved on Windows holds the same lines */
      int d = c == '\r' ? getc(f) : 0;
      if (d == '\n' || d == EOF) {
        c = d;
        break;
      }
      return cs_err_set(err, "%s:%d: line longer than %zu bytes", path, *lineno, n - 1);
    }
    line[len++] = (char)c;
  }
  line[len] = 0;
  if (c == EOF && ferror(f))
    return cs_err_set(err, "%s: cannot read: %s", path, strerror(errno));
  if (*lineno == 1 && len >= 3 && !memcmp(line, "\xef\xbb\xbf", 3))
    memmove(line, line + 3, len - 2); /* the rest and its NUL */
  return 1;
}
