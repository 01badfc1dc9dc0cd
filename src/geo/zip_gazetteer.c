/* The offline US ZIP gazetteer (zip_gazetteer.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zip_gazetteer.h"

#define MAGIC "LLZIPGZ1"
#define HEADER_SIZE 16
#define RECORD_SIZE 20

struct zip_gazetteer {
	struct geocoder g;   /* first: the interface */
	const unsigned char *map;
	size_t map_len;
	uint32_t count, strings_len;
	const unsigned char *records;
	const char *strings;
};

static uint32_t u32_at(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The record of zip (a number), or NULL. */
static const unsigned char *find(const struct zip_gazetteer *z, uint32_t zip)
{
	size_t lo = 0, hi = z->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const unsigned char *r = z->records + mid * RECORD_SIZE;
		uint32_t k = u32_at(r);
		if (k == zip)
			return r;
		if (k < zip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The five leading digits of a normalized ZIP ("12345" or "12345-6789"). */
static int zip5(const char *zip, uint32_t *ret)
{
	uint32_t v = 0;
	for (int i = 0; i < 5; i++) {
		if (zip[i] < '0' || zip[i] > '9')
			return -1;
		v = v * 10 + (uint32_t)(zip[i] - '0');
	}
	if (zip[5] && zip[5] != '-')
		return -1;
	*ret = v;
	return 0;
}

static void lookup(const struct geocoder *g, const struct geo_query *q, struct geo_result *ret)
{
	const struct zip_gazetteer *z = (const struct zip_gazetteer *)g;
	memset(ret, 0, sizeof(*ret));
	uint32_t zip;
	if (!q->zip || !*q->zip) {
		ret->status = GEO_NO_ZIP;
		return;
	}
	const unsigned char *r = zip5(q->zip, &zip) ? NULL : find(z, zip);
	if (!r) {
		ret->status = GEO_UNKNOWN_ZIP;
		return;
	}
	memcpy(ret->found_state, r + 16, 2);
	ret->found_city = z->strings + u32_at(r + 12);
	if (q->state && strncmp(q->state, ret->found_state, 2)) {
		ret->status = GEO_STATE_MISMATCH;
		return;
	}
	ret->status = GEO_FOUND;
	ret->precision = GEO_PRECISION_ZIP;
	ret->lat = (int32_t)u32_at(r + 4) / 1e5;
	ret->lon = (int32_t)u32_at(r + 8) / 1e5;
}

static void zclose(struct geocoder *g)
{
	struct zip_gazetteer *z = (struct zip_gazetteer *)g;
	munmap((void *)z->map, z->map_len);
	free(z);
}

/* Checks the layout so that no look-up can read outside the map: sizes add
 * up, records are strictly sorted, and every name offset is inside the
 * NUL-terminated string table. */
static const char *validate(struct zip_gazetteer *z)
{
	if (z->map_len < HEADER_SIZE || memcmp(z->map, MAGIC, 8))
		return "not a Loadline ZIP gazetteer (bad magic)";
	z->count = u32_at(z->map + 8);
	z->strings_len = u32_at(z->map + 12);
	if ((uint64_t)HEADER_SIZE + (uint64_t)z->count * RECORD_SIZE + z->strings_len != z->map_len)
		return "truncated or padded (sizes do not add up)";
	if (z->count == 0 || z->strings_len == 0)
		return "empty";
	z->records = z->map + HEADER_SIZE;
	z->strings = (const char *)z->records + (size_t)z->count * RECORD_SIZE;
	if (z->strings[z->strings_len - 1] != '\0')
		return "string table not terminated";
	for (uint32_t i = 0; i < z->count; i++) {
		const unsigned char *r = z->records + (size_t)i * RECORD_SIZE;
		if (i > 0 && u32_at(r) <= u32_at(r - RECORD_SIZE))
			return "records not sorted";
		if (u32_at(r + 12) >= z->strings_len)
			return "place name outside the string table";
	}
	return NULL;
}

struct geocoder *zip_gazetteer_open(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open the ZIP gazetteer %s: %s", path, strerror(errno));
		return NULL;
	}
	struct stat sb;
	void *map = MAP_FAILED;
	if (fstat(fd, &sb) == 0 && sb.st_size > 0)
		map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	int saved = errno;
	close(fd);
	if (map == MAP_FAILED) {
		snprintf(err, errlen, "cannot read the ZIP gazetteer %s: %s", path, sb.st_size ? strerror(saved) : "empty");
		return NULL;
	}
	struct zip_gazetteer *z = calloc(1, sizeof(*z));
	if (!z) {
		munmap(map, (size_t)sb.st_size);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	z->map = map;
	z->map_len = (size_t)sb.st_size;
	const char *why = validate(z);
	if (why) {
		snprintf(err, errlen, "the ZIP gazetteer %s is unusable: %s; rebuild it (scripts/gazetteer-build)", path, why);
		zclose(&z->g);
		return NULL;
	}
	z->g = (struct geocoder){.name = ZIP_GAZETTEER_SOURCE, .lookup = lookup, .close = zclose};
	return &z->g;
}

size_t zip_gazetteer_count(const struct geocoder *g)
{
	return ((const struct zip_gazetteer *)g)->count;
}
