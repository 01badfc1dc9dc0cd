/* libFuzzer target: the column proposal from headers, sample values and
 * learned headers (import/propose.h), on untrusted bytes.  The input is
 * rows split on '\n' and cells on '\t' (any bytes else, NUL included); the
 * first row is the header, the next ones the samples, and the first byte
 * chooses which headers count as learned and as what.  Checks the
 * invariants: one column per field at most, confidence 0..100, a known
 * reason, values text never NULL. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import/propose.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXC 64
#define MAXR (PROPOSE_SAMPLE_ROWS + 1)

static size_t split_row(const char *s, size_t len, const char **cells, size_t *lens)
{
	size_t n = 0, start = 0;
	for (size_t i = 0; i <= len && n < MAXC; i++)
		if (i == len || s[i] == '\t') {
			cells[n] = s + start;
			lens[n++] = i - start;
			start = i + 1;
		}
	return n;
}

static void check(const struct proposal *p, size_t n)
{
	bool used[FIELD__COUNT] = { false };
	for (size_t i = 0; i < n; i++) {
		assert(p[i].field <= FIELD_NONE);
		assert(p[i].confidence >= 0 && p[i].confidence <= 100);
		assert(p[i].reason < REASON__COUNT);
		assert(p[i].values != NULL);
		if (p[i].field == FIELD_NONE)
			continue;
		assert(!used[p[i].field]);
		used[p[i].field] = true;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *cells[MAXR][MAXC];
	static size_t lens[MAXR][MAXC];
	static struct sheet_row rows[MAXR];
	const struct sheet_row *rp[MAXR];
	struct proposal p[MAXC];
	struct propose_learned learned[MAXC];
	const char *s = (const char *)data;
	size_t nrows = 0, start = 0;
	for (size_t i = 0; i <= size && nrows < MAXR; i++)
		if (i == size || s[i] == '\n') {
			size_t nc = split_row(s + start, i - start, cells[nrows], lens[nrows]);
			rows[nrows] = (struct sheet_row){ .number = (unsigned)nrows + 1, .ncells = nc,
							  .cells = cells[nrows], .lens = lens[nrows] };
			rp[nrows] = &rows[nrows];
			nrows++;
			start = i + 1;
		}
	size_t ncols = rows[0].ncells;
	struct arena *a = arena_new();
	size_t nl = 0;
	uint8_t pick = size ? data[0] : 0;
	for (size_t j = 0; j < ncols; j++)
		if ((pick >> (j % 8)) & 1)
			learned[nl++] = (struct propose_learned){ propose_header_key(a, cells[0][j], lens[0][j]),
								  (enum field)((pick + j) % (FIELD__COUNT + 1)) };
	struct propose_input in = { rp + 1, nrows - 1, learned, nl };
	propose_mapping_with(cells[0], lens[0], ncols, &in, p);
	check(p, ncols);
	propose_mapping(cells[0], lens[0], ncols, p);
	check(p, ncols);
	arena_free(a);
	return 0;
}
