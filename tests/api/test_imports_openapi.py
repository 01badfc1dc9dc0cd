"""The OpenAPI document grows with the import endpoints (issue 4 item 5;
PRODUCT §2: GET /api/v1/openapi.json describes every endpoint)."""
import re


def _paths(doc):
    return {re.sub(r"\{[^}]*\}", "{}", re.sub(r"^/api", "", p)) for p in doc.get("paths", {})}


def test_openapi_lists_import_and_read_endpoints(module_server):
    """PRODUCT §2 + SPEC "Endpoints": every endpoint path is in the OpenAPI."""
    r = module_server.get("/api/v1/openapi.json", token=None)
    assert r.status_code == 200
    doc = r.json()
    paths = _paths(doc)
    want = ["/v1/imports/runs/{}", "/v1/imports/runs/{}/results/{}", "/v1/imports/runs",
            "/v1/loads/{}", "/v1/projects/{}", "/v1/locations", "/v1/whoami"]
    missing = [p for p in want if p not in paths]
    assert not missing, "missing %s in %s" % (missing, sorted(paths))
    assert "/v1/imports/{}" in paths or "/v1/imports/jobs" in paths, sorted(paths)
    raw = {re.sub(r"^/api", "", p): v for p, v in doc["paths"].items()}
    upload = raw.get("/v1/imports/jobs") or next(v for p, v in raw.items()
                                                 if re.fullmatch(r"/v1/imports/\{[^}]+\}", p))
    assert "post" in upload, upload.keys()
    assert "202" in upload["post"].get("responses", {}), upload["post"].get("responses", {}).keys()
