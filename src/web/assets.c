/* Look-up of the compiled-in templates and static files. */
#include "assets.h"

#include <string.h>

const struct web_asset *web_asset_find(const char *name, bool is_static)
{
	for (size_t i = 0; i < web_assets_count; i++)
		if (web_assets[i].is_static == is_static && !strcmp(web_assets[i].name, name))
			return &web_assets[i];
	return NULL;
}
