/* Geocoding: an address to coordinates, behind one small interface so that
 * an online geocoder can be added later without touching the pipeline.
 * The default is the offline US ZIP gazetteer (zip_gazetteer.c). */
#ifndef LOADLINE_GEO_GEOCODER_H
#define LOADLINE_GEO_GEOCODER_H

#include <stddef.h>
#include <stdint.h>

enum geo_precision { GEO_PRECISION_NONE, GEO_PRECISION_ZIP, GEO_PRECISION_STREET };

/* Normalized parts (model/normalize.h): state a USPS code, zip "12345" or
 * "12345-6789"; NULL when the row has none. */
struct geo_query {
	const char *street, *city, *state, *zip;
};

enum geo_status {
	GEO_FOUND,            /* lat/lon set */
	GEO_NO_ZIP,           /* the address has no ZIP */
	GEO_UNKNOWN_ZIP,      /* the ZIP is not a US ZIP code */
	GEO_STATE_MISMATCH,   /* the ZIP belongs to another state (found_state) */
};

struct geo_result {
	enum geo_status status;
	enum geo_precision precision;   /* GEO_PRECISION_NONE unless found */
	double lat, lon;
	char found_state[3];            /* the ZIP's state, when the ZIP is known */
	const char *found_city;         /* the ZIP's primary place (the geocoder's memory) */
};

struct geocoder {
	const char *name;   /* geocode.source of what it finds */
	/* Thread-safe; never fails for a reason other than the address. */
	void (*lookup)(const struct geocoder *g, const struct geo_query *q, struct geo_result *ret);
	void (*close)(struct geocoder *g);
};

/* The default geocoder from the gazetteer at path (NULL: LOADLINE_GAZETTEER's
 * default, see geo_default_path).  NULL with a message in err on failure. */
struct geocoder *geo_open_default(const char *path, char *err, size_t errlen);
void geo_close(struct geocoder *g);   /* NULL is fine */

/* Where the gazetteer is looked for when not configured: next to the
 * running program or one directory up (a build tree), else the installed
 * data directory. */
const char *geo_default_path(char *buf, size_t len);

/* "zip", "street" or "none": geocode.precision on the wire. */
const char *geo_precision_name(enum geo_precision p);

/* Degrees as the integer millionths the store keeps, rounded half away
 * from zero. */
int64_t geo_e6(double degrees);

/* Great-circle distance in statute miles (haversine, mean Earth radius). */
double geo_distance_miles(double lat1, double lon1, double lat2, double lon2);

#endif
