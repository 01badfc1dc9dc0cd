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


def test_docs_home_examples_and_real_urls(start_server):
    """Issue 30 item 4: {docs_url} itself answers (it was a 404) with links
    to the reference and the error codes; the reference shows each
    operation's example and this installation's URLs, not the
    {docs_url} / {app_url} placeholders of the document's text."""
    srv = start_server(env={"LOADLINE_DOCS_URL": "https://docs.loadline.test/docs",
                            "LOADLINE_APP_URL": "https://app.loadline.test"})
    r = srv.get("/docs", token=None, allow_redirects=False)
    assert r.status_code == 308 and r.headers["Location"] == "/docs/", r.headers
    home = srv.get("/docs/", token=None)
    assert home.status_code == 200 and 'href="api"' in home.text and 'href="api/errors/"' in home.text
    page = html.unescape(srv.get("/docs/api", token=None).text)
    assert "{docs_url}" not in page and "{app_url}" not in page
    assert "https://docs.loadline.test/docs/api/errors/" in page and "https://app.loadline.test" in page
    assert "Example: 200 response (application/json)" in page
    assert '"object": "import_run"' in page
