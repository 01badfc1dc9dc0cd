"""The API client's gh-like commands (PRODUCT §17, issue 30 item 1) against
the real server: `loadline runs view ID`, `results ID`, `failed-rows ID`,
`rerun ID`, `whoami`, `webhooks list|add|delete|test`, and `push --results
DIR` checked before the upload.  Each reads the API a user could call by
hand; these tests compare what they print with what the API says."""
import csv
import io
import json
import re
import subprocess

from harness.jobs import csv_bytes, row, rows, wait_run
from harness.server import loadline_bin, sanitizer_reports
from .test_push import _env, push


def ll(srv, *args, token=None, cwd=None, env=None):
    """Runs `loadline ARGS` without a terminal: (rc, stdout bytes, stderr)."""
    p = subprocess.run([loadline_bin()] + list(args), capture_output=True, env=env or _env(srv, token),
                       timeout=120, cwd=cwd)
    err = p.stderr.decode()
    assert not sanitizer_reports(err), err
    return p.returncode, p.stdout, err


def partial_run(srv, tmp_path, job="J-VIEW"):
    """A PARTIAL run: two rows fail on the same bad date, one on a missing
    load number; its id."""
    recs = rows(2, job=job) + [row(3, job=job, loadDate="31/31/2026"), row(4, job=job, loadDate="31/31/2026"),
                               row(5, job=job, loadNo="")]
    rc, out, err = push(srv, tmp_path, csv_bytes(recs), "--json")
    assert rc == 2, (out, err)
    return json.loads(out)["id"]


def test_runs_view_shows_state_counts_problems_and_links(server, tmp_path):
    run_id = partial_run(server, tmp_path)
    rc, out, err = ll(server, "runs", "view", run_id)
    assert rc == 0, err
    text = out.decode()
    assert text.startswith(run_id + "  PARTIAL"), text
    assert "counts:       2 succeeded, 0 warnings, 3 failed, 0 skipped" in text, text
    # The grouped problems, as GET .../problems says: 2 rows of one date.
    assert "    2 rows  TYPE_MISMATCH      loadDate       \"31/31/2026\"" in text, text
    assert "MISSING_REQUIRED" in text
    assert "run page:     %s/imports/runs/%s" % (server.base_url, run_id) in text, text
    assert "loadline failed-rows %s" % run_id in text
    rc, out, _ = ll(server, "runs", "view", run_id, "--json")
    both = json.loads(out)
    api = server.get("/api/v1/imports/runs/%s/problems" % run_id).json()["data"]
    assert both["run"]["id"] == run_id and both["problems"] == api


def test_runs_view_refuses_what_is_not_a_run(server, tmp_path, foreign_token):
    """`runs view` without an id, with a path-like id, an unknown id, and
    `runs` with a stray argument: exit 1 and a message, never the list."""
    assert ll(server, "runs", "view")[0] == 1
    rc, out, err = ll(server, "runs", "view", "../../whoami")
    assert rc == 1 and "not a run id" in err and not out, err
    rc, out, err = ll(server, "runs", "view", "run_doesnotexist")
    assert rc == 1 and "404 NOT_FOUND" in err, err
    rc, out, err = ll(server, "runs", "vew", "run_x")
    assert rc == 1 and "usage" in err and not out, (out, err)
    run_id = partial_run(server, tmp_path, job="J-FOREIGN")
    rc, _, err = ll(server, "runs", "view", run_id, token=foreign_token)
    assert rc == 1 and "401" in err


def test_results_all_buckets_one_bucket_and_json(server, tmp_path):
    run_id = partial_run(server, tmp_path, job="J-RES")
    rc, out, err = ll(server, "results", run_id)
    assert rc == 0, err
    lines = [ln.split("\t") for ln in out.decode().splitlines()]
    assert sorted({ln[0] for ln in lines}) == ["failed", "succeeded"], lines
    failed = [ln for ln in lines if ln[0] == "failed"]
    assert [(ln[1], ln[4]) for ln in failed] == [("4", "TYPE_MISMATCH"), ("5", "TYPE_MISMATCH"),
                                                 ("6", "MISSING_REQUIRED")], failed
    rc, out, _ = ll(server, "results", run_id, "--bucket", "failed")
    assert rc == 0 and all(ln.startswith("failed\t") for ln in out.decode().splitlines())
    rc, out, _ = ll(server, "results", run_id, "--json")
    entries = json.loads(out)
    api = server.get("/api/v1/imports/runs/%s/results/failed" % run_id).json()["data"]
    assert [e["result"] for e in entries if e["bucket"] == "failed"] == api
    assert ll(server, "results", run_id, "--bucket", "broken")[0] == 1


