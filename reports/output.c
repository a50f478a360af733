/* reports/output.c: the checked write of a finished report document. */
#include "reports/output.h"

#include <errno.h>
#include <string.h>

int cs_report_output(const cs_buf *doc, FILE *out, const char *format, cs_err *err) {
  if (!out)
    return cs_err_set(err, "%s report: no output stream", format);
  errno = 0;
  size_t n = doc->len;
  if (n && fwrite(doc->data, 1, n, out) != n)
    goto fail;
  if (fflush(out) != 0 || ferror(out))
    goto fail;
  return 0;
fail:
  return cs_err_set(err, "%s report: write failed: %s", format, errno ? strerror(errno) : "I/O error");
}
