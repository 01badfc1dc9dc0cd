/* Time helpers. */
#include "clock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

double mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

void time_iso(int64_t ms, char out[TIME_ISO_MAX])
{
	time_t secs = (time_t)(ms / 1000);
	int millis = (int)(ms % 1000);
	if (millis < 0) {
		millis += 1000;
		secs -= 1;
	}
	struct tm tm;
	gmtime_r(&secs, &tm);
	/* Years outside 0..9999 cannot occur from our clocks; clamp anyway so the
	 * output always has the fixed ISO width. */
	int year = tm.tm_year + 1900;
	if (year < 0 || year > 9999)
		year = year < 0 ? 0 : 9999;
	snprintf(out, TIME_ISO_MAX, "%04u-%02u-%02uT%02u:%02u:%02u.%03uZ",
		 (unsigned)year % 10000u, (unsigned)(tm.tm_mon + 1) % 100u, (unsigned)tm.tm_mday % 100u,
		 (unsigned)tm.tm_hour % 100u, (unsigned)tm.tm_min % 100u, (unsigned)tm.tm_sec % 100u,
		 (unsigned)millis % 1000u);
}

int duration_parse(const char *s, int64_t *ret_ms)
{
	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (errno || v < 0)
		return -1;
	long long mult = 1000;
	if (end[0] == 'm' && end[1] == 's')
		mult = 1, end += 2;
	else if (*end == 's')
		end++;
	else if (*end == 'm')
		mult = 60 * 1000, end++;
	else if (*end == 'h')
		mult = 3600 * 1000, end++;
	else if (*end == 'd')
		mult = 24LL * 3600 * 1000, end++;
	if (*end != '\0' || v > INT64_MAX / mult)
		return -1;
	*ret_ms = (int64_t)(v * mult);
	return 0;
}
