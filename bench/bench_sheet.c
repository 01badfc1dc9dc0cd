/* Reader benchmark: a 5 MB CSV and the largest XLSX the limits allow, each
 * read through the sheet API and compared with a floor measured in the same
 * run on the same bytes (libcsv's raw callbacks for CSV; inflating the parts
 * and a bare xmlTextReader scan for XLSX).  Results: docs/benchmarks.md. */
#include <csv.h>
#include <libxml/xmlreader.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <zip.h>

#include "base/buf.h"
#include "sheet/sheet.h"
#include "xlsxgen.h"

#define RUNS 7

/* CPU time of this thread, not wall time: the machine is shared (builds,
 * fuzzers), and a reader and its floor must be compared on equal terms. */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Deterministic text so that every run measures the same bytes. */
static uint32_t rng = 2463534242u;
static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static const char *const words[] = {
	"gravel", "sand", "asphalt", "north", "yard", "pit", "crushed", "stone", "load",
	"deliver", "before", "noon", "gate", "code", "call", "dispatch", "site", "ramp",
};

/* n words from the first `vocab` of the list: fewer words, denser zip. */
static void put_words(struct buf *b, size_t n, size_t vocab)
{
	for (size_t i = 0; i < n; i++)
		buf_printf(b, "%s%s", i ? " " : "", words[next_rand() % vocab]);
}

#define ALL_WORDS (sizeof(words) / sizeof(words[0]))

static void put_random(struct buf *b, size_t n)
{
	static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	for (size_t i = 0; i < n; i++)
		buf_putc(b, alnum[next_rand() % (sizeof(alnum) - 1)]);
}

/* A jobs file as customers send it: ~150-byte rows, some quoted fields. */
static void make_csv(struct buf *b, size_t size)
{
	buf_puts(b, "Job Code,Load #,Load Date,Customer,Material,Weight,Unit,Rate,Pickup Street,"
		    "Pickup City,Pickup State,Pickup Zip,Notes\r\n");
	for (unsigned i = 0; b->len < size; i++) {
		buf_printf(b, "J-%u,%05u,2024-%02u-%02u,\"Acme, Inc.\",", i / 40, i, i % 12 + 1, i % 28 + 1);
		put_words(b, 2, ALL_WORDS);
		buf_printf(b, ",%u.%u,t,\"$1,%03u.50\",%u Main St,Springfield,IL,%05u,\"", i % 40, i % 10,
			   i % 1000, i % 9000 + 100, 62701 + i % 50);
		put_words(b, 4, ALL_WORDS);
		buf_puts(b, "\"\"ok\"\"\"\r\n");
	}
}

static size_t fields;
static void count_field(void *s, size_t n, void *d)
{
	(void)s;
	(void)n;
	(void)d;
	fields++;
}
static void count_row(int c, void *d)
{
	(void)c;
	(void)d;
}

static double floor_csv(const struct buf *b)
{
	struct csv_parser p;
	csv_init(&p, CSV_APPEND_NULL);
	double t = now();
	csv_parse(&p, b->data, b->len, count_field, count_row, NULL);
	csv_fini(&p, count_field, count_row, NULL);
	t = now() - t;
	csv_free(&p);
	return t;
}

/* Opens the sheet and reads up to `want` data rows (0: the header row
 * only, which sheet_open reads); returns seconds, or -1 when the reader
 * failed. */
static double read_rows(const void *data, size_t len, size_t want, size_t *ret_rows)
{
	struct sheet_limits lim;
	sheet_limits_default(&lim);
	lim.max_rows = SIZE_MAX;  /* throughput, not the product limit */
	double t = now();
	struct sheet *s;
	const char *msg;
	enum code rc = sheet_open(data, len, &lim, &s, &msg);
	if (rc) {
		fprintf(stderr, "bench: %s: %s\n", code_name(rc), msg);
		return -1;
	}
	size_t rows = 0;
	const struct sheet_row *row;
	while (rows < want && !(rc = sheet_next_row(s, &row)) && row)
		rows++;
	t = now() - t;
	if (rc)
		fprintf(stderr, "bench: %s: %s\n", code_name(rc), sheet_message(s));
	sheet_free(s);
	*ret_rows = rows;
	return rc ? -1 : t;
}

/* Reads every row. */
static double read_sheet(const void *data, size_t len, size_t *ret_rows)
{
	return read_rows(data, len, SIZE_MAX, ret_rows);
}

