/* `loadline webhooks list|add|delete|test|enable|disable|rotate-secret|
 * attempts` (PRODUCT §17): the organization's webhook endpoints from the
 * command line, over /api/v1/webhook-endpoints.  `add` and `rotate-secret`
 * print the signing secret, the only time it is shown. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"
#include "common.h"
#include "term.h"

#define T(s, buf) term_clean((s), (buf), sizeof(buf))

static const char webhooks_usage[] =
	"loadline webhooks list [--json]\n"
	"loadline webhooks add URL [--events EVENT,EVENT] [--json]\n"
	"loadline webhooks delete ID\n"
	"loadline webhooks test ID\n"
	"loadline webhooks enable ID | disable ID\n"
	"loadline webhooks rotate-secret ID [--json]\n"
	"loadline webhooks attempts ID [--limit N] [--json]\n"
	"  The organization's webhook endpoints. add prints the endpoint's signing secret (whsec_...)\n"
	"  once: keep it where your receiver verifies signatures. Events: import_run.staged,\n"
	"  import_run.completed (default both). test queues a signed webhook.test event. enable\n"
	"  re-enables a disabled endpoint. rotate-secret prints a new secret once; the old one keeps\n"
	"  signing beside it for 24 h. attempts lists the endpoint's delivery attempts, newest first.\n";

static const char *const allowed[] = {"--url", "--token", "--timeout", "--events", "--limit", NULL};

static void print_endpoint(json_t *e, bool tty)
{
	char id[128], url[1024], status[32], events[256] = "";
	size_t i;
	json_t *ev;
	json_array_foreach(json_object_get(e, "events"), i, ev) {
		size_t n = strlen(events);
		snprintf(events + n, sizeof events - n, "%s%s", i ? "," : "", json_string_value(ev) ?: "");
	}
	char shown[256];
	printf(tty ? "%-24s %-9s %-40s %s\n" : "%s\t%s\t%s\t%s\n", T(jstr(e, "id"), id), T(jstr(e, "status"), status),
	       T(events, shown), T(jstr(e, "url"), url));
}

/* GET path's list: its data as JSON with --json, else a header (on a
 * terminal) and a line a row. */
static int print_list(const struct client *c, const char *path, const char *header,
		      void (*line)(json_t *row, bool tty))
{
	json_t *l = client_get_json(c, path);
	if (!l)
		return EXIT_ERROR;
	bool tty = isatty(STDOUT_FILENO);
	if (c->json) {
		client_print_json(json_object_get(l, "data"));
	} else {
		if (tty)
			fputs(header, stdout);
		size_t i;
		json_t *row;
		json_array_foreach(json_object_get(l, "data"), i, row)
			line(row, tty);
	}
	json_decref(l);
	return EXIT_OK;
}

static int list(const struct client *c)
{
	char header[128];
	snprintf(header, sizeof header, "%-24s %-9s %-40s %s\n", "ID", "STATUS", "EVENTS", "URL");
	return print_list(c, "/api/v1/webhook-endpoints", header, print_endpoint);
}

/* "a,b" into a JSON list; both event types when events is NULL. */
static json_t *event_list(const char *events)
{
	json_t *l = json_array();
	const char *p = events ? events : "import_run.staged,import_run.completed";
	while (*p) {
		size_t n = strcspn(p, ",");
		if (n)
			json_array_append_new(l, json_stringn(p, n));
		p += n + (p[n] == ',');
	}
	return l;
}

static int add(const struct client *c, const char *url, const char *events)
{
	json_t *body = json_pack("{s:s,s:o}", "url", url, "events", event_list(events));
	json_t *e = client_call(c, "POST", "/api/v1/webhook-endpoints", body, NULL);
	json_decref(body);
	if (!e)
		return EXIT_ERROR;
	if (c->json) {
		client_print_json(e);
	} else {
		char t2[256];
		print_endpoint(e, true);
		printf("secret: %s\n(shown once: keep it where your receiver verifies the webhook-signature header)\n",
		       T(jstr(e, "secret"), t2));
	}
	json_decref(e);
	return EXIT_OK;
}

/* Whether id can go into a path as it is (an endpoint id is base62 and _). */
static bool id_ok(const char *id)
{
	for (const char *p = id; *p; p++)
		if (!(*p == '_' || (*p >= '0' && *p <= '9') || ((*p | 32) >= 'a' && (*p | 32) <= 'z'))) {
			fprintf(stderr, "loadline webhooks: that is not an endpoint id (whe_...; `loadline webhooks "
				"list` shows them)\n");
			return false;
		}
	return true;
}

