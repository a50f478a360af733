/* core/fs.h: the filesystem helpers the commands that write results share. */
#ifndef CS_CORE_FS_H
#define CS_CORE_FS_H

#include <stddef.h>

#include "core/error.h"

/* Creates `path` and its missing parents (like mkdir -p). 0, or -1 with err naming the directory
 * that could not be made. */
int cs_mkdir_p(const char *path, cs_err *err);

/* Writes `len` bytes to `path`, replacing it. 0, or -1 with err "PATH: cannot write: REASON" (a
 * failed write or close counts: a full disk shows only there). */
int cs_write_file(const char *path, const void *data, size_t len, cs_err *err);

#endif
