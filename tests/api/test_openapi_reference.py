"""The API reference page at {docs_url}/api (issue 14 item 5): readable
HTML rendered at build time from docs/openapi.json, with no JavaScript,
naming every operation of the document the server serves."""
import html
import re


def test_reference_page_lists_every_operation(module_server):
    doc = module_server.get("/api/v1/openapi.json", token=None).json()
    r = module_server.get("/docs/api", token=None)
    assert r.status_code == 200, r.text[:300]
    assert r.headers["Content-Type"].startswith("text/html")
    page = html.unescape(r.text)
    assert "<script" not in page.lower()
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    assert "post /api/v1/imports/jobs" in text, "the SPEC's upload path, as written"
    for path, item in doc["paths"].items():
        for method, op in item.items():
            assert path in page, path
            assert op["operationId"] in page, op["operationId"]
    for name in doc["components"]["schemas"]:
        assert 'id="schema-%s"' % name.lower() in r.text, name
    assert '<a href="api/errors/">' in r.text
    assert module_server.request("HEAD", "/docs/api", token=None).status_code == 200
