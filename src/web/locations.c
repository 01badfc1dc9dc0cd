/* Locations: search the organization's saved locations by name or address,
 * as GET /api/v1/locations?q= does. */
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "model/names.h"
#include "model/normalize.h"
#include "store/records.h"
#include "web/page.h"

#define LOCATIONS_PER_PAGE 50
#define QUERY_MAX 200

static const struct html *row(struct arena *a, const struct location_rec *l)
{
	const char *coords = l->geo.has_coords ? arena_printf(a, "%.4f, %.4f", l->geo.lat_e6 / 1e6, l->geo.lon_e6 / 1e6)
						: NULL;
	struct tmpl_var v[] = {T_TEXT("name", l->name), T_TEXT("street", l->street), T_TEXT("city", l->city),
			       T_TEXT("state", l->state), T_TEXT("zip", l->zip), T_TEXT("coords", coords)};
	return tmpl_render(a, "location_row.html", v, sizeof v / sizeof v[0]);
}

static void locations(struct web_req *w)
{
	const char *q = web_query(w, "q");
	if (!q || strlen(q) > QUERY_MAX)
		q = "";
	int64_t after_created;
	const char *after_id;
	web_after(w, &after_created, &after_id);
	size_t tl;
	const char *t = norm_trim(q, strlen(q), &tl);
	char *text = arena_strndup(w->a, t, tl);
	char *key = name_key(w->a, q, strlen(q));
	struct location_rec *locs = arena_alloc(w->a, sizeof(*locs) * (LOCATIONS_PER_PAGE + 1));
	int n = 0;
	if (store_locations_search(w->app->store, w->a, w->session->org.id, key ? key : "", text, after_created, after_id,
				   LOCATIONS_PER_PAGE + 1, locs, &n)) {
		web_unavailable(w);
		return;
	}
	struct html_list *rows = html_list_new(w->a);
	for (int i = 0; i < n && i < LOCATIONS_PER_PAGE; i++)
		html_list_add(rows, row(w->a, &locs[i]));
	const char *more = NULL;
	if (n > LOCATIONS_PER_PAGE) {
		const struct location_rec *last = &locs[LOCATIONS_PER_PAGE - 1];
		more = arena_printf(w->a, "%lld_%s", (long long)last->created_at, last->id);
	}
	int shown = n < LOCATIONS_PER_PAGE ? n : LOCATIONS_PER_PAGE;
	const char *summary = *text ? arena_printf(w->a, "%d location%s “%s”%s.", shown,
						   shown == 1 ? " matches" : "s match", text, more ? " so far" : "")
				    : arena_printf(w->a, "%d location%s%s.", shown, shown == 1 ? "" : "s",
						   more ? " on this page" : "");
	struct tmpl_var v[] = {
		T_TEXT("org_name", w->session->org.name),
		T_TEXT("q", q),
		T_TEXT("q_url", web_url_encode(w->a, q)),
		T_TEXT("summary", summary),
		T_FLAG("empty", n == 0),
		T_HTML("rows", html_list_done(rows)),
		T_TEXT("more", more),
	};
	struct web_page_opts o = {.nav = NAV_LOCATIONS};
	web_page(w, 200, "Locations", tmpl_render(w->a, "locations.html", v, sizeof v / sizeof v[0]), &o);
}

const struct web_handler page_locations = {locations};
