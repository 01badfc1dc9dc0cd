/* Wall-clock time in milliseconds and its ISO 8601 form. */
#ifndef LOADLINE_BASE_CLOCK_H
#define LOADLINE_BASE_CLOCK_H

#include <stdint.h>

#define TIME_ISO_MAX 32

/* Milliseconds since the Unix epoch (UTC). */
int64_t now_ms(void);
/* Monotonic milliseconds, for durations. */
double mono_ms(void);
/* "2026-11-21T15:04:05.123Z" into out[TIME_ISO_MAX]. */
void time_iso(int64_t ms, char out[TIME_ISO_MAX]);
/* Parses "N", "Nms", "Ns", "Nm", "Nh", "Nd" (seconds by default) into milliseconds;
 * returns 0, or -1 for anything else (negative, overflow, junk). */
int duration_parse(const char *s, int64_t *ret_ms);

#endif
