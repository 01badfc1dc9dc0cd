/* The template renderer: {{var}}, {{#var}}/{{^var}} sections, comments. */
#include "tmpl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/html.h"
#include "web/assets.h"

struct html {
	const char *s;
	size_t len;
};

/* No page comes near this; it only bounds a bug. */
#define PAGE_MAX (64u << 20)
#define NAME_MAX_CHARS 64

struct render {
	struct buf out;
	const struct tmpl_var *vars;
	size_t n;
	const char *tmpl_name;
};

static void die(const struct render *r, const char *what)
{
	fprintf(stderr, "loadline: template %s: %s\n", r->tmpl_name, what);
	abort();
}

static const struct tmpl_var *lookup(const struct render *r, const char *name, size_t len)
{
	for (size_t i = 0; i < r->n; i++)
		if (strlen(r->vars[i].name) == len && !memcmp(r->vars[i].name, name, len))
			return &r->vars[i];
	return NULL;
}

static bool truthy(const struct tmpl_var *v)
{
	if (!v)
		return false;
	if (v->html)
		return v->html->len > 0;
	if (v->text)
		return v->text[0] != '\0';
	return v->flag;
}

/* A tag {{...}}: kind ('#', '^', '/', '!' or 0 for a variable) and name. */
struct tag {
	const char *start, *end;   /* the whole tag, end past "}}" */
	char kind;
	const char *name;
	size_t name_len;
};

static bool next_tag(const struct render *r, const char *s, const char *end, struct tag *t)
{
	const char *open = memmem(s, (size_t)(end - s), "{{", 2);
	if (!open)
		return false;
	const char *close = memmem(open + 2, (size_t)(end - open - 2), "}}", 2);
	if (!close)
		die(r, "unclosed {{");
	t->start = open;
	t->end = close + 2;
	const char *p = open + 2;
	t->kind = (*p == '#' || *p == '^' || *p == '/' || *p == '!') ? *p++ : 0;
	if (t->kind == '!')
		return true;
	while (p < close && *p == ' ')
		p++;
	const char *q = close;
	while (q > p && q[-1] == ' ')
		q--;
	if (q == p || q - p > NAME_MAX_CHARS)
		die(r, "empty or overlong tag name");
	for (const char *c = p; c < q; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
			die(r, "tag names are letters, digits and _");
	t->name = p;
	t->name_len = (size_t)(q - p);
	return true;
}

/* The {{/name}} closing the section opened by t (sections may nest). */
static struct tag section_end(const struct render *r, const struct tag *open, const char *end)
{
	int depth = 1;
	struct tag t;
	const char *s = open->end;
	while (next_tag(r, s, end, &t)) {
		s = t.end;
		if (t.kind == 0 || t.kind == '!' || t.name_len != open->name_len ||
		    memcmp(t.name, open->name, t.name_len))
			continue;
		depth += t.kind == '/' ? -1 : 1;
		if (depth == 0)
			return t;
	}
	die(r, "section without {{/...}}");
	return t;
}

static void put_value(struct render *r, const struct tmpl_var *v)
{
	if (!v)
		return;
	if (v->html)
		(void)buf_append(&r->out, v->html->s, v->html->len);
	else if (v->text)
		(void)html_escape(&r->out, v->text);
}

static void render_range(struct render *r, const char *s, const char *end)
{
	struct tag t;
	while (next_tag(r, s, end, &t)) {
		(void)buf_append(&r->out, s, (size_t)(t.start - s));
		s = t.end;
		if (t.kind == '!')
			continue;
		if (t.kind == '/')
			die(r, "{{/...}} without its section");
		const struct tmpl_var *v = lookup(r, t.name, t.name_len);
		if (t.kind == 0) {
			put_value(r, v);
			continue;
		}
		struct tag close = section_end(r, &t, end);
		if (truthy(v) == (t.kind == '#'))
			render_range(r, t.end, close.start);
		s = close.end;
	}
	(void)buf_append(&r->out, s, (size_t)(end - s));
}

static const struct html *finish(struct arena *a, struct buf *b)
{
	struct html *h = arena_alloc(a, sizeof(*h));
	h->len = b->len;
	h->s = arena_strndup(a, buf_str(b), b->len);
	buf_done(b);
	return h;
}

const struct html *tmpl_render_text(struct arena *a, const char *tmpl, const struct tmpl_var *vars, size_t n)
{
	struct render r = {.vars = vars, .n = n, .tmpl_name = "(text)"};
	buf_init(&r.out, PAGE_MAX);
	render_range(&r, tmpl, tmpl + strlen(tmpl));
	return finish(a, &r.out);
}

const struct html *tmpl_render(struct arena *a, const char *name, const struct tmpl_var *vars, size_t n)
{
	const struct web_asset *t = web_asset_find(name, false);
	if (!t) {
		fprintf(stderr, "loadline: no template %s\n", name);
		abort();
	}
	struct render r = {.vars = vars, .n = n, .tmpl_name = name};
	buf_init(&r.out, PAGE_MAX);
	render_range(&r, t->data, t->data + t->len);
	return finish(a, &r.out);
}

const struct html *html_text(struct arena *a, const char *text)
{
	struct buf b;
	buf_init(&b, PAGE_MAX);
	(void)html_escape(&b, text);
	return finish(a, &b);
}

const struct html *html_empty(void)
{
	static const struct html empty = {"", 0};
	return &empty;
}

bool html_is_empty(const struct html *h)
{
	return !h || h->len == 0;
}

const char *html_str(const struct html *h)
{
	return h ? h->s : "";
}

size_t html_len(const struct html *h)
{
	return h ? h->len : 0;
}

struct html_list {
	struct buf b;
	struct arena *a;
};

static void list_cleanup(void *p)
{
	buf_done(&((struct html_list *)p)->b);
}

struct html_list *html_list_new(struct arena *a)
{
	struct html_list *l = arena_alloc(a, sizeof(*l));
	buf_init(&l->b, PAGE_MAX);
	l->a = a;
	arena_cleanup(a, list_cleanup, l);
	return l;
}

void html_list_add(struct html_list *l, const struct html *h)
{
	if (h)
		(void)buf_append(&l->b, h->s, h->len);
}

const struct html *html_list_done(struct html_list *l)
{
	struct html *h = arena_alloc(l->a, sizeof(*h));
	h->len = l->b.len;
	h->s = arena_strndup(l->a, buf_str(&l->b), l->b.len);
	return h;
}
