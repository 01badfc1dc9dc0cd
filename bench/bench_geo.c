/* The ZIP gazetteer's cost (docs/benchmarks.md): start-up (map + validate
 * the file), resident memory it adds, and look-ups per second over every
 * ZIP of the file plus as many unknown ones, against a floor of the same
 * binary searches over a plain in-memory array of the ZIPs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "geo/geocoder.h"
#include "geo/zip_gazetteer.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "VmRSS:", 6))
			v = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

int main(void)
{
	char err[512];
	long rss0 = rss_kib();
	double t0 = now_s();
	struct geocoder *g = geo_open_default(NULL, err, sizeof err);
	double t_open = now_s() - t0;
	if (!g) {
		fprintf(stderr, "bench_geo: %s\n", err);
		return 1;
	}
	long rss1 = rss_kib();
	size_t n = zip_gazetteer_count(g);
	/* Queries: every ZIP 00000..99999 (about 41 % known), several rounds. */
	const int rounds = 20;
	char zips[100000][6];
	for (int z = 0; z < 100000; z++)
		snprintf(zips[z], sizeof zips[z], "%05d", z);
	uint32_t *known = malloc(sizeof(uint32_t) * n);
	size_t nk = 0;
	long found = 0;
	double t1 = now_s();
	for (int r = 0; r < rounds; r++)
		for (int z = 0; z < 100000; z++) {
			struct geo_query q = {.zip = zips[z]};
			struct geo_result res;
			g->lookup(g, &q, &res);
			if (res.status == GEO_FOUND) {
				found++;
				if (r == 0)
					known[nk++] = (uint32_t)z;
			}
		}
	double t_lookup = now_s() - t1;
	qsort(known, nk, sizeof *known, cmp_u32);
	long ffound = 0;
	double t2 = now_s();
	for (int r = 0; r < rounds; r++)
		for (int z = 0; z < 100000; z++) {
			uint32_t key = (uint32_t)strtoul(zips[z], NULL, 10);
			ffound += bsearch(&key, known, nk, sizeof *known, cmp_u32) != NULL;
		}
	double t_floor = now_s() - t2;
	double per = t_lookup / (rounds * 100000.0) * 1e9, fper = t_floor / (rounds * 100000.0) * 1e9;
	printf("gazetteer: %zu ZIP codes; open %.2f ms CPU; +%ld KiB resident after open\n", n, t_open * 1e3,
	       rss1 - rss0);
	printf("look-up: %.0f ns each (%ld found of %d); floor (bsearch over a plain array): %.0f ns; ratio %.2fx\n",
	       per, found / rounds, 100000, fper, per / fper);
	free(known);
	geo_close(g);
	return found / rounds == ffound / rounds ? 0 : 1;
}
