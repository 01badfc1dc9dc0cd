/* The web app's templates and static files, compiled into the program
 * (scripts/embed_assets.py turns src/web/templates/ and src/web/static/ into
 * a C file at build time), so the binary needs no files beside it. */
#ifndef LOADLINE_WEB_ASSETS_H
#define LOADLINE_WEB_ASSETS_H

#include <stdbool.h>
#include <stddef.h>

struct web_asset {
	const char *name;          /* file name: "layout.html", "app.css" */
	bool is_static;            /* served under /static/; templates are not */
	const char *content_type;
	const char *etag;          /* quoted, strong */
	const char *data;          /* NUL-terminated */
	size_t len;
};

extern const struct web_asset web_assets[];
extern const size_t web_assets_count;

/* The asset named name, or NULL. */
const struct web_asset *web_asset_find(const char *name, bool is_static);

#endif
