/* The offline US ZIP gazetteer: ZIP -> centroid, primary place, state, from
 * the file scripts/gazetteer-build writes (layout there).  The file is
 * mapped read-only once; a look-up is a binary search over its sorted
 * records, with no allocation. */
#ifndef LOADLINE_GEO_ZIP_GAZETTEER_H
#define LOADLINE_GEO_ZIP_GAZETTEER_H

#include "geocoder.h"

#define ZIP_GAZETTEER_SOURCE "us-zip-gazetteer"

/* NULL with a message in err when the file is missing or not a gazetteer. */
struct geocoder *zip_gazetteer_open(const char *path, char *err, size_t errlen);
/* How many ZIP codes it holds (for logs and tests). */
size_t zip_gazetteer_count(const struct geocoder *g);

#endif
