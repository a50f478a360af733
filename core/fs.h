/* core/fs.h: the filesystem helpers the commands share: mkdir -p, checking an output path early,
 * whole-file writes, and reading small text files (profiles, known-failures lists) line by line. */
#ifndef CS_CORE_FS_H
#define CS_CORE_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/error.h"

/* `path` as an error message shows it: whole when shorter than CS_PATH_SHOWN bytes, else its first 200
 * and last 100 bytes around "..." in `out`, so the reason after it still fits the one-line message. */
#define CS_PATH_SHOWN 320
const char *cs_path_shown(const char *path, char out[CS_PATH_SHOWN]);

/* The directories a command made on the way to its outputs, oldest first, so that a command
 * refused before its work began can take them back (cs_made_undo) instead of leaving empty
 * directories behind. Zero-initialised; cs_made_undo or cs_made_free releases it. */
typedef struct {
  char **dir; /* heap */
  size_t n, cap;
} cs_made;

/* Removes the directories in `m` that are still empty, newest first (a directory something else
 * has since written in stays), then frees the list. */
void cs_made_undo(cs_made *m);
/* Frees the list, keeping the directories. */
void cs_made_free(cs_made *m);

/* Creates `path` and its missing parents (like mkdir -p), adding each directory it made to `made`
 * when that is not NULL. 0, or -1 with err naming the directory that could not be made (a file of
 * that name counts: "Not a directory", as opening a path below it would say). */
int cs_mkdir_p(const char *path, cs_made *made, cs_err *err);

/* Checks, making nothing, that the directory `path` could be written in once made: its nearest
 * existing ancestor (itself when it is there, "." for a relative path none of whose parts exist) is
 * a directory callsign can write in. 0, or -1 with err "DIR: not a directory", "DIR: cannot write
 * there: REASON" or "PATH: REASON". */
int cs_dir_writable(const char *path, cs_err *err);

/* Makes the missing parent directories of the file `path` and checks, leaving the file as it was,
 * that it can be written: an existing regular file is opened for writing (not truncated), a new one
 * is created and removed again; a FIFO or device is only asked (access), a directory refused. For
 * outputs written at the end of a long run, so that a mistyped path is refused before the run. 0,
 * or -1 with err "PATH: cannot write: REASON" or cs_mkdir_p's. The directories made go to `made`
 * (NULL: not listed), also when the file is then refused. */
int cs_prepare_output(const char *path, cs_made *made, cs_err *err);

/* True when the paths `a` and `b` name the same file: the same string, the same file (device and
 * inode) when both exist, or the same name in the same directory when neither does yet
 * ("./r.json" and "r.json"); a dangling symlink counts as the file it would make. */
bool cs_same_file(const char *a, const char *b);

/* Writes `len` bytes to `path`, replacing it whole or not at all: a regular file is written to a
 * temporary file beside it, then renamed over it, so a failed write (a full disk, a size limit)
 * leaves the old file as it was and no half-written one; the file keeps its permissions (and its
 * owner, where callsign may give it). A symlink is followed to the file it leads to, which is
 * replaced so (the link stays). A file the user may not write is refused (a rename would replace
 * it all the same). A file that can be written but not replaced (no temporary file can be made in
 * its directory; a sticky directory) is written over, and its old bytes put back when that fails.
 * A FIFO, a device, or a link through /proc or /dev/fd is written in place; /dev/stdout and
 * /dev/stderr (or /dev/fd/1, 2) are written to the stream itself, after what it holds. 0, or -1
 * with err "PATH: cannot write: REASON" (a failed write or close counts: a full disk shows only
 * there). */
int cs_write_file(const char *path, const void *data, size_t len, cs_err *err);

/* Reads the next line of `f` (the file `path`) into line[0..n), without its newline, and counts it
 * in *lineno. 1: a line; 0: end of file; -1 with err "PATH:LINE: line longer than N bytes" (N =
 * n - 1), "PATH:LINE: line holds a NUL byte" (it would cut the line short in every string function
 * after this one) or "PATH: cannot read: REASON" (a directory opens, then fails to read with
 * EISDIR). A UTF-8 byte-order mark opening line 1 is dropped: editors add it, and unseen in a
 * message it would make "openai_chat" look like an unknown name. */
int cs_read_line(FILE *f, char *line, size_t n, const char *path, int *lineno, cs_err *err);

#endif
