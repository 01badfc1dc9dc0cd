/* loadline docs write|check: keeps docs/errors.md and docs/openapi.json in
 * step with the code table (make check runs `check`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/docs.h"
#include "api/openapi.h"
#include "cli.h"

static char *openapi_text(void)
{
	json_t *doc = openapi_document(NULL);
	char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	size_t n = strlen(s);
	char *out = malloc(n + 2);
	memcpy(out, s, n);
	out[n] = '\n';
	out[n + 1] = '\0';
	free(s);
	return out;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	if (s)
		s[n] = '\0';
	fclose(f);
	return s;
}

static int one(const char *path, char *want, int write)
{
	int ret = 0;
	if (write) {
		FILE *f = fopen(path, "wb");
		if (!f || fputs(want, f) < 0) {
			fprintf(stderr, "loadline: cannot write %s\n", path);
			ret = 1;
		}
		if (f)
			fclose(f);
	} else {
		char *have = read_all(path);
		if (!have || strcmp(have, want)) {
			fprintf(stderr, "loadline: %s is out of date with the code table; run `make docs` and commit it\n", path);
			ret = 1;
		}
		free(have);
	}
	free(want);
	return ret;
}

int cli_docs(struct app *app, int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "write") && strcmp(argv[1], "check"))) {
		fprintf(stderr, "usage: loadline docs write|check [DIR]   (DIR defaults to docs)\n");
		return 2;
	}
	int write = !strcmp(argv[1], "write");
	const char *dir = argc > 2 ? argv[2] : "docs";
	char p1[1024], p2[1024];
	snprintf(p1, sizeof p1, "%s/errors.md", dir);
	snprintf(p2, sizeof p2, "%s/openapi.json", dir);
	int rc = one(p1, docs_errors_markdown(), write);
	rc |= one(p2, openapi_text(), write);
	return rc;
}
