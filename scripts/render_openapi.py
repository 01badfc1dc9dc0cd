#!/usr/bin/env python3
"""Renders docs/openapi.json into one static, readable HTML page (the API
reference served at {docs_url}/api) and writes it as a C file embedded into
the binary.  Run by meson at build time; no JavaScript, no third-party viewer:
    render_openapi.py OPENAPI.json OUTPUT.c [OUTPUT.html]
"""
import html
import json
import re
import sys

METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
STYLE = """
body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d2430}
code{background:#eef1f5;padding:0 .25em;border-radius:3px}h2{margin-top:2.5rem;border-bottom:2px solid #dde}
h3{margin-top:2rem}.m{display:inline-block;min-width:3.5rem;font:600 .8rem monospace;text-transform:uppercase;
padding:.15rem .4rem;border-radius:3px;color:#fff;background:#1a56b0;text-align:center}.post{background:#1d7a3a}
table{border-collapse:collapse;width:100%;margin:.5rem 0}td,th{padding:.3rem .6rem;border-bottom:1px solid #dde;
text-align:left;vertical-align:top}th{font-size:.85rem;color:#555}a{color:#1a56b0}nav li{list-style:none}
pre{background:#f5f7fa;padding:.6rem .8rem;border-radius:4px;overflow-x:auto;font-size:.85rem}
nav ul{padding-left:1rem}.req{color:#b02a1a;font-size:.8rem}
"""


def esc(s):
    return html.escape(str(s), quote=True)


def prose(s):
    """Escapes text and renders `code` spans."""
    return re.sub(r"`([^`]+)`", lambda m: "<code>%s</code>" % m.group(1), esc(s or ""))


def anchor(*parts):
    return re.sub(r"[^A-Za-z0-9]+", "-", "-".join(parts)).strip("-").lower()


