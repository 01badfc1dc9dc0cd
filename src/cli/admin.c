/* loadline admin ...: operator commands (PRODUCT.md §1).  Each prints only
 * what a script needs on stdout (an id, a token, a URL); messages go to
 * stderr.  Exit 0 on success, 1 on failure, 2 on usage errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "cli.h"
#include "common.h"

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
static struct store *store_for_org(const char *org_id, struct org *ret)
{
	struct store *st = cli_store(1);
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

static int create_org(int argc, char **argv)
{
	static const char *usage = "create-org --name NAME";
	static const char *const ok[] = {"--name", NULL};
	const char *name = opt(argc, argv, "--name");
	int u;
	if (opts_check(argc, argv, ok, NULL, usage) || (u = need(name, "--name", usage)) || check_len(name, NAME_MAX_LEN, "--name"))
		return 2;
	struct store *st = cli_store(1);
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

static int valid_email(const char *e)
{
	const char *at = strchr(e, '@');
	return at && at != e && at[1] && !strchr(at + 1, '@') && !strpbrk(e, " \t\r\n,;<>") &&
	       strlen(e) <= EMAIL_MAX_LEN;
}

static int add_user(int argc, char **argv)
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
	struct store *st = store_for_org(org, &o);
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

static int mint_token(int argc, char **argv)
{
	static const char *usage = "mint-token --org ORG [--name LABEL]";
	static const char *const ok[] = {"--org", "--name", NULL};
	const char *org = opt(argc, argv, "--org"), *name = opt(argc, argv, "--name");
	if (opts_check(argc, argv, ok, NULL, usage) || need(org, "--org", usage) || check_len(name, NAME_MAX_LEN, "--name"))
		return 2;
	struct org o;
	struct store *st = store_for_org(org, &o);
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

static int revoke_token(int argc, char **argv)
{
	if (argc != 2 || !strncmp(argv[1], "--", 2)) {
		fprintf(stderr, "usage: loadline admin revoke-token KEY_ID\n");
		return 2;
	}
	struct store *st = cli_store(1);
	if (!st)
		return 1;
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

static int list_tokens(int argc, char **argv)
{
	static const char *usage = "list-tokens --org ORG";
	static const char *const ok[] = {"--org", NULL};
	const char *org = opt(argc, argv, "--org");
	if (opts_check(argc, argv, ok, NULL, usage) || need(org, "--org", usage))
		return 2;
	struct org o;
	struct store *st = store_for_org(org, &o);
	if (!st)
		return 1;
	enum code rc = store_key_list(st, org, print_key, NULL);
	store_close(st);
	return rc ? fail("list-tokens", rc) : 0;
}

/* Prints a sign-in URL for the user; shared with bootstrap. */
static int print_login_link(struct store *st, const struct user *u)
{
	char token[TOKEN_LEN + 1];
	enum code rc = store_login_link_create(st, u->id, LOGIN_LINK_TTL_MS, token);
	if (rc)
		return fail("login-link", rc);
	printf("%s/login/link?token=%s\n", g_config.app_url, token);
	return 0;
}

static int login_link(int argc, char **argv)
{
	static const char *usage = "login-link --email EMAIL";
	static const char *const ok[] = {"--email", NULL};
	const char *email = opt(argc, argv, "--email");
	if (opts_check(argc, argv, ok, NULL, usage) || need(email, "--email", usage))
		return 2;
	struct store *st = cli_store(1);
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
		ret = print_login_link(st, &u);
		if (!ret)
			fprintf(stderr, "loadline: one-time sign-in link for %s, valid 15 minutes\n", u.email);
	}
	store_close(st);
	return ret;
}

static int add_named(int argc, char **argv, const char *what)
{
	char usage[64];
	snprintf(usage, sizeof usage, "%s --org ORG --name NAME", what);
	static const char *const ok[] = {"--org", "--name", NULL};
	const char *org = opt(argc, argv, "--org"), *name = opt(argc, argv, "--name");
	if (opts_check(argc, argv, ok, NULL, usage) || need(org, "--org", usage) || need(name, "--name", usage) ||
	    check_len(name, NAME_MAX_LEN, "--name"))
		return 2;
	struct org o;
	struct store *st = store_for_org(org, &o);
	if (!st)
		return 1;
	char id[ID_MAX];
	enum code rc = !strcmp(what, "add-customer") ? store_customer_add(st, org, name, id)
						     : store_branch_add(st, org, name, id);
	store_close(st);
	if (rc)
		return fail(what, rc);
	printf("%s\n", id);
	return 0;
}

