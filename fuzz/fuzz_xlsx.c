/* libFuzzer target: the XLSX reader.  The first byte picks what the rest
 * is: the whole file (any byte that is 0 mod 5, as 'P' of "PK" is, so real
 * .xlsx files are seeds as they are), or one XML part placed in an
 * otherwise valid package, so that mutations reach the XML handling instead
 * of dying on zip checksums.  Every input is read to its end (libxml2
 * reads every XML part), the reader's invariants asserted on the way, and
 * read again with the shared strings spilled to disk: the same. */
#include <assert.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/sheet.h"
#include "sheet/sheet_int.h"
#include "sheet/xlsx_int.h"
#include "base/buf.h"
#include "xlsxgen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const parts[] = {
	NULL, "xl/worksheets/sheet1.xml", "xl/sharedStrings.xml", "xl/styles.xml", "xl/workbook.xml",
};

/* Reads the file, writing what it read (codes, messages, row numbers,
 * cells) to log. */
static void read_log(const void *file, size_t len, const char *spool_dir, struct buf *log)
{
	struct sheet_limits lim;
	sheet_limits_default(&lim);
	lim.spool_dir = spool_dir;
	lim.sst_spill_bytes = 4096;
	lim.max_rows = 64;
	lim.max_uncompressed = 4u * 1024 * 1024;  /* keeps each run fast */
	struct sheet *s = NULL;
	const char *msg = NULL;
	enum code rc = sheet_open(file, len, &lim, &s, &msg);
	if (rc) {
		assert(!s && msg && msg[0]);
		buf_printf(log, "open %d %s\n", (int)rc, msg);
		return;
	}
	const struct sheet_row *row = sheet_header(s);
	unsigned last = row->number;
	for (;;) {
		buf_printf(log, "row %u %zu\n", row->number, row->ncells);
		for (size_t i = 0; i < row->ncells; i++) {
			assert(strlen(row->cells[i]) == row->lens[i]);
			assert(utf8_valid_prefix(row->cells[i], row->lens[i]) == row->lens[i]);
			buf_append(log, row->cells[i], row->lens[i] + 1);
		}
		rc = sheet_next_row(s, &row);
		if (rc || !row)
			break;
		assert(row->number > last);
		last = row->number;
		assert(row->ncells <= SHEET_MAX_COLUMNS);
	}
	buf_printf(log, "end %d %s\n", (int)rc, sheet_message(s));
	sheet_free(s);
}

/* Read twice: the shared strings held in memory, and spilled to a spool
 * file every 4 KiB (the caps are the same at these limits); both reads
 * must give the same log. */
static void read_all(const void *file, size_t len)
{
	struct buf a, b;
	buf_init(&a, 64u << 20);
	buf_init(&b, 64u << 20);
	read_log(file, len, NULL, &a);
	read_log(file, len, "/tmp", &b);
	assert(a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0));
	buf_done(&a);
	buf_done(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *part = parts[data[0] % 5];
	if (!part) {
		read_all(data, size);
		return 0;
	}
	struct xg_part over = {part, data + 1, size - 1};
	void *file;
	size_t len;
	if (xlsxgen_workbook(&over, 1, 0, &file, &len))
		return 0;
	read_all(file, len);
	free(file);
	return 0;
}
