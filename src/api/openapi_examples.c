/* Examples for the OpenAPI document (PRODUCT §17: every operation has an
 * example).  Written once, after the document is built, from the schemas
 * themselves, so an example cannot disagree with its schema and a new
 * operation gets one without anyone remembering to write it.  Values are
 * what the service really sends (ids with their prefixes, timestamps in
 * its format); a schema's own `example` wins.  Problem bodies get the
 * envelope of their first code, with its real summary and docUrl. */
#include "openapi_examples.h"

#include <stdio.h>
#include <string.h>

#include "base/codes.h"

#define EX_DEPTH 12
#define EX_ID "7Hc2LmQ9pXs4TbV1wNk8Ez"   /* 22 base62 characters, as ids have */
#define EX_DOCS "https://loadline.example.com/docs"

static json_t *example_of(json_t *doc, json_t *schema, const char *name, int depth);

/* The target of "#/components/schemas/X". */
static json_t *deref(json_t *doc, const char *ref)
{
	static const char pre[] = "#/components/";
	if (strncmp(ref, pre, sizeof pre - 1))
		return NULL;
	char section[64], key[128];
	if (sscanf(ref + sizeof pre - 1, "%63[^/]/%127s", section, key) != 2)
		return NULL;
	return json_object_get(json_object_get(json_object_get(doc, "components"), section), key);
}

/* A value for a string pattern the schemas use: "^prefix_[0-9A-Za-z]{22}$"
 * ids, and the few others by their text. */
