/* loadline admin ...: operator commands (PRODUCT.md §1).  Each prints only
 * what a script needs on stdout (an id, a token, a URL); messages go to
 * stderr.  Exit 0 on success, 1 on failure, 2 on usage errors. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "cli.h"
#include "common.h"
#include "geo/geocoder.h"
#include "model/normalize.h"
#include "import/review.h"
#include "store/outbox.h"
#include "store/reference.h"
#include "store/runs.h"
#include "term.h"

#define LOGIN_LINK_TTL_MS (15 * 60 * 1000)

static int fail(const char *what, enum code rc)
{
	fprintf(stderr, "loadline: %s failed: %s\n", what,
		rc == CODE_SERVICE_UNAVAILABLE ? "database unreachable" : code_name(rc));
	return 1;
}

static int need(const char *v, const char *name, const char *usage)
{
	if (v && *v)
		return 0;
	fprintf(stderr, "loadline: %s is required\nusage: loadline admin %s\n", name, usage);
	return 2;
}

static int check_len(const char *v, size_t max, const char *name)
{
	if (!v || strlen(v) <= max)
		return 0;
	fprintf(stderr, "loadline: %s is longer than %zu bytes\n", name, max);
	return 2;
}

/* Opens the store and checks that --org names an existing organization. */
static struct store *store_for_org(struct app *app, const char *org_id, struct org *ret)
{
	struct store *st = cli_store(app, 1);
	if (!st)
		return NULL;
	enum code rc = store_org_get(st, org_id, ret);
	if (rc) {
		if (rc == CODE_NOT_FOUND)
			fprintf(stderr, "loadline: no organization %s (create one with: loadline admin create-org --name NAME)\n", org_id);
		else
			fail("looking up the organization", rc);
		store_close(st);
		return NULL;
	}
	return st;
}

static int create_org(struct app *app, int argc, char **argv)
{
	static const char *usage = "create-org --name NAME";
	static const char *const ok[] = {"--name", NULL};
	const char *name = opt(argc, argv, "--name");
	int u;
	if (opts_check(argc, argv, ok, NULL, usage) || (u = need(name, "--name", usage)) || check_len(name, NAME_MAX_LEN, "--name"))
		return 2;
	struct store *st = cli_store(app, 1);
	if (!st)
		return 1;
	struct org o;
	enum code rc = store_org_create(st, name, &o);
	store_close(st);
	if (rc)
		return fail("create-org", rc);
	printf("%s\n", o.id);
	return 0;
}

/* list-orgs: one line per organization, ORG NAME CREATED.  On a
 * terminal a header and aligned columns; piped, tab-separated without a
 * header (as `loadline runs`).  Names are made safe to print (a tab in
 * one is escaped, so a line is always three fields). */
struct org_rows {
	struct org *v;
	size_t n, cap;
};

static void collect_org(const struct org *o, void *ctx)
{
	struct org_rows *l = ctx;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		if (!(l->v = realloc(l->v, l->cap * sizeof *l->v)))
			abort();
	}
	l->v[l->n++] = *o;
}

static void print_orgs(const struct org_rows *l, bool tty)
{
	enum { NAME_CELL = NAME_MAX_LEN * 16 };
	char (*names)[NAME_CELL] = calloc(l->n ? l->n : 1, NAME_CELL);
	if (!names)
		abort();
	int wid = 3, w = 4;
	for (size_t i = 0; i < l->n; i++) {
		term_clean(l->v[i].name, names[i], NAME_CELL);
		if ((int)strlen(names[i]) > w)
			w = (int)strlen(names[i]);
		if ((int)strlen(l->v[i].id) > wid)
			wid = (int)strlen(l->v[i].id);
	}
	if (tty)
		printf("%-*s  %-*s  %s\n", wid, "ORG", w, "NAME", "CREATED");
	for (size_t i = 0; i < l->n; i++) {
		char t[TIME_ISO_MAX];
		time_iso(l->v[i].created_at, t);
		if (tty)
			printf("%-*s  %-*s  %s\n", wid, l->v[i].id, w, names[i], t);
		else
			printf("%s\t%s\t%s\n", l->v[i].id, names[i], t);
	}
	free(names);
}

