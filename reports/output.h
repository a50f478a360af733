/* reports/output.h: writing a finished report document to its stream.
 * Writers build the whole document in a cs_buf and hand it here, so that every I/O error (short
 * write, full disk at flush) is checked in one place and reported as one line. */
#ifndef CS_REPORTS_OUTPUT_H
#define CS_REPORTS_OUTPUT_H

#include <stdio.h>

#include "core/buf.h"
#include "core/error.h"

/* Writes doc and flushes out; returns 0, or -1 with err ("FORMAT report: ..."). */
int cs_report_output(const cs_buf *doc, FILE *out, const char *format, cs_err *err);

#endif