class Doc:
    def __init__(self, doc):
        self.doc = doc

    def deref(self, o):
        while isinstance(o, dict) and "$ref" in o:
            node = self.doc
            for part in o["$ref"].lstrip("#/").split("/"):
                node = node[part]
            o = node
        return o

    def type_of(self, s):
        """A short type text with links to named schemas."""
        if not isinstance(s, dict):
            return ""
        if "$ref" in s:
            name = s["$ref"].rsplit("/", 1)[1]
            return '<a href="#schema-%s">%s</a>' % (anchor(name), esc(name))
        if "allOf" in s:
            return " & ".join(self.type_of(x) for x in s["allOf"] if self.type_of(x))
        for key in ("oneOf", "anyOf"):
            if key in s:
                return " | ".join(self.type_of(x) for x in s[key])
        if "const" in s:
            return "<code>%s</code>" % esc(json.dumps(s["const"]))
        if "enum" in s:
            return " | ".join("<code>%s</code>" % esc(json.dumps(v)) for v in s["enum"])
        t = s.get("type", "")
        if isinstance(t, list):
            t = " | ".join(t)
        if t == "array":
            return "array of " + self.type_of(s.get("items", {}))
        return esc(t)

    def params(self, op):
        rows = []
        for p in op.get("parameters", []):
            p = self.deref(p)
            rows.append("<tr><td><code>%s</code>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>" % (
                esc(p["name"]), ' <span class="req">required</span>' if p.get("required") else "",
                esc(p["in"]), self.type_of(p.get("schema", {})), prose(p.get("description"))))
        if not rows:
            return ""
        return ("<h4>Parameters</h4><table><tr><th>Name</th><th>In</th><th>Type</th><th>Description</th></tr>"
                + "".join(rows) + "</table>")

    def body(self, op):
        rb = self.deref(op.get("requestBody"))
        if not rb:
            return ""
        out = ["<h4>Request body</h4><p>%s</p>" % prose(rb.get("description"))]
        for ctype, media in rb.get("content", {}).items():
            out.append("<p><code>%s</code>: %s</p>" % (esc(ctype), self.type_of(media.get("schema", {}))))
            out.append(self.properties(self.deref(media.get("schema", {}))))
        return "".join(out)

    def responses(self, op):
        rows = []
        for status, r in op.get("responses", {}).items():
            r = self.deref(r)
            types = ", ".join("<code>%s</code> %s" % (esc(c), self.type_of(m.get("schema", {})))
                              for c, m in r.get("content", {}).items())
            hdrs = ", ".join("<code>%s</code>" % esc(h) for h in r.get("headers", {}))
            rows.append("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>" % (
                esc(status), prose(r.get("description")), types, hdrs))
        return ("<h4>Responses</h4><table><tr><th>Status</th><th>Meaning</th><th>Body</th><th>Headers</th></tr>"
                + "".join(rows) + "</table>")

    def examples(self, op):
        """The request body's example and the first success response's."""
        shown = []
        body = self.deref(op.get("requestBody", {})) if op.get("requestBody") else {}
        for ctype, m in body.get("content", {}).items():
            if "example" in m:
                shown.append(("Request body (%s)" % ctype, m["example"]))
        for status, r in op.get("responses", {}).items():
            r = self.deref(r)
            if not status.startswith("2"):
                continue
            for ctype, m in r.get("content", {}).items():
                if "example" in m:
                    shown.append(("%s response (%s)" % (status, ctype), m["example"]))
            break
        return "".join("<h4>Example: %s</h4><pre><code>%s</code></pre>" % (
            esc(title), esc(json.dumps(ex, indent=2, ensure_ascii=False))) for title, ex in shown)

    def properties(self, s):
        props = s.get("properties") if isinstance(s, dict) else None
        if not props:
            return ""
        req = set(s.get("required", []))
        rows = "".join("<tr><td><code>%s</code>%s</td><td>%s</td><td>%s</td></tr>" % (
            esc(k), ' <span class="req">required</span>' if k in req else "", self.type_of(v),
            prose(v.get("description") if isinstance(v, dict) else "")) for k, v in props.items())
        return "<table><tr><th>Field</th><th>Type</th><th>Description</th></tr>%s</table>" % rows

    def operations(self):
        for path, item in self.doc.get("paths", {}).items():
            for method in METHODS:
                if method in item:
                    yield path, method, item[method]

    def render(self):
        info = self.doc["info"]
        ops = list(self.operations())
        tags = []
        for _, _, op in ops:
            for t in op.get("tags", ["Other"]):
                if t not in tags:
                    tags.append(t)
        out = ['<!doctype html><html lang="en"><head><meta charset="utf-8">'
               '<meta name="viewport" content="width=device-width,initial-scale=1">'
               "<title>%s %s — reference</title><style>%s</style></head><body>" % (
                   esc(info["title"]), esc(info["version"]), STYLE),
               "<h1>%s <small>%s</small></h1><p>%s</p>" % (esc(info["title"]), esc(info["version"]),
                                                          prose(info.get("description"))),
               '<p>Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> · '
               'Error codes: <a href="api/errors/">every code</a></p><nav><h2>Contents</h2><ul>']
        for t in tags:
            out.append("<li><strong>%s</strong><ul>" % esc(t))
            for path, method, op in ops:
                if t in op.get("tags", ["Other"]):
                    out.append('<li><a href="#%s"><span class="m %s">%s</span> <code>%s</code></a> %s</li>' % (
                        anchor(method, path), method, method, esc(path), esc(op.get("summary", ""))))
            out.append("</ul></li>")
        out.append('<li><a href="#schemas"><strong>Schemas</strong></a></li></ul></nav>')
        for t in tags:
            out.append("<h2>%s</h2>" % esc(t))
            for path, method, op in ops:
                if t not in op.get("tags", ["Other"]):
                    continue
                out.append('<h3 id="%s"><span class="m %s">%s</span> <code>%s</code></h3>' % (
                    anchor(method, path), method, method, esc(path)))
                out.append("<p><strong>%s</strong> (<code>%s</code>)%s</p><p>%s</p>" % (
                    esc(op.get("summary", "")), esc(op.get("operationId", "")),
                    " — no token" if op.get("security") == [] else "", prose(op.get("description"))))
                out += [self.params(op), self.body(op), self.responses(op), self.examples(op)]
        out.append('<h2 id="schemas">Schemas</h2>')
        for name, s in self.doc.get("components", {}).get("schemas", {}).items():
            out.append('<h3 id="schema-%s">%s</h3><p>%s</p><p>Type: %s</p>%s' % (
                anchor(name), esc(name), prose(s.get("description")), self.type_of(
                    {k: v for k, v in s.items() if k != "description"} if "properties" not in s
                    else {"type": s.get("type", "object")}), self.properties(s)))
        out.append("</body></html>\n")
        return "".join(out)


def main():
    src, out_c = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as f:
        page = Doc(json.load(f)).render().encode("utf-8")
    if len(sys.argv) > 3:
        with open(sys.argv[3], "wb") as f:
            f.write(page)
    body = ",".join(str(b) for b in page + b"\0")
    with open(out_c, "w") as f:
        f.write("/* Generated by scripts/render_openapi.py from docs/openapi.json; do not edit. */\n"
                '#include <stddef.h>\n#include "api/docs.h"\n\n'
                "const char docs_api_reference_html[] = {%s};\n"
                "const size_t docs_api_reference_len = %d;\n" % (body, len(page)))


if __name__ == "__main__":
    main()
