/* Percent-encoding. */
#include "url.h"

#include <stdbool.h>
#include <string.h>

static bool unreserved(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
	       c == '_' || c == '~';
}

char *url_encode(struct arena *a, const char *s, const char *keep)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = arena_alloc(a, strlen(s) * 3 + 1), *o = out;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (unreserved(*p) || (keep && strchr(keep, *p))) {
			*o++ = (char)*p;
		} else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	*o = '\0';
	return out;
}

char *content_disposition(struct arena *a, const char *file_name)
{
	char *ascii = arena_strdup(a, file_name);
	for (char *p = ascii; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f || *p == '"' || *p == '\\' || *p == '/')
			*p = '_';
	return arena_printf(a, "attachment; filename=\"%s\"; filename*=UTF-8''%s", ascii,
			    url_encode(a, file_name, "-._~"));
}
