/* core/fs.h: the filesystem helpers the commands that write results share. */
#ifndef CS_CORE_FS_H
#define CS_CORE_FS_H

#include "core/error.h"

/* Creates `path` and its missing parents (like mkdir -p). 0, or -1 with err naming the directory
 * that could not be made. */
int cs_mkdir_p(const char *path, cs_err *err);

#endif