static int add_customer(int argc, char **argv) { return add_named(argc, argv, "add-customer"); }
static int add_branch(int argc, char **argv) { return add_named(argc, argv, "add-branch"); }

static int add_location(int argc, char **argv)
{
	static const char *usage = "add-location --org ORG --name NAME --street S --city C --state ST --zip Z";
	static const char *const ok[] = {"--org", "--name", "--street", "--city", "--state", "--zip", NULL};
	const char *org = opt(argc, argv, "--org");
	struct location loc = {.name = opt(argc, argv, "--name"), .street = opt(argc, argv, "--street"),
			       .city = opt(argc, argv, "--city"), .state = opt(argc, argv, "--state"),
			       .zip = opt(argc, argv, "--zip")};
	if (opts_check(argc, argv, ok, NULL, usage) || need(org, "--org", usage))
		return 2;
	if (!loc.name && !loc.street) {
		fprintf(stderr, "loadline: a location needs --name or --street\nusage: loadline admin %s\n", usage);
		return 2;
	}
	const char *parts[] = {loc.name, loc.street, loc.city, loc.state, loc.zip};
	for (size_t i = 0; i < 5; i++)
		if (check_len(parts[i], NAME_MAX_LEN, "an address part"))
			return 2;
	struct org o;
	struct store *st = store_for_org(org, &o);
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

static int set_approvers(int argc, char **argv)
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
	struct store *st = ret ? NULL : store_for_org(org, &o);
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
static int bootstrap(int argc, char **argv)
{
	static const char *usage = "bootstrap [--org-name NAME] [--email EMAIL] [--if-empty]";
	static const char *const ok[] = {"--org-name", "--email", NULL};
	const char *name = opt(argc, argv, "--org-name"), *email = opt(argc, argv, "--email");
	static const char *const bools[] = {"--if-empty", NULL};
	if (opts_check(argc, argv, ok, bools, usage))
		return 2;
	struct store *st = cli_store(1);
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
	if (rc) {
		ret = fail(*err ? err : "bootstrap", rc);
		goto out;
	}
	printf("Organization: %s (%s)\nAdmin user:   %s\nAPI token:    %s\n", o.name, o.id, u.email, token);
	printf("Sign-in link: ");
	fflush(stdout);
	if (print_login_link(st, &u))
		goto out;
	printf("Try it:       curl -s -H 'Authorization: Bearer %s' %s/api/v1/whoami\n", token, g_config.base_url);
	ret = 0;
out:
	store_close(st);
	return ret;
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
} commands[] = {
	{"create-org", create_org, "create-org --name NAME"},
	{"add-user", add_user, "add-user --org ORG --email EMAIL --name NAME --role admin|member"},
	{"mint-token", mint_token, "mint-token --org ORG [--name LABEL]"},
	{"revoke-token", revoke_token, "revoke-token KEY_ID"},
	{"list-tokens", list_tokens, "list-tokens --org ORG"},
	{"login-link", login_link, "login-link --email EMAIL"},
	{"add-customer", add_customer, "add-customer --org ORG --name NAME"},
	{"add-branch", add_branch, "add-branch --org ORG --name NAME"},
	{"add-location", add_location, "add-location --org ORG --name NAME --street S --city C --state ST --zip Z"},
	{"set-approvers", set_approvers, "set-approvers --org ORG --emails a@x,b@y"},
	{"bootstrap", bootstrap, "bootstrap [--org-name NAME] [--email EMAIL] [--if-empty]"},
};

int cli_admin(int argc, char **argv)
{
	size_t n = sizeof commands / sizeof commands[0];
	if (argc >= 2) {
		for (size_t i = 0; i < n; i++)
			if (!strcmp(argv[1], commands[i].name))
				return commands[i].run(argc - 1, argv + 1);
	}
	FILE *f = argc >= 2 && strcmp(argv[1], "help") ? stderr : stdout;
	if (f == stderr)
		fprintf(stderr, "loadline: unknown admin command \"%s\"\n", argc >= 2 ? argv[1] : "");
	fputs("usage: loadline [--db URL] admin COMMAND ...\n", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %s\n", commands[i].usage);
	return f == stderr ? 2 : 0;
}
