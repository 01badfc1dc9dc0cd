/* Writing a workbook into memory with libxlsxwriter, which writes only to
 * files: a private temporary file, read back and removed. */
#ifndef LOADLINE_IMPORT_XLSX_OUT_H
#define LOADLINE_IMPORT_XLSX_OUT_H

#include <stddef.h>
#include <xlsxwriter.h>

#include "base/codes.h"

/* Makes a workbook, lets fill add its sheets (returning 0, or -1 to give
 * up), closes it and returns its bytes in *ret (malloc'd, at most max
 * bytes).  CODE_INTERNAL_ERROR when anything fails. */
enum code xlsx_to_memory(int (*fill)(lxw_workbook *wb, void *ctx), void *ctx, size_t max, unsigned char **ret,
			 size_t *ret_len);

#endif