static int list_orgs(struct app *app, int argc, char **argv)
{
	static const char *const ok[] = {NULL};
	if (opts_check(argc, argv, ok, NULL, "list-orgs") || argc > 1) {
		if (argc > 1 && strncmp(argv[1], "--", 2))
			fputs("usage: loadline admin list-orgs\n", stderr);
		return 2;
	}
	struct store *st = cli_store(app, 1);
	if (!st)
		return 1;
	struct org_rows l = {0};
	enum code rc = store_org_list(st, collect_org, &l);
	store_close(st);
	if (!rc)
		print_orgs(&l, isatty(STDOUT_FILENO));
	free(l.v);
	return rc ? fail("list-orgs", rc) : 0;
}

static int valid_email(const char *e)
{
	const char *at = strchr(e, '@');
	return at && at != e && at[1] && !strchr(at + 1, '@') && !strpbrk(e, " \t\r\n,;<>") &&
	       strlen(e) <= EMAIL_MAX_LEN;
}

static int add_user(struct app *app, int argc, char **argv)
{
	static const char *usage = "add-user --org ORG --email EMAIL --name NAME --role admin|member";
	static const char *const ok[] = {"--org", "--email", "--name", "--role", NULL};
	const char *org = opt(argc, argv, "--org"), *email = opt(argc, argv, "--email");
	const char *name = opt(argc, argv, "--name"), *role = opt(argc, argv, "--role");
	if (opts_check(argc, argv, ok, NULL, usage) || need(org, "--org", usage) || need(email, "--email", usage) ||
	    need(name, "--name", usage) || need(role, "--role", usage) || check_len(name, NAME_MAX_LEN, "--name"))
		return 2;
	if (strcmp(role, "admin") && strcmp(role, "member")) {
		fprintf(stderr, "loadline: --role must be admin or member, not \"%s\"\n", role);
		return 2;
	}
	if (!valid_email(email)) {
		fprintf(stderr, "loadline: \"%s\" is not an email address\n", email);
		return 2;
	}
	struct org o;
	struct store *st = store_for_org(app, org, &o);
	if (!st)
		return 1;
	struct user usr;
	char err[256] = "";
	enum code rc = store_user_add(st, org, email, name, !strcmp(role, "admin") ? ROLE_ADMIN : ROLE_MEMBER,
				      &usr, err, sizeof err);
	store_close(st);
	if (rc) {
		if (*err)
			fprintf(stderr, "loadline: %s\n", err);
		return rc == CODE_INVALID_REQUEST ? 1 : fail("add-user", rc);
	}
	printf("%s\n", usr.id);
	return 0;
}

static int mint_token(struct app *app, int argc, char **argv)
{
	static const char *usage = "mint-token --org ORG [--name LABEL]";
	static const char *const ok[] = {"--org", "--name", NULL};
	const char *org = opt(argc, argv, "--org"), *name = opt(argc, argv, "--name");
	if (opts_check(argc, argv, ok, NULL, usage) || need(org, "--org", usage) || check_len(name, NAME_MAX_LEN, "--name"))
		return 2;
	struct org o;
	struct store *st = store_for_org(app, org, &o);
	if (!st)
		return 1;
	char token[TOKEN_LEN + 1];
	struct api_key k;
	enum code rc = store_key_create(st, org, name, token, &k);
	store_close(st);
	if (rc)
		return fail("mint-token", rc);
	printf("%s\n", token);
	fprintf(stderr, "loadline: minted %s (%s) for %s; this is the only time the token is shown\n", k.id, k.prefix, org);
	return 0;
}

/* Commands that take exactly one id: checks the arguments and opens the
 * store.  Returns 0, or the exit status (2 usage, 1 no database). */
static int one_id_command(struct app *app, int argc, char **argv, const char *usage, struct store **ret)
{
	if (argc != 2 || !strncmp(argv[1], "--", 2)) {
		fprintf(stderr, "usage: loadline admin %s\n", usage);
		return 2;
	}
	*ret = cli_store(app, 1);
	return *ret ? 0 : 1;
}