static int set_enabled(const struct client *c, const char *id, bool on)
{
	char path[256], shown[128];
	snprintf(path, sizeof path, "/api/v1/webhook-endpoints/%s", id);
	json_t *body = json_pack("{s:b}", "enabled", on);
	json_t *e = client_call(c, "PATCH", path, body, NULL);
	json_decref(body);
	if (!e)
		return EXIT_ERROR;
	printf("%s %s\n", on ? "enabled" : "disabled", T(id, shown));
	json_decref(e);
	return EXIT_OK;
}

static int rotate(const struct client *c, const char *id)
{
	char path[256], secret[256], until[64];
	snprintf(path, sizeof path, "/api/v1/webhook-endpoints/%s/rotate-secret", id);
	json_t *e = client_call(c, "POST", path, NULL, NULL);
	if (!e)
		return EXIT_ERROR;
	if (c->json)
		client_print_json(e);
	else
		printf("secret: %s\n(shown once; the old secret keeps signing beside it until %s)\n",
		       T(jstr(e, "secret"), secret), T(jstr(e, "previousSecretExpiresAt"), until));
	json_decref(e);
	return EXIT_OK;
}

static void print_attempt(json_t *a, bool tty)
{
	char aid[64], at[64], ev[64], err[600];
	json_int_t st = json_integer_value(json_object_get(a, "status"));
	printf(tty ? "%-26s %-24s %-7lld %-6lld %8lld %-26s %s\n" : "%s\t%s\t%lld\t%lld\t%lld\t%s\t%s\n",
	       T(jstr(a, "id"), aid), T(jstr(a, "at"), at), (long long)json_integer_value(json_object_get(a, "attempt")),
	       (long long)st, (long long)json_integer_value(json_object_get(a, "durationMs")),
	       T(jstr(a, "eventId"), ev), T(jstr(a, "error") ? jstr(a, "error") : "", err));
}

static int attempts(const struct client *c, const char *id, const char *limit)
{
	char path[256], header[128];
	snprintf(path, sizeof path, "/api/v1/webhook-endpoints/%s/attempts?limit=%d", id, limit ? atoi(limit) : 20);
	snprintf(header, sizeof header, "%-26s %-24s %-7s %-6s %8s %-26s %s\n", "ID", "AT", "ATTEMPT", "STATUS", "MS",
		 "EVENT", "ERROR");
	return print_list(c, path, header, print_attempt);
}

static int on_one(const struct client *c, const char *verb, const char *id)
{
	char path[256];
	bool del = !strcmp(verb, "delete");
	snprintf(path, sizeof path, "/api/v1/webhook-endpoints/%s%s", id, del ? "" : "/test");
	json_t *o = client_call(c, del ? "DELETE" : "POST", path, NULL, NULL);
	if (!o)
		return EXIT_ERROR;
	char shown[128];
	printf(del ? "deleted %s\n" : "queued a webhook.test event for %s\n", T(id, shown));
	json_decref(o);
	return EXIT_OK;
}

/* The verbs that act on one endpoint. */
static int by_verb(const struct client *c, const char *verb, const char *id, const char *limit)
{
	if (!id_ok(id))
		return EXIT_ERROR;
	if (!strcmp(verb, "enable") || !strcmp(verb, "disable"))
		return set_enabled(c, id, !strcmp(verb, "enable"));
	if (!strcmp(verb, "rotate-secret"))
		return rotate(c, id);
	if (!strcmp(verb, "attempts"))
		return attempts(c, id, limit);
	return on_one(c, verb, id);
}

int cli_webhooks(struct app *app, int argc, char **argv)
{
	(void)app;
	static const char *const bools[] = {"--json", NULL};
	struct client c = {0};
	int rc;
	if (client_start(&c, "webhooks", webhooks_usage, argc, argv, allowed, bools, &rc))
		return rc;
	const char *verb = client_arg(argc, argv, allowed, 0), *arg = client_arg(argc, argv, allowed, 1);
	static const char *const with_id[] = {"delete", "test", "enable", "disable", "rotate-secret", "attempts"};
	bool needs = verb && !strcmp(verb, "add"), by_id = false;
	for (size_t i = 0; verb && i < sizeof with_id / sizeof with_id[0]; i++)
		by_id |= !strcmp(verb, with_id[i]);
	if (verb && !strcmp(verb, "list") && !arg)
		return list(&c);
	if (needs && arg && !client_arg(argc, argv, allowed, 2))
		return add(&c, arg, opt(argc, argv, "--events"));
	if (by_id && arg && !client_arg(argc, argv, allowed, 2))
		return by_verb(&c, verb, arg, opt(argc, argv, "--limit"));
	fprintf(stderr, "usage: %s", webhooks_usage);
	return EXIT_ERROR;
}
