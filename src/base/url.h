/* Percent-encoding (RFC 3986) for the URLs the service builds: query
 * values, form fields, redirect targets. */
#ifndef LOADLINE_BASE_URL_H
#define LOADLINE_BASE_URL_H

#include "base/arena.h"

/* s with every byte but the RFC 3986 unreserved characters (ALPHA, DIGIT,
 * "-", ".", "_", "~") and those in keep (may be NULL or "", e.g. "/" for a
 * path) written as %XX (upper-case hex).  Arena-owned. */
char *url_encode(struct arena *a, const char *s, const char *keep);
/* A Content-Disposition value that downloads as file_name: an ASCII
 * fallback (other bytes, quotes and controls as '_') plus the exact UTF-8
 * name in filename* (RFC 6266). */
char *content_disposition(struct arena *a, const char *file_name);

#endif