static int part_read(void *ctx, char *out, int len)
{
	return (int)zip_fread(ctx, out, (zip_uint64_t)len);
}

/* The floor: inflate the parts the reader needs and walk their nodes. */
static double floor_xlsx(const void *data, size_t len)
{
	static const char *const parts[] = {"xl/sharedStrings.xml", "xl/styles.xml", "xl/workbook.xml",
					    "xl/worksheets/sheet1.xml"};
	double t = now();
	zip_error_t err;
	zip_source_t *src = zip_source_buffer_create(data, len, 0, &err);
	zip_t *za = zip_open_from_source(src, ZIP_RDONLY, &err);
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		zip_file_t *zf = zip_fopen(za, parts[i], 0);
		if (!zf)
			continue;
		xmlTextReaderPtr xr = xmlReaderForIO(part_read, NULL, zf, parts[i], NULL, XML_PARSE_NONET);
		while (xmlTextReaderRead(xr) == 1)
			;
		xmlFreeTextReader(xr);
		zip_fclose(zf);
	}
	zip_discard(za);
	return now() - t;
}

struct result {
	const char *name;
	size_t bytes, expanded, rows;
	double reader, floor;
};

static void report(const struct result *r)
{
	double mb = (double)r->bytes / 1e6;
	printf("%-28s %7.2f MB file %7.2f MB expanded %7zu rows | reader %7.1f MB/s  floor %7.1f MB/s  ratio %.2fx\n",
	       r->name, mb, (double)r->expanded / 1e6, r->rows, mb / r->reader, mb / r->floor,
	       r->reader / r->floor);
}

static double best(double a, double b)
{
	return a < 0 || b < a ? b : a;
}

static void keep(const char *name, const void *data, size_t len);

static int bench_csv(void)
{
	struct buf b;
	buf_init(&b, 64u << 20);
	make_csv(&b, 5u * 1000 * 1000);
	keep("jobs_5mb.csv", b.data, b.len);
	struct result r = {"csv 5 MB", b.len, b.len, 0, -1, -1};
	for (int i = 0; i < RUNS; i++) {
		double t = read_sheet(b.data, b.len, &r.rows);
		if (t < 0)
			return 1;
		r.reader = best(r.reader, t);
		r.floor = best(r.floor, floor_csv(&b));
	}
	report(&r);
	buf_done(&b);
	return 0;
}

/* 751 rows x 100 columns of shared strings (random text, so the file
 * reaches the 5 MB upload limit), or of long inline strings of words (so
 * the parts expand to just under the 50 MB limit). */
/* Tuned so that each file stays under 5 MB, its parts under 50 MB and 100x. */
#define XLSX_RANDOM 94
#define XLSX_WORDS 125
#define XLSX_VOCAB 5

static int make_xlsx(int wide_text, void **ret, size_t *ret_len, size_t *ret_expanded)
{
	struct buf sheet, sst;
	buf_init(&sheet, 64u << 20);
	buf_init(&sst, 64u << 20);
	buf_puts(&sheet, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<worksheet xmlns=\""
		       "http://schemas.openxmlformats.org/spreadsheetml/2006/main\"><sheetData>");
	buf_puts(&sst, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sst xmlns=\""
		     "http://schemas.openxmlformats.org/spreadsheetml/2006/main\">");
	unsigned n = 0;
	for (unsigned r = 1; r <= 751; r++) {
		buf_printf(&sheet, "<row r=\"%u\">", r);
		for (unsigned c = 0; c < 100; c++) {
			char ref[8];
			snprintf(ref, sizeof(ref), "%c%c%u", c < 26 ? ' ' : 'A' + c / 26 - 1, 'A' + c % 26, r);
			const char *cr = ref[0] == ' ' ? ref + 1 : ref;
			if (c % 10 == 2) {
				buf_printf(&sheet, "<c r=\"%s\" s=\"1\"><v>%u</v></c>", cr, 45000 + r);
			} else if (c % 10 == 5) {
				buf_printf(&sheet, "<c r=\"%s\"><v>%u.%u</v></c>", cr, r * c, r % 7);
			} else if (wide_text) {
				buf_printf(&sheet, "<c r=\"%s\" t=\"inlineStr\"><is><t>", cr);
				put_words(&sheet, XLSX_WORDS, XLSX_VOCAB);
				buf_puts(&sheet, "</t></is></c>");
			} else {
				buf_puts(&sst, "<si><t>");
				put_random(&sst, XLSX_RANDOM);
				buf_puts(&sst, "</t></si>");
				buf_printf(&sheet, "<c r=\"%s\" t=\"s\"><v>%u</v></c>", cr, n++);
			}
		}
		buf_puts(&sheet, "</row>");
	}
	buf_puts(&sheet, "</sheetData></worksheet>");
	buf_puts(&sst, "</sst>");
	struct xg_part over[] = {
		{"xl/worksheets/sheet1.xml", sheet.data, sheet.len},
		{"xl/sharedStrings.xml", sst.data, sst.len},
	};
	int rc = xlsxgen_workbook(over, 2, 1, ret, ret_len);
	*ret_expanded = sheet.len + sst.len;
	buf_done(&sheet);
	buf_done(&sst);
	return rc;
}