def test_failed_rows_format_follows_the_file_name(server, tmp_path):
    run_id = partial_run(server, tmp_path, job="J-FIX")
    rc, _, err = ll(server, "failed-rows", run_id, "-o", str(tmp_path / "fix.xlsx"))
    assert rc == 0, err
    assert (tmp_path / "fix.xlsx").read_bytes()[:2] == b"PK"
    rc, _, err = ll(server, "failed-rows", run_id, "-o", str(tmp_path / "fix.csv"))
    body = (tmp_path / "fix.csv").read_bytes()
    assert rc == 0 and body.startswith(b"\xef\xbb\xbf"), err
    table = list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
    assert table[0][-1] == "errors" and len(table) == 4, table
    # No -o: the server's file name, in the current directory.
    rc, _, err = ll(server, "failed-rows", run_id, cwd=str(tmp_path))
    assert rc == 0 and (tmp_path / "loads-failed-rows.csv").exists(), err
    # An existing file is kept unless --force.
    rc, _, err = ll(server, "failed-rows", run_id, cwd=str(tmp_path))
    assert rc == 1 and "--force" in err, err
    assert ll(server, "failed-rows", run_id, "--force", cwd=str(tmp_path))[0] == 0
    rc, out, _ = ll(server, "failed-rows", run_id, "-o", "-")
    assert rc == 0 and out.startswith(b"\xef\xbb\xbf")
    rc, _, err = ll(server, "failed-rows", run_id, "-o", str(tmp_path / "fix.pdf"))
    assert rc == 1 and ".xlsx or .csv" in err, err


def test_rerun_makes_a_new_run_of_the_stored_file(server, tmp_path):
    run_id = partial_run(server, tmp_path, job="J-RERUN")
    rc, out, err = ll(server, "rerun", run_id, "--json")
    assert rc == 0, err
    new = json.loads(out)
    assert new["id"] != run_id and new["id"].startswith("run_"), new
    rc, out, err = ll(server, "rerun", run_id)
    assert rc in (0, 1), err   # the first rerun may still be active: 409 IMPORT_IN_PROGRESS
    assert rc == 0 or "409 IMPORT_IN_PROGRESS" in err, err


def test_revert_undoes_a_run_and_runs_view_says_who(server, tmp_path):
    """`loadline revert ID` (PRODUCT §17): a revert run removes the Loads
    the run created; --dry-run writes nothing; `runs view` names who made
    the run (createdBy)."""
    org = server.new_org("Revert CLI")
    rc, out, err = push(server, tmp_path, csv_bytes(rows(3, job="J-REV")), "--json", token=org.token)
    assert rc == 0, err
    run_id = json.loads(out)["id"]
    assert server.get("/api/v1/imports/runs/%s/results/succeeded" % run_id, token=org.token).json()["data"]
    rc, out, err = ll(server, "runs", "view", run_id, token=org.token)
    assert rc == 0 and "by:           token " in out.decode(), out
    rc, out, err = ll(server, "revert", run_id, "--dry-run", "--json", token=org.token)
    assert rc == 0, err
    dry = json.loads(out)
    assert dry["revertOf"] == run_id and dry["dryRun"] is True, dry
    wait_run(server, dry["id"], token=org.token)
    loads = [e["createdRecordIds"][0] for e in
             server.get("/api/v1/imports/runs/%s/results/succeeded" % run_id, token=org.token).json()["data"]]
    assert all(server.get("/api/v1/loads/" + l, token=org.token).status_code == 200 for l in loads)
    rc, out, err = ll(server, "revert", run_id, token=org.token)
    assert rc == 0 and out.decode().startswith("run_"), (out, err)
    wait_run(server, out.decode().split()[0], token=org.token)
    assert all(server.get("/api/v1/loads/" + l, token=org.token).status_code == 404 for l in loads)
    rc, _, err = ll(server, "revert", "run_doesnotexist", token=org.token)
    assert rc == 1 and "404 NOT_FOUND" in err, err


def test_whoami_names_the_organization_and_key(server, foreign_token):
    rc, out, err = ll(server, "whoami")
    assert rc == 0, err
    me = server.get("/api/v1/whoami").json()
    text = out.decode()
    assert "organization: %s (%s)" % (me["organization"]["name"], me["organization"]["id"]) in text, text
    assert me["prefix"] in text and me["id"] in text
    rc, out, err = ll(server, "whoami", token=foreign_token)
    assert rc == 1 and "401 UNAUTHORIZED" in err and not out, err
    rc, out, _ = ll(server, "whoami", "--json")
    assert json.loads(out)["organization"]["id"] == me["organization"]["id"]


