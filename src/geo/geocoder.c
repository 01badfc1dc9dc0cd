/* The geocoder interface's shared parts (geocoder.h). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "geocoder.h"
#include "zip_gazetteer.h"

#define GAZETTEER_FILE "zip-gazetteer.bin"

const char *geo_default_path(char *buf, size_t len)
{
	if (!buf || len == 0)
		return "";
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			/* The program's directory, or its parent: a build tree keeps
			 * the file at its top, next to loadline, above bench/ and tests/. */
			snprintf(buf, len, "%s/%s", exe, GAZETTEER_FILE);
			if (access(buf, R_OK) == 0)
				return buf;
			snprintf(buf, len, "%s/../%s", exe, GAZETTEER_FILE);
			if (access(buf, R_OK) == 0)
				return buf;
		}
	}
	snprintf(buf, len, "%s/%s", LOADLINE_DATADIR, GAZETTEER_FILE);
	return buf;
}

struct geocoder *geo_open_default(const char *path, char *err, size_t errlen)
{
	char buf[PATH_MAX + 32];
	return zip_gazetteer_open(path && *path ? path : geo_default_path(buf, sizeof buf), err, errlen);
}

void geo_close(struct geocoder *g)
{
	if (g)
		g->close(g);
}

const char *geo_precision_name(enum geo_precision p)
{
	return p == GEO_PRECISION_ZIP ? "zip" : p == GEO_PRECISION_STREET ? "street" : "none";
}

double geo_distance_miles(double lat1, double lon1, double lat2, double lon2)
{
	const double r = 3958.7613;   /* mean Earth radius, statute miles */
	const double rad = M_PI / 180.0;
	double dlat = (lat2 - lat1) * rad, dlon = (lon2 - lon1) * rad;
	double a = sin(dlat / 2) * sin(dlat / 2) + cos(lat1 * rad) * cos(lat2 * rad) * sin(dlon / 2) * sin(dlon / 2);
	return 2 * r * asin(fmin(1.0, sqrt(a)));
}

int64_t geo_e6(double degrees)
{
	return (int64_t)(degrees * 1e6 + (degrees < 0 ? -0.5 : 0.5));
}
