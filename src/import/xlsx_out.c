/* A workbook in memory (xlsx_out.h). */
#include "xlsx_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/buf.h"

static int read_back(const char *path, size_t max, unsigned char **ret, size_t *ret_len)
{
	FILE *in = fopen(path, "rb");
	if (!in)
		return -1;
	struct buf b;
	buf_init(&b, max);
	char chunk[65536];
	size_t n;
	int bad = 0;
	while ((n = fread(chunk, 1, sizeof chunk, in)) > 0)
		bad |= buf_append(&b, chunk, n);
	bad |= ferror(in);
	fclose(in);
	if (bad) {
		buf_done(&b);
		return -1;
	}
	*ret = (unsigned char *)buf_steal(&b, ret_len);
	return 0;
}

enum code xlsx_to_memory(int (*fill)(lxw_workbook *wb, void *ctx), void *ctx, size_t max, unsigned char **ret,
			 size_t *ret_len)
{
	const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[4096];
	snprintf(path, sizeof path, "%s/loadline-xlsx-XXXXXX", dir);
	int fd = mkstemp(path);
	if (fd < 0)
		return CODE_INTERNAL_ERROR;
	close(fd);
	lxw_workbook_options opt = {.constant_memory = LXW_TRUE, .tmpdir = (char *)dir};
	lxw_workbook *wb = workbook_new_opt(path, &opt);
	int bad = !wb || fill(wb, ctx);
	if (wb)
		bad |= workbook_close(wb) != LXW_NO_ERROR;
	bad = bad || read_back(path, max, ret, ret_len);
	unlink(path);
	return bad ? CODE_INTERNAL_ERROR : CODE_OK;
}