static json_t *pattern_value(const char *p)
{
	static const struct {
		const char *pattern, *value;
	} known[] = {
		{"^req_[0-9A-Za-z]+$", "req_" EX_ID},
		{"^/api/v1/imports/runs/run_", "/api/v1/imports/runs/run_" EX_ID},
		{"^[A-Z]+[0-9]+$", "C12"},
		{"^-?[0-9]+\\.[0-9]{2}$", "1250.00"},
		{"^[0-9]{5}(-[0-9]{4})?$", "97204"},
		{"^whsec_[A-Za-z0-9+/]{32,}={0,2}$", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"},
		{"^ll_live_", "ll_live_" EX_ID "4kT9wQ2mZx7pLs3Nc8"},
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (!strcmp(p, known[i].pattern))
			return json_string(known[i].value);
	char prefix[16];
	int n = 0;
	if (sscanf(p, "^%15[a-z]_[0-9A-Za-z]{22}$%n", prefix, &n) == 1 && n && !p[n]) {
		char v[64];
		snprintf(v, sizeof v, "%s_%s", prefix, EX_ID);
		return json_string(v);
	}
	return NULL;
}

/* A plausible string for a property by its name, when the schema says
 * nothing more. */
static const char *named_text(const char *name)
{
	static const struct {
		const char *name, *text;
	} names[] = {
		{"fileName", "loads.csv"}, {"name", "Cascade Civil Group"}, {"email", "dispatch@example.com"},
		{"message", "loadDate \"31/31/2026\" is not a date (there is no such day): use YYYY-MM-DD or M/D/YYYY, "
			    "month first."},
		{"title", "Not found"}, {"detail", "No run with this id in your organization."},
		{"instance", "/api/v1/imports/runs/run_" EX_ID}, {"nextPageUrl", "/api/v1/imports/runs?cursor=c2Vl"},
		{"jobCode", "J-1042"}, {"loadNo", "L-0007"}, {"material", "3/4 in. crushed rock"},
		{"truckType", "End Dump"}, {"ticketNo", "T-88120"}, {"notes", "Gate code 4412"},
		{"url", "https://hooks.example.com/loadline"}, {"column", "Load Date"}, {"value", "31/31/2026"},
		{"city", "Portland"}, {"street", "1200 NW Front Ave"}, {"state", "OR"}, {"prefix", "ll_live_7Hc2"},
		{"encoding", "utf-8"}, {"delimiter", ","}, {"reason", "unchanged"}, {"secret",
		"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"},
	};
	for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(name, names[i].name))
			return names[i].text;
	return "text";
}

static json_t *string_value(json_t *s, const char *name)
{
	const char *fmt = json_string_value(json_object_get(s, "format"));
	const char *pat = json_string_value(json_object_get(s, "pattern"));
	json_t *v = pat ? pattern_value(pat) : NULL;
	if (v)
		return v;
	if (fmt && !strcmp(fmt, "date-time"))
		return json_string("2026-11-21T15:04:05.123Z");
	if (fmt && !strcmp(fmt, "date"))
		return json_string("2026-11-21");
	if (fmt && !strcmp(fmt, "email"))
		return json_string("dispatch@example.com");
	if (fmt && !strcmp(fmt, "uri"))
		return json_string(name && !strcmp(name, "url") ? "https://loadline.example.com/imports/runs/run_" EX_ID
								  "/review" : EX_DOCS "/api/errors/NOT_FOUND");
	if (pat)
		return NULL;   /* a pattern nobody taught this file: the unit test names it */
	json_int_t max = json_integer_value(json_object_get(s, "maxLength"));
	const char *t = named_text(name);
	return max > 0 && (json_int_t)strlen(t) > max ? json_stringn(t, (size_t)max) : json_string(t);
}

/* The first type of a "type" that may be a list ("string", "null"),
 * null last. */
static const char *type_of(json_t *s)
{
	json_t *t = json_object_get(s, "type");
	if (json_is_string(t))
		return json_string_value(t);
	size_t i;
	json_t *e;
	json_array_foreach(t, i, e)
		if (strcmp(json_string_value(e) ? json_string_value(e) : "null", "null"))
			return json_string_value(e);
	return json_array_size(t) ? "null" : NULL;
}

static json_t *object_value(json_t *doc, json_t *s, int depth)
{
	json_t *o = json_object(), *props = json_object_get(s, "properties");
	const char *k;
	json_t *p;
	json_object_foreach(props, k, p) {
		json_t *v = example_of(doc, p, k, depth + 1);
		if (!v) {
			json_decref(o);
			return NULL;
		}
		json_object_set_new(o, k, v);
	}
	return o;
}

/* allOf: the parts' objects merged, later parts overriding earlier ones. */
static json_t *all_of(json_t *doc, json_t *parts, int depth)
{
	json_t *o = json_object();
	size_t i;
	json_t *part;
	json_array_foreach(parts, i, part) {
		json_t *v = example_of(doc, part, NULL, depth + 1);
		if (!json_is_object(v)) {
			json_decref(v);
			json_decref(o);
			return NULL;
		}
		json_object_update(o, v);
		json_decref(v);
	}
	return o;
}

static json_t *by_type(json_t *doc, json_t *s, const char *name, int depth)
{
	const char *t = type_of(s);
	if (!t && json_object_get(s, "properties"))
		t = "object";
	if (!t)
		return NULL;
	if (!strcmp(t, "object"))
		return object_value(doc, s, depth);
	if (!strcmp(t, "array")) {
		json_t *item = example_of(doc, json_object_get(s, "items"), name, depth + 1);
		if (!item)
			return NULL;
		json_t *a = json_array();
		if (json_integer_value(json_object_get(s, "maxItems")) != 0 || !json_object_get(s, "maxItems"))
			json_array_append(a, item);
		json_decref(item);
		return a;
	}
	if (!strcmp(t, "integer") || !strcmp(t, "number")) {
		json_t *min = json_object_get(s, "minimum");
		return json_integer(min ? json_integer_value(min) : 12);
	}
	if (!strcmp(t, "boolean"))
		return json_false();
	if (!strcmp(t, "null"))
		return json_null();
	return !strcmp(t, "string") ? string_value(s, name) : NULL;
}

static json_t *example_of(json_t *doc, json_t *s, const char *name, int depth)
{
	if (!json_is_object(s) || depth > EX_DEPTH)
		return NULL;
	json_t *v;
	if ((v = json_object_get(s, "example")))
		return json_deep_copy(v);
	if ((v = json_object_get(s, "const")))
		return json_deep_copy(v);
	if ((v = json_object_get(s, "enum")))
		return json_deep_copy(json_array_get(v, 0));
	if ((v = json_object_get(s, "$ref")))
		return example_of(doc, deref(doc, json_string_value(v) ? json_string_value(v) : ""), name, depth + 1);
	if ((v = json_object_get(s, "allOf")))
		return all_of(doc, v, depth);
	if ((v = json_object_get(s, "oneOf")) || (v = json_object_get(s, "anyOf")))
		return example_of(doc, json_array_get(v, 0), name, depth + 1);
	return by_type(doc, s, name, depth);
}

/* A problem example made true to its code: type and docUrl name its
 * reference page, title and detail say what it says. */
static void problem_truths(json_t *ex)
{
	const char *name = json_string_value(json_object_get(ex, "code"));
	enum code c = name ? code_from_name(name) : CODE_OK;
	if (!name || c == CODE_OK)
		return;
	char url[256];
	snprintf(url, sizeof url, EX_DOCS "/api/errors/%s", name);
	json_object_set_new(ex, "type", json_string(url));
	json_object_set_new(ex, "docUrl", json_string(url));
	json_object_set_new(ex, "status", json_integer(code_status(c)));
	json_object_set_new(ex, "title", json_string(http_reason(code_status(c))));
	json_object_set_new(ex, "detail", json_string(code_summary(c)));
}

static int add_to_content(json_t *doc, json_t *content, const char *where, char *missing, size_t cap)
{
	const char *type;
	json_t *media;
	int n = 0;
	json_object_foreach(content, type, media) {
		if (json_object_get(media, "example") || json_object_get(media, "examples") || !strstr(type, "json"))
			continue;
		json_t *ex = example_of(doc, json_object_get(media, "schema"), NULL, 0);
		if (!ex) {
			size_t k = strlen(missing);
			snprintf(missing + k, cap - k, "%s%s %s", k ? "; " : "", where, type);
			continue;
		}
		if (strstr(type, "problem"))
			problem_truths(ex);
		json_object_set_new(media, "example", ex);
		n++;
	}
	return n;
}

int openapi_add_examples(json_t *doc, char *missing, size_t cap)
{
	*missing = '\0';
	int n = 0;
	const char *path, *method, *status;
	json_t *item, *op, *r;
	json_object_foreach(json_object_get(doc, "paths"), path, item) {
		json_object_foreach(item, method, op) {
			char where[512];
			snprintf(where, sizeof where, "%s %s", method, path);
			n += add_to_content(doc, json_object_get(json_object_get(op, "requestBody"), "content"), where,
					    missing, cap);
			json_object_foreach(json_object_get(op, "responses"), status, r) {
				snprintf(where, sizeof where, "%s %s %s", method, path, status);
				n += add_to_content(doc, json_object_get(r, "content"), where, missing, cap);
			}
		}
	}
	return n;
}