static const char *write_dir;  /* --write DIR: keep the generated inputs */

static void keep(const char *name, const void *data, size_t len)
{
	if (!write_dir)
		return;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", write_dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len)
		perror(path);
	if (f)
		fclose(f);
}

/* Open + header only. */
static double open_header(const void *data, size_t len)
{
	size_t rows;
	return read_rows(data, len, 0, &rows);
}

static int bench_xlsx(int wide_text)
{
	void *data;
	struct result r = {wide_text ? "xlsx, max expansion" : "xlsx, max file size", 0, 0, 0, -1, -1};
	if (make_xlsx(wide_text, &data, &r.bytes, &r.expanded))
		return 1;
	keep(wide_text ? "max_expansion.xlsx" : "max_file.xlsx", data, r.bytes);
	for (int i = 0; i < RUNS; i++) {
		double t = read_sheet(data, r.bytes, &r.rows);
		if (t < 0)
			return 1;
		r.reader = best(r.reader, t);
		r.floor = best(r.floor, floor_xlsx(data, r.bytes));
	}
	report(&r);
	/* What the upload path does first: open and read the header only
	 * (shared strings are parsed as far as the header needs). */
	double head = -1;
	for (int i = 0; i < RUNS; i++) {
		double t = open_header(data, r.bytes);
		if (t < 0)
			return 1;
		head = best(head, t);
	}
	printf("%-28s open + header: %.2f ms CPU\n", r.name, head * 1e3);
	free(data);
	return 0;
}

/* --rss FILE: reads FILE through the API, keeping no rows, and prints the
 * peak resident memory: the reader's footprint plus the file itself. */
static int peak_rss(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	struct buf b;
	buf_init(&b, 1u << 30);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_append(&b, chunk, n);
	fclose(f);
	size_t rows = 0;
	if (read_sheet(b.data, b.len, &rows) < 0)
		return 1;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("%s: %zu bytes, %zu data rows, peak RSS %ld KiB\n", path, b.len, rows, ru.ru_maxrss);
	buf_done(&b);
	return 0;
}

static int slurp(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	buf_init(b, 1u << 30);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_append(b, chunk, n);
	fclose(f);
	return 0;
}

/* --time FILE [N]: best of N whole reads and of N open + header, CPU ms
 * (for profiling: perf record -g bench_sheet --time FILE 1000). */
static int time_file(const char *path, int n)
{
	struct buf b;
	if (slurp(path, &b))
		return 1;
	double all = -1, head = -1;
	size_t rows = 0;
	if (n < 1)
		n = 1;
	for (int i = 0; i < n; i++) {
		double t = read_sheet(b.data, b.len, &rows);
		double h = open_header(b.data, b.len);
		if (t < 0 || h < 0)
			return 1;
		all = best(all, t);
		head = best(head, h);
	}
	printf("%s: %zu bytes, %zu rows: read %.3f ms, open + header %.3f ms (best of %d, thread CPU)\n", path,
	       b.len, rows, all * 1e3, head * 1e3, n);
	buf_done(&b);
	return 0;
}

int main(int argc, char **argv)
{
	xmlInitParser();
	if (argc == 3 && !strcmp(argv[1], "--rss"))
		return peak_rss(argv[2]);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "--time"))
		return time_file(argv[2], argc == 4 ? (int)strtol(argv[3], NULL, 10) : RUNS);
	if (argc == 3 && !strcmp(argv[1], "--write"))
		write_dir = argv[2];
	printf("best of %d runs, thread CPU time; MB = 10^6 bytes of the file as uploaded; ratio = reader time / floor time\n", RUNS);
	return bench_csv() || bench_xlsx(0) || bench_xlsx(1);
}
