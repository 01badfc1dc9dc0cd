"""Mapping from values and learning from confirmations (PRODUCT §14
"Mapping from values, not only headers", "Learning from confirmations";
issue 26 items 6 and 7), on both backends: what the review screen
proposes and says, what a dry run imports with the proposal, and
Settings → Column mapping."""
import re

from harness.jobs import awaiting_review, wait_run
from web.webtools import forms, signin, text_of, upload


def review_path(run):
    return "/imports/runs/%s/review" % run["id"]


def staged(srv, text, name="loads.csv"):
    """Uploaded and staged: nextAction shows once a worker has read the
    file (issue 27 item 9), not in the 202."""
    run = awaiting_review(srv, upload(srv, text, name=name)["id"])
    assert run["state"] == "QUEUED" and "nextAction" in run, run
    return run


def proposal(w, run):
    """The review form's fields (col<i> -> field) and, per column, the
    reason code and the sentence saying why."""
    r = w.get(review_path(run))
    assert r.status_code == 200, r.text[:500]
    f = forms(r.text).find(review_path(run))
    why = re.findall(r'<div class="why small" data-reason="([a-z]+)">([^<]*)</div>', r.text)
    return f["fields"], why, r.text


def test_unknown_header_with_unique_codes_gets_load_no_guessed_from_values(server):
    """A required field no header names (loadNo under "Frachtbrief") takes
    the column whose values fit it best — distinct codes — marked "guessed
    from the values" with three sample values; a dry run imports with it."""
    text = "Job #,Frachtbrief,Ship Date,Remarks\n" + "".join(
        "J-7,FB-10%02d,2026-11-0%d,note %d\n" % (i, 1 + i % 9, i) for i in range(6))
    run = staged(server, text)
    w = signin(server)
    fields, why, html = proposal(w, run)
    assert fields["col1"] == "loadNo", fields
    assert why[1][0] == "guessed"
    assert "Guessed from the values (unique codes)" in why[1][1]
    assert why[0][0] == "synonym" and why[3][0] == "synonym"
    t = text_of(html)
    assert "FB-1000" in t and "FB-1001" in t and "FB-1002" in t and "FB-1003" not in t
    other = text.replace("FB-10", "FB-20")   # another file: the staged one is still active
    dry = server.post("/api/v1/imports/jobs", files={"file": ("d.csv", other.encode(), "text/csv")},
                      headers={"Service-Dry-Run": "true"}).json()
    done = wait_run(server, dry["id"])
    assert done["state"] == "SUCCEEDED" and done["counts"]["succeeded"] == 6, done


def test_creation_timestamp_never_takes_load_date_beside_a_ship_date(server):
    """A creation or modification timestamp never takes loadDate while a
    ship, pickup, load or delivery date column exists; the review says why
    it is ignored.  Alone, a date column no header names is guessed."""
    text = "Job #,Load #,Date Created,Delivery Date\n" + "".join(
        "J1,L%d,2026-10-2%d 14:0%d,2026-11-0%d\n" % (i, i, i, 1 + i) for i in range(4))
    run = staged(server, text)
    w = signin(server)
    fields, why, _ = proposal(w, run)
    assert fields["col3"] == "loadDate" and not fields.get("col2"), fields
    assert why[2][0] == "timestamp" and "creation or modification time" in why[2][1]
    alone = "Job #,Load #,Verladetag\n" + "".join("J1,M%d,2026-11-0%d\n" % (i, 1 + i) for i in range(4))
    fields, why, _ = proposal(w, staged(server, alone, name="alone.csv"))
    assert fields["col2"] == "loadDate" and why[2][0] == "guessed", (fields, why)


def learned_rows(w):
    r = w.get("/settings/column-mapping")
    assert r.status_code == 200, r.text[:500]
    return r.text


def test_confirmation_teaches_the_org_and_settings_forgets(server):
    """Confirming a mapping with one column changed teaches the org: the
    header is proposed that way in a later new shape ("learned"); Settings →
    Column mapping lists it (header, field, when, by whom) and forgetting it
    brings the plain proposal back."""
    w = signin(server)
    first = "Haul Code,Load Number,Ship Date,Remarks\n" + "".join(
        "H-%d,L%d,2026-11-0%d,x\n" % (i % 2, i, 1 + i) for i in range(3))
    run = staged(server, first)
    fields, _, _ = proposal(w, run)
    assert not fields.get("col0")                       # nothing names a field
    r = w.submit(review_path(run), review_path(run), col0="jobCode", col3="")
    assert r.status_code == 303, r.text[:800]
    assert wait_run(server, run["id"])["state"] == "SUCCEEDED"
    page = learned_rows(w)
    t = text_of(page)
    assert "Haul Code jobCode" in t and "Remarks Ignore" in t and "Load Number loadNo" in t
    assert server.org.admin_email in t or "Admin" in t or "admin" in t
    second = "Load Number,Haul Code,Ship Date,Remarks,Truck\n" + "".join(
        "N%d,H-1,2026-11-0%d,y,T%d\n" % (i, 1 + i, i) for i in range(3))
    run2 = staged(server, second, name="second.csv")
    fields, why, _ = proposal(w, run2)
    assert fields["col1"] == "jobCode" and why[1][0] == "learned", (fields, why)
    assert not fields.get("col3") and why[3][0] == "learned"   # Remarks: left on Ignore, learned so
    f = [x for x in forms(page).forms if x["action"] == "/settings/column-mapping/forget"]
    haul = [x for x in f if x["fields"].get("key") == "haul code"]
    assert len(haul) == 1, f
    r = w.post("/settings/column-mapping/forget", data=haul[0]["fields"])
    assert r.status_code == 303 and r.headers["Location"].endswith("/settings/column-mapping?forgot=1")
    assert "Haul Code" not in text_of(learned_rows(w))
    third = "Haul Code,Load #,Ship Date\n" + "".join("H-1,Q%d,2026-11-0%d\n" % (i, 1 + i) for i in range(3))
    fields, why, _ = proposal(w, staged(server, third, name="third.csv"))
    assert not fields.get("col0") and why[0][0] != "learned", (fields, why)
    bad = w.post("/settings/column-mapping/forget", data=dict(haul[0]["fields"]))
    assert bad.status_code == 404


def test_column_mapping_settings_are_for_admins(server):
    """Settings → Column mapping is an admin page, like webhooks."""
    from web.webtools import add_member
    email = add_member(server)
    w = signin(server, email)
    assert w.get("/settings/column-mapping").status_code == 403


def test_confirming_from_the_command_line_teaches_too(server):
    """`loadline admin confirm-run` without --email has no user: the
    headers are learned all the same, and Settings says an operator did it
    (the learned_by column is required; a NULL failed the confirmation)."""
    run = staged(server, "Trip Ref,Haul Day,Product\nT-1,2026-11-02,Sand\n", name="cli.csv")
    server.cli.admin("confirm-run", run["id"], "--map", "Trip Ref=loadNo,Haul Day=loadDate,Product=material")
    page = learned_rows(signin(server))
    assert "Trip Ref" in page and "an operator (loadline admin confirm-run)" in page, text_of(page)[:800]