def test_webhooks_add_list_test_delete(server):
    org = server.new_org("Webhook CLI")
    rc, out, err = ll(server, "webhooks", "add", "https://hooks.example.com/loadline", "--events",
                      "import_run.completed", token=org.token)
    assert rc == 0, err
    text = out.decode()
    assert "secret: whsec_" in text, text
    listed = server.get("/api/v1/webhook-endpoints", token=org.token).json()["data"]
    assert len(listed) == 1 and listed[0]["events"] == ["import_run.completed"], listed
    whe = listed[0]["id"]
    rc, out, _ = ll(server, "webhooks", "list", token=org.token)
    assert out.decode().split("\t")[:3] == [whe, "enabled", "import_run.completed"], out
    rc, out, err = ll(server, "webhooks", "test", whe, token=org.token)
    assert rc == 0 and "queued a webhook.test event" in out.decode(), err
    # Issue 30: disable, enable, rotate-secret, attempts.
    rc, out, err = ll(server, "webhooks", "disable", whe, token=org.token)
    assert rc == 0 and out.decode() == "disabled %s\n" % whe, err
    assert server.get("/api/v1/webhook-endpoints/" + whe, token=org.token).json()["status"] == "disabled"
    rc, out, err = ll(server, "webhooks", "enable", whe, token=org.token)
    assert rc == 0 and out.decode() == "enabled %s\n" % whe, err
    assert server.get("/api/v1/webhook-endpoints/" + whe, token=org.token).json()["status"] == "enabled"
    rc, out, err = ll(server, "webhooks", "rotate-secret", whe, token=org.token)
    assert rc == 0 and re.search(r"^secret: whsec_\S+\n\(shown once; the old secret keeps signing beside it "
                                 r"until 20\d\d-", out.decode()), (out, err)
    rc, out, err = ll(server, "webhooks", "attempts", whe, "--json", token=org.token)
    assert rc == 0 and isinstance(json.loads(out), list), err
    assert ll(server, "webhooks", "enable", "whe_0000000000000000000000", token=org.token)[0] == 1
    # Another organization's endpoint is 404, through the API and the CLI.
    r = server.post("/api/v1/webhook-endpoints/%s/test" % whe)
    assert r.status_code == 404 and r.json()["code"] == "NOT_FOUND", r.text
    assert ll(server, "webhooks", "delete", whe)[0] == 1
    rc, out, err = ll(server, "webhooks", "delete", whe, token=org.token)
    assert rc == 0 and "deleted" in out.decode(), err
    assert server.get("/api/v1/webhook-endpoints", token=org.token).json()["data"] == []
    assert ll(server, "webhooks", "frobnicate", token=org.token)[0] == 1
    rc, _, err = ll(server, "webhooks", "add", "http://hooks.example.com/x", token=org.token)
    assert rc == 1 and "INVALID_WEBHOOK_URL" in err, err


def test_push_results_dir_is_checked_before_the_upload(server, tmp_path):
    """--results naming a file (not a directory) fails before anything is
    uploaded: no run is created."""
    org = server.new_org("Results dir")
    blocker = tmp_path / "taken"
    blocker.write_text("a file")
    rc, out, err = push(server, tmp_path, csv_bytes(rows(1, job="J-DIR")), "--results", str(blocker),
                        token=org.token)
    assert rc == 1 and "not a directory" in err, (out, err)
    assert server.get("/api/v1/imports/runs", token=org.token).json()["data"] == []
    rc, out, err = push(server, tmp_path, csv_bytes(rows(1, job="J-DIR")), "--results", str(tmp_path / "new"),
                        token=org.token)
    assert rc == 0 and (tmp_path / "new" / "succeeded.csv").exists(), (out, err)


def complete(line, repo_root):
    """What bash completion offers for `line` (the word being typed last)."""
    import os
    words = line.split(" ")
    script = os.path.join(repo_root, "packaging", "bash-completion", "loadline")
    bash = ('source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _loadline; echo "${COMPREPLY[*]}"'
            % (script, " ".join("'%s'" % w for w in words), len(words) - 1))
    p = subprocess.run(["bash", "-c", bash], capture_output=True, timeout=30,
                       env={"PATH": os.path.dirname(loadline_bin()) + ":/usr/bin:/bin"})
    assert p.returncode == 0, p.stderr
    return p.stdout.decode().split()


def test_bash_completion_offers_commands_subcommands_and_options():
    """The completion script the package installs (meson.build:
    /usr/share/bash-completion/completions/loadline) completes commands,
    `runs view`, `webhooks` verbs, options, buckets and admin commands."""
    import os
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    assert complete("loadline re", root) == ["results", "rerun", "revert"]
    assert complete("loadline runs ", root) == ["view"]
    assert complete("loadline webhooks ", root) == ["list", "add", "delete", "test", "enable", "disable",
                                                    "rotate-secret", "attempts"]
    assert complete("loadline results run_x --bucket f", root) == ["failed"]
    assert "--results" in complete("loadline push --", root)
    assert "mint-token" in complete("loadline admin mi", root)