static int revoke_token(struct app *app, int argc, char **argv)
{
	struct store *st = NULL;
	int u = one_id_command(app, argc, argv, "revoke-token KEY_ID", &st);
	if (u)
		return u;
	enum code rc = store_key_revoke(st, NULL, argv[1]);
	store_close(st);
	if (rc == CODE_NOT_FOUND) {
		fprintf(stderr, "loadline: no API key %s\n", argv[1]);
		return 1;
	}
	return rc ? fail("revoke-token", rc) : 0;
}

static void print_key(const struct api_key *k, void *ctx)
{
	(void)ctx;
	printf("%s %s %s %s\n", k->id, k->prefix, k->name, k->revoked_at ? "revoked" : "live");
}

static int list_tokens(struct app *app, int argc, char **argv)
{
	static const char *usage = "list-tokens --org ORG";
	static const char *const ok[] = {"--org", NULL};
	const char *org = opt(argc, argv, "--org");
	if (opts_check(argc, argv, ok, NULL, usage) || need(org, "--org", usage))
		return 2;
	struct org o;
	struct store *st = store_for_org(app, org, &o);
	if (!st)
		return 1;
	enum code rc = store_key_list(st, org, print_key, NULL);
	store_close(st);
	return rc ? fail("list-tokens", rc) : 0;
}

/* How this binary is run from here: "loadline" when installed (under
 * /usr), else its path relative to the current directory when it is below
 * it ("build/loadline" in a checkout), else its absolute path. */
static void program_name(char *out, size_t cap)
{
	char exe[PATH_MAX], cwd[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	size_t k = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
	if (n <= 0 || !strncmp(exe, "/usr/", 5))
		snprintf(out, cap, "loadline");
	else if (k && !strncmp(exe, cwd, k) && exe[k] == '/')
		snprintf(out, cap, "%s", exe + k + 1);
	else
		snprintf(out, cap, "%s", exe);
}

/* bootstrap's first-import line, true where it runs: the example file of
 * a checkout (examples/loads.csv) or of the package ({datadir}/examples),
 * with this binary's name (issue 30: the packaged banner named files the
 * package does not have). */
static void print_first_push(void)
{
	static const char packaged[] = LOADLINE_DATADIR "/examples/loads.csv";
	const char *ex = !access("examples/loads.csv", R_OK) ? "examples/loads.csv"
			 : !access(packaged, R_OK) ? packaged : NULL;
	char prog[PATH_MAX];
	program_name(prog, sizeof prog);
	if (ex)
		printf("              %s push %s\n", prog, ex);
	else
		printf("              %s push YOUR-FILE.csv   (or .xlsx)\n", prog);
}

/* Prints a sign-in URL for the user; shared with bootstrap. */
static int print_login_link(const struct app *app, struct store *st, const struct user *u)
{
	char token[TOKEN_LEN + 1];
	enum code rc = store_login_link_create(st, u->id, LOGIN_LINK_TTL_MS, token);
	if (rc)
		return fail("login-link", rc);
	printf("%s/login/link?token=%s\n", app->cfg.app_url, token);
	return 0;
}

static int login_link(struct app *app, int argc, char **argv)
{
	static const char *usage = "login-link --email EMAIL";
	static const char *const ok[] = {"--email", NULL};
	const char *email = opt(argc, argv, "--email");
	if (opts_check(argc, argv, ok, NULL, usage) || need(email, "--email", usage))
		return 2;
	struct store *st = cli_store(app, 1);
	if (!st)
		return 1;
	struct user u;
	enum code rc = store_user_by_email(st, email, &u);
	int ret;
	if (rc == CODE_NOT_FOUND) {
		fprintf(stderr, "loadline: no user with email %s (add one with: loadline admin add-user ...)\n", email);
		ret = 1;
	} else if (rc) {
		ret = fail("login-link", rc);
	} else {
		ret = print_login_link(app, st, &u);
		if (!ret)
			fprintf(stderr, "loadline: one-time sign-in link for %s, valid 15 minutes\n", u.email);
	}
	store_close(st);
	return ret;
}

static int add_named(struct app *app, int argc, char **argv, const char *what)
{
	char usage[64];
	snprintf(usage, sizeof usage, "%s --org ORG --name NAME", what);
	static const char *const ok[] = {"--org", "--name", NULL};
	const char *org = opt(argc, argv, "--org"), *name = opt(argc, argv, "--name");
	if (opts_check(argc, argv, ok, NULL, usage) || need(org, "--org", usage) || need(name, "--name", usage) ||
	    check_len(name, NAME_MAX_LEN, "--name"))
		return 2;
	struct org o;
	struct store *st = store_for_org(app, org, &o);
	if (!st)
		return 1;
	char id[ID_MAX], existing[ID_MAX] = "";
	enum code rc = store_ref_create(st, !strcmp(what, "add-customer") ? REF_CUSTOMER : REF_BRANCH, org, name, id,
					existing);
	store_close(st);
	if (rc == CODE_DUPLICATE_NAME) {
		fprintf(stderr, "loadline: %s: %s already has the name \"%s\" (names match ignoring case and spaces)\n",
			what, existing, name);
		return 1;
	}
	if (rc)
		return fail(what, rc);
	printf("%s\n", id);
	return 0;
}

static int add_customer(struct app *app, int argc, char **argv) { return add_named(app, argc, argv, "add-customer"); }
static int add_branch(struct app *app, int argc, char **argv) { return add_named(app, argc, argv, "add-branch"); }

/* Geocodes an operator's location as an import would; what could not be
 * placed is said on stderr with the import's warning code. */
static void geocode_location(const struct geocoder *g, struct location *loc)
{
	struct geo_query q = {.street = loc->street, .city = loc->city, .state = loc->state, .zip = loc->zip};
	struct geo_result res;
	g->lookup(g, &q, &res);
	loc->geocode_source = g->name;
	loc->geocode_precision = geo_precision_name(res.precision);
	if (res.status == GEO_FOUND) {
		loc->has_coords = true;
		loc->lat_e6 = geo_e6(res.lat);
		loc->lon_e6 = geo_e6(res.lon);
	} else if (res.status == GEO_STATE_MISMATCH) {
		fprintf(stderr, "loadline: warning: ADDRESS_ZIP_STATE_MISMATCH: ZIP %s is in %s (%s), not in %s; the "
			"location is saved without coordinates\n", loc->zip, res.found_state, res.found_city, loc->state);
	} else {
		fprintf(stderr, "loadline: warning: ADDRESS_NOT_GEOCODED: %s is not a US ZIP code; the location is "
			"saved without coordinates\n", loc->zip);
	}
}

static int add_location(struct app *app, int argc, char **argv)
{
	static const char *usage = "add-location --org ORG --name NAME --street S --city C --state ST --zip Z";
	static const char *const ok[] = {"--org", "--name", "--street", "--city", "--state", "--zip", NULL};
	const char *org = opt(argc, argv, "--org");
	struct location loc = {.name = opt(argc, argv, "--name"), .street = opt(argc, argv, "--street"),
			       .city = opt(argc, argv, "--city"), .state = opt(argc, argv, "--state"),
			       .zip = opt(argc, argv, "--zip")};
	if (opts_check(argc, argv, ok, NULL, usage) || need(org, "--org", usage) || need(loc.name, "--name", usage) ||
	    need(loc.street, "--street", usage) || need(loc.city, "--city", usage) || need(loc.state, "--state", usage) ||
	    need(loc.zip, "--zip", usage))
		return 2;
	/* Stored the way an import would store them, so addresses compare. */
	char state[NORM_STATE_SIZE], zip[NORM_ZIP_SIZE];
	enum norm_why why;
	if (norm_state(loc.state, strlen(loc.state), state, &why)) {
		fprintf(stderr, "loadline: --state \"%s\" is not a USPS state code or name\n", loc.state);
		return 2;
	}
	if (norm_zip(loc.zip, strlen(loc.zip), zip, &why)) {
		fprintf(stderr, "loadline: --zip \"%s\" is not a 5- or 9-digit ZIP code\n", loc.zip);
		return 2;
	}
	loc.state = state;
	loc.zip = zip;
	const char *parts[] = {loc.name, loc.street, loc.city, loc.state, loc.zip};
	for (size_t i = 0; i < 5; i++)
		if (check_len(parts[i], NAME_MAX_LEN, "an address part"))
			return 2;
	if (cli_geocoder(app))
		return 1;
	geocode_location(app->geo, &loc);
	geo_close(app->geo);
	struct org o;
	struct store *st = store_for_org(app, org, &o);
	if (!st)
		return 1;
	char id[ID_MAX];
	enum code rc = store_location_add(st, org, &loc, id);
	store_close(st);
	if (rc)
		return fail("add-location", rc);
	printf("%s\n", id);
	return 0;
}

static int set_approvers(struct app *app, int argc, char **argv)
{
	static const char *usage = "set-approvers --org ORG --emails a@x,b@y   (empty list = all admins)";
	static const char *const ok[] = {"--org", "--emails", NULL};
	const char *org = opt(argc, argv, "--org"), *emails = opt(argc, argv, "--emails");
	if (opts_check(argc, argv, ok, NULL, usage) || need(org, "--org", usage))
		return 2;
	if (!emails) {
		fprintf(stderr, "loadline: --emails is required (use --emails \"\" for all admins)\n");
		return 2;
	}
	char *copy = strdup(emails);
	const char *list[64];
	int n = 0, ret = 0;
	for (char *save = NULL, *e = strtok_r(copy, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		while (*e == ' ')
			e++;
		char *end = e + strlen(e);
		while (end > e && end[-1] == ' ')
			*--end = '\0';
		if (!*e)
			continue;
		if (!valid_email(e) || n == 64) {
			fprintf(stderr, "loadline: %s\n", n == 64 ? "at most 64 approvers" : "not an email address:");
			if (n < 64)
				fprintf(stderr, "  \"%s\"\n", e);
			ret = 2;
			break;
		}
		list[n++] = e;
	}
	struct org o;
	struct store *st = ret ? NULL : store_for_org(app, org, &o);
	if (!ret && !st)
		ret = 1;
	if (st) {
		enum code rc = store_set_approvers(st, org, list, n);
		ret = rc ? fail("set-approvers", rc) : 0;
		store_close(st);
	}
	free(copy);
	return ret;
}

/* make run on a new database: one org, one admin, one token, a sign-in
 * link and a curl line.  With --if-empty it does nothing when any
 * organization exists. */
static int bootstrap(struct app *app, int argc, char **argv)
{
	static const char *usage = "bootstrap [--org-name NAME] [--email EMAIL] [--if-empty]";
	static const char *const ok[] = {"--org-name", "--email", NULL};
	const char *name = opt(argc, argv, "--org-name"), *email = opt(argc, argv, "--email");
	static const char *const bools[] = {"--if-empty", NULL};
	if (opts_check(argc, argv, ok, bools, usage))
		return 2;
	struct store *st = cli_store(app, 1);
	if (!st)
		return 1;
	int ret = 1;
	struct org o;
	struct user u;
	char token[TOKEN_LEN + 1], err[256] = "";
	struct api_key k;
	int64_t orgs = 0;
	if (flag(argc, argv, "--if-empty") && store_org_count(st, &orgs) == CODE_OK && orgs > 0) {
		ret = 0;
		goto out;
	}
	enum code rc = store_org_create(st, name ? name : "Demo Freight", &o);
	if (!rc)
		rc = store_user_add(st, o.id, email ? email : "admin@example.com", "Admin", ROLE_ADMIN, &u, err, sizeof err);
	if (!rc)
		rc = store_key_create(st, o.id, "bootstrap", token, &k);
	/* The customer examples/loads.csv names, so the README's first push
	 * finds it. */
	char cid[ID_MAX], dup[ID_MAX];
	if (!rc)
		rc = store_ref_create(st, REF_CUSTOMER, o.id, "Cascade Civil Group", cid, dup);
	if (rc) {
		ret = fail(*err ? err : "bootstrap", rc);
		goto out;
	}
	printf("Organization: %s (%s)\nAdmin user:   %s\nAPI token:    %s\n", o.name, o.id, u.email, token);
	printf("Sign-in link: ");
	fflush(stdout);
	if (print_login_link(app, st, &u))
		goto out;
	printf("Try it:       curl -s -H 'Authorization: Bearer %s' %s/api/v1/whoami\n", token, app->cfg.base_url);
	printf("First import: export LOADLINE_URL=%s LOADLINE_TOKEN=%s\n", app->cfg.base_url, token);
	print_first_push();
	ret = 0;
out:
	store_close(st);
	return ret;
}

static int cancel_run(struct app *app, int argc, char **argv)
{
	struct store *st = NULL;
	int u = one_id_command(app, argc, argv, "cancel-run RUN_ID", &st);
	if (u)
		return u;
	struct run run;
	enum code rc = store_run_get(st, NULL, argv[1], &run);
	int ret = 0;
	if (rc == CODE_NOT_FOUND) {
		fprintf(stderr, "loadline: no run %s\n", argv[1]);
		ret = 1;
	} else if (rc) {
		ret = fail("cancel-run", rc);
	} else {
		bool moved;
		rc = store_run_cancel(st, argv[1], &moved);
		if (!rc && !moved) {
			fprintf(stderr, "loadline: run %s is already %s; only QUEUED or RUNNING runs can be cancelled\n",
				argv[1], run_state_name(run.state));
			ret = 1;
		} else if (rc) {
			ret = fail("cancel-run", rc);
		}
	}
	store_close(st);
	return ret;
}

/* "Header=field,Other=" overrides of the proposal, by header text. */
static int apply_map_option(struct arena *a, const struct review *r, const char *spec, const char **fields)
{
	char *copy = arena_strdup(a, spec), *save = NULL;
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *eq = strrchr(item, '=');
		if (!eq) {
			fprintf(stderr, "loadline: --map items look like \"Header=field\" (empty field = ignore)\n");
			return 2;
		}
		*eq = '\0';
		int col = -1;
		for (int j = 0; j < r->ncols; j++)
			if (!strcmp(r->headers[j], item))
				col = j;
		if (col < 0) {
			fprintf(stderr, "loadline: the file has no column \"%s\"\n", item);
			return 2;
		}
		fields[col] = eq[1] ? eq + 1 : NULL;
	}
	return 0;
}

static int confirm_run(struct app *app, int argc, char **argv)
{
	static const char *usage = "confirm-run RUN_ID [--map \"Header=field,...\"] [--email ADMIN_EMAIL]";
	static const char *const ok[] = {"--map", "--email", NULL};
	if (argc < 2 || !strncmp(argv[1], "--", 2) || opts_check(argc - 1, argv + 1, ok, NULL, usage)) {
		fprintf(stderr, "usage: loadline admin %s\n", usage);
		return 2;
	}
	struct store *st = cli_store(app, 1);
	if (!st)
		return 1;
	struct arena *a = arena_new();
	struct run run;
	struct review r;
	const char *msg = NULL;
	int released = 0, ret = 1;
	enum code rc = store_run_get(st, NULL, argv[1], &run);
	if (!rc)
		rc = review_load(st, a, app->cfg.max_rows, run.org_id, run.id, &r);
	if (rc) {
		fprintf(stderr, "loadline: cannot review run %s: %s\n", argv[1], code_name(rc));
		goto out;
	}
	const char **fields = arena_alloc(a, sizeof(char *) * ((size_t)r.ncols + 1));
	for (int j = 0; j < r.ncols; j++)
		fields[j] = r.proposal[j].field < FIELD__COUNT ? field_name(r.proposal[j].field) : NULL;
	const char *spec = opt(argc - 1, argv + 1, "--map");
	if (spec && (ret = apply_map_option(a, &r, spec, fields)))
		goto out;
	const char *email = opt(argc - 1, argv + 1, "--email");
	struct user u = {0};
	if (email && store_user_by_email(st, email, &u)) {
		fprintf(stderr, "loadline: no user with email %s\n", email);
		ret = 1;
		goto out;
	}
	enum review_outcome outcome;
	rc = review_confirm(st, a, app->cfg.max_rows, run.org_id, run.id, email ? u.id : NULL, fields, r.ncols,
			    &released, &msg, &outcome);
	if (rc || outcome != REVIEW_CONFIRMED) {
		const char *why = rc ? code_name(rc) : outcome == REVIEW_EXPIRED ? "the review link expired (STAGING_EXPIRED)"
			: outcome == REVIEW_DECIDED ? "the run no longer waits for a mapping" : "the mapping was refused";
		fprintf(stderr, "loadline: confirm-run failed: %s%s%s\n", why, msg ? ": " : "", msg ? msg : "");
		ret = 1;
		goto out;
	}
	printf("%d\n", released);
	ret = 0;
out:
	arena_free(a);
	store_close(st);
	return ret;
}

static void print_mail(const struct outbox_mail *m, void *ctx)
{
	(void)ctx;
	char t[TIME_ISO_MAX];
	time_iso(m->created_at, t);
	printf("%s %s %s attempts=%d run=%s to=%s subject=%s%s%s\n", m->id, t, m->state, m->attempts,
	       *m->run_id ? m->run_id : "-", m->recipients, m->subject, m->last_error ? " error=" : "",
	       m->last_error ? m->last_error : "");
}

static int outbox(struct app *app, int argc, char **argv)
{
	static const char *const ok[] = {"--org", NULL};
	if (opts_check(argc, argv, ok, NULL, "outbox [--org ORG]"))
		return 2;
	struct store *st = cli_store(app, 1);
	if (!st)
		return 1;
	struct arena *a = arena_new();
	enum code rc = store_outbox_list(st, a, opt(argc, argv, "--org"), print_mail, NULL);
	arena_free(a);
	store_close(st);
	return rc ? fail("outbox", rc) : 0;
}

static const struct {
	const char *name;
	int (*run)(struct app *app, int argc, char **argv);
	const char *usage;
} commands[] = {
	{"create-org", create_org, "create-org --name NAME"},
	{"list-orgs", list_orgs, "list-orgs"},
	{"add-user", add_user, "add-user --org ORG --email EMAIL --name NAME --role admin|member"},
	{"mint-token", mint_token, "mint-token --org ORG [--name LABEL]"},
	{"revoke-token", revoke_token, "revoke-token KEY_ID"},
	{"list-tokens", list_tokens, "list-tokens --org ORG"},
	{"login-link", login_link, "login-link --email EMAIL"},
	{"add-customer", add_customer, "add-customer --org ORG --name NAME"},
	{"add-branch", add_branch, "add-branch --org ORG --name NAME"},
	{"add-location", add_location, "add-location --org ORG --name NAME --street S --city C --state ST --zip Z"},
	{"set-approvers", set_approvers, "set-approvers --org ORG --emails a@x,b@y"},
	{"cancel-run", cancel_run, "cancel-run RUN_ID"},
	{"confirm-run", confirm_run, "confirm-run RUN_ID [--map \"Header=field,...\"] [--email ADMIN_EMAIL]"},
	{"outbox", outbox, "outbox [--org ORG]"},
	{"bootstrap", bootstrap, "bootstrap [--org-name NAME] [--email EMAIL] [--if-empty]"},
	{"copy-db", cli_admin_copy_db, "copy-db --to postgres://...   (SQLite into an empty PostgreSQL database, verified)"},
	{"backup", cli_admin_backup, "backup FILE   (a consistent copy of the serving SQLite database)"},
};

int cli_admin(struct app *app, int argc, char **argv)
{
	size_t n = sizeof commands / sizeof commands[0];
	if (argc >= 2) {
		for (size_t i = 0; i < n; i++)
			if (!strcmp(argv[1], commands[i].name))
				return commands[i].run(app, argc - 1, argv + 1);
	}
	FILE *f = argc >= 2 && !strcmp(argv[1], "help") ? stdout : stderr;
	if (argc >= 2 && f == stderr)
		fprintf(stderr, "loadline: unknown admin command \"%s\"\n", argv[1]);
	fputs("usage: loadline [--db URL] admin COMMAND ...\n", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %s\n", commands[i].usage);
	return f == stderr ? 2 : 0;
}
