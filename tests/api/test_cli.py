"""Operator commands on both backends (PRODUCT §1 `loadline admin ...`;
issue 2 item 7; lead's CLI output contract: ids/tokens alone on stdout,
errors exit 1 with a message on stderr, usage errors exit 2)."""
import re

import pytest

from harness.checks import TOKEN_RE, assert_id


def test_admin_commands_print_ids(cli):
    """PRODUCT §1: create-org, add-user (admin/member), mint-token,
    add-customer, add-branch, add-location, set-approvers, list-tokens."""
    org = cli.admin("create-org", "--name", "Acme Freight").line
    assert_id(org, "org")
    org2 = cli.admin("create-org", "--name", "Acme Freight").line
    assert_id(org2, "org")
    assert org2 != org
    admin = cli.admin("add-user", "--org", org, "--email", "ada@example.com",
                      "--name", "Ada Lovelace", "--role", "admin").line
    member = cli.admin("add-user", "--org", org, "--email", "bob@example.com",
                       "--name", "Bob Member", "--role", "member").line
    assert_id(admin, "usr")
    assert_id(member, "usr")
    assert admin != member
    t1 = cli.admin("mint-token", "--org", org, "--name", "ci").line
    t2 = cli.admin("mint-token", "--org", org).line
    assert TOKEN_RE.match(t1) and TOKEN_RE.match(t2) and t1 != t2
    cus = cli.admin("add-customer", "--org", org, "--name", "Granite Works LLC").line
    brn = cli.admin("add-branch", "--org", org, "--name", "North Yard").line
    assert_id(cus, "cus")
    assert_id(brn, "brn")
    loc = cli.admin("add-location", "--org", org, "--name", "Main Quarry",
                    "--street", "100 Rock Rd", "--city", "Austin", "--state", "TX",
                    "--zip", "78701").line
    assert_id(loc, "loc")
    r = cli.admin("set-approvers", "--org", org, "--emails", "ops@example.com,x@y.org")
    assert r.out == ""
    r = cli.admin("set-approvers", "--org", org, "--emails", "")
    assert r.out == ""
    lines = cli.admin("list-tokens", "--org", org).out.strip().splitlines()
    assert len(lines) == 2, lines
    for l in lines:
        f = l.split()
        assert len(f) >= 3, l
        assert_id(f[0], "key")
        assert f[1].startswith("ll_live_") and f[-1] in ("live", "revoked"), l
        assert f[-1] == "live"
    prefixes = {l.split()[1] for l in lines}
    assert any(t1.startswith(p) for p in prefixes) and any(t2.startswith(p) for p in prefixes)
    assert "ci" in [l.split()[2] for l in lines]
    for l in lines:
        assert t1 not in l and t2 not in l, "list-tokens must never show a token"
    # tokens of another org are not listed
    assert cli.admin("list-tokens", "--org", org2).out.strip() == ""


def test_login_link_prints_a_one_time_url(cli):
    """PRODUCT §1: `admin login-link --email` prints a one-time sign-in URL
    under the app URL (default: the base URL)."""
    org = cli.admin("create-org", "--name", "Link Org").line
    cli.admin("add-user", "--org", org, "--email", "ada@example.com", "--name", "Ada",
              "--role", "admin")
    env = {"LOADLINE_BASE_URL": "https://loadline.example.test"}
    a = cli.admin("login-link", "--email", "ada@example.com", env=env).line
    b = cli.admin("login-link", "--email", "ada@example.com", env=env).line
    assert re.match(r"^https://loadline\.example\.test/\S+$", a), a
    assert a != b, "two links must differ (one-time tokens)"
    app = cli.admin("login-link", "--email", "ada@example.com",
                    env={"LOADLINE_APP_URL": "https://app.example.test"}).line
    assert app.startswith("https://app.example.test/"), app


def test_login_link_unknown_email_is_an_error(cli):
    """Lead: errors exit 1 with a message on stderr."""
    r = cli.admin("login-link", "--email", "nobody@example.com", expect=1)
    assert r.err.strip() and r.out.strip() == ""


def test_loadline_db_env_is_used(cli):
    """PRODUCT §1: configuration by environment: LOADLINE_DB selects the
    database when --db is not given."""
    org = cli.run("admin", "create-org", "--name", "Env Org", db=None,
                  env={"LOADLINE_DB": cli.db_url}).line
    assert_id(org, "org")
    # the same database, reached with --db
    u = cli.admin("add-user", "--org", org, "--email", "e@example.com", "--name", "E",
                  "--role", "member").line
    assert_id(u, "usr")


@pytest.mark.parametrize("cmd", [
    ["add-user", "--org", "{org}", "--email", "x@example.com", "--name", "X", "--role", "member"],
    ["mint-token", "--org", "{org}"],
    ["add-customer", "--org", "{org}", "--name", "C"],
    ["add-branch", "--org", "{org}", "--name", "B"],
    ["add-location", "--org", "{org}", "--name", "L", "--street", "1 A St", "--city", "Austin",
     "--state", "TX", "--zip", "78701"],
    ["set-approvers", "--org", "{org}", "--emails", "a@example.com"],
], ids=lambda c: c[0])
def test_unknown_org_is_an_error(module_cli, cmd):
    """Lead: errors (here an organization that does not exist) exit 1 with a
    message on stderr and nothing on stdout."""
    argv = [a.replace("{org}", "org_doesnotexist0000") for a in cmd]
    r = module_cli.admin(*argv, expect=1)
    assert r.err.strip() and r.out.strip() == ""


USAGE = {
    "no_admin_subcommand": (["admin"], None),
    "unknown_admin_subcommand": (["admin", "frobnicate"], "frobnicate"),
    "unknown_subcommand": (["frobnicate"], "frobnicate"),
    "create_org_missing_name": (["admin", "create-org"], "--name"),
    "create_org_name_without_value": (["admin", "create-org", "--name"], "--name"),
    "create_org_unknown_option": (["admin", "create-org", "--name", "X", "--bogus", "1"], "--bogus"),
    "add_user_bad_role": (["admin", "add-user", "--org", "{org}", "--email", "r@example.com",
                           "--name", "R", "--role", "owner"], "role"),
    "add_user_missing_email": (["admin", "add-user", "--org", "{org}", "--name", "R",
                                "--role", "admin"], "--email"),
    "add_user_missing_org": (["admin", "add-user", "--email", "r@example.com", "--name", "R",
                              "--role", "admin"], "--org"),
    "mint_token_missing_org": (["admin", "mint-token"], "--org"),
    "add_customer_missing_name": (["admin", "add-customer", "--org", "{org}"], "--name"),
    "add_branch_missing_org": (["admin", "add-branch", "--name", "B"], "--org"),
    "add_location_missing_org": (["admin", "add-location", "--name", "L", "--street", "1 A St",
                                  "--city", "Austin", "--state", "TX", "--zip", "78701"],
                                 "--org"),
    "set_approvers_missing_emails": (["admin", "set-approvers", "--org", "{org}"], "--emails"),
    "login_link_missing_email": (["admin", "login-link"], "--email"),
    "revoke_token_missing_id": (["admin", "revoke-token"], None),
    "serve_bad_workers": (["serve", "--workers", "many"], "--workers"),
}


@pytest.mark.parametrize("case", sorted(USAGE))
def test_usage_errors_exit_2_with_help(module_cli, case):
    """Lead: usage errors exit 2 with a helpful message on stderr naming
    the problem (the missing/unknown option or command), nothing on stdout."""
    argv, needle = USAGE[case]
    argv = [a.replace("{org}", module_cli.org_id) for a in argv]
    r = module_cli.run(*argv, expect=2, timeout=20)
    assert r.out.strip() == "", r
    assert len(r.err.strip()) >= 10, r
    if needle:
        assert needle.lower() in r.err.lower(), "stderr does not mention %r: %r" % (needle, r.err)


def test_list_orgs_tab_separated_when_piped(cli):
    """Issue 21 item 5: `admin list-orgs` prints one line per organization,
    oldest first: id, name, created (ISO 8601 UTC), tab-separated without a
    header when piped; a tab in a name is escaped so a line keeps three
    fields."""
    assert cli.admin("list-orgs").out == ""
    a = cli.admin("create-org", "--name", "Acme Freight").line
    b = cli.admin("create-org", "--name", "Tab\tCo").line
    lines = cli.admin("list-orgs").out.splitlines()
    assert [l.split("\t")[:2] for l in lines] == [[a, "Acme Freight"], [b, "Tab\\x09Co"]], lines
    for l in lines:
        f = l.split("\t")
        assert len(f) == 3 and re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", f[2]), l
    r = cli.admin("list-orgs", "--org", a, expect=2)
    assert "--org" in r.err and r.out == ""


def _env_file(tmp_path, text):
    p = tmp_path / "loadline.env"
    p.write_text(text)
    return str(p)


def test_settings_file_names_the_database(cli, tmp_path):
    """Issue 21 item 5 / PRODUCT §13: without LOADLINE_DB in the environment
    the database commands read the packaged settings file
    (/etc/loadline/loadline.env; LOADLINE_ENV_FILE names another), in the
    systemd EnvironmentFile syntax: comments, blanks around =, quotes.
    Settings already in the environment win; a line that is not a setting
    is reported and skipped."""
    org = cli.admin("create-org", "--name", "Installed Org").line
    f = _env_file(tmp_path, "# Settings\n\n; also a comment\nLOADLINE_DB = \"%s\"  \n"
                  "LOADLINE_APP_URL='https://app.example.com/'\nnot a setting\n" % cli.db_url)
    r = cli.run("admin", "list-orgs", db=None, env={"LOADLINE_ENV_FILE": f})
    assert r.out.split("\t")[:2] == [org, "Installed Org"], r
    assert "%s:6" % f in r.err and "ignored" in r.err, r.err
    uid = cli.admin("add-user", "--org", org, "--email", "op@example.com", "--name", "Op",
                    "--role", "admin").line
    assert uid
    link = cli.run("admin", "login-link", "--email", "op@example.com", db=None,
                   env={"LOADLINE_ENV_FILE": f}).line
    assert link.startswith("https://app.example.com/login/link?token="), link
    # a variable already in the environment wins over the file's
    link = cli.run("admin", "login-link", "--email", "op@example.com", db=None,
                   env={"LOADLINE_ENV_FILE": f, "LOADLINE_APP_URL": "https://other.example.com"}).line
    assert link.startswith("https://other.example.com/login/link?token="), link
    # LOADLINE_DB in the environment: the file is not read at all
    other = tmp_path / "other.db"
    r = cli.run("admin", "list-orgs", db=None,
                env={"LOADLINE_ENV_FILE": f, "LOADLINE_DB": "sqlite:%s" % other})
    assert r.out == "" and "ignored" not in r.err, r


def test_unreadable_settings_file_is_an_error(cli, tmp_path):
    """A settings file that exists and cannot be read names a database the
    operator meant: exit 2 with the reason, and no database is made up in
    the working directory (the installed `loadline admin …` used to create
    ./data/loadline.db silently)."""
    import subprocess
    from harness.server import child_env, loadline_bin
    d = tmp_path / "loadline.env"
    d.mkdir()   # a directory: opens, cannot be read (EACCES cannot be made as root)
    work = tmp_path / "work"
    work.mkdir()
    for env in ({"LOADLINE_ENV_FILE": str(d)}, {"LOADLINE_ENV_FILE": str(tmp_path / "missing.env")}):
        r = subprocess.run([loadline_bin(), "admin", "list-orgs"], capture_output=True, text=True,
                           env=child_env(env), cwd=str(work), timeout=30)
        assert r.returncode == 2, r
        assert "cannot read the settings in " + env["LOADLINE_ENV_FILE"] in r.stderr, r.stderr
        assert r.stdout == "" and list(work.iterdir()) == [], r
    # push, runs and inspect talk to no database: they never read it
    r = subprocess.run([loadline_bin(), "runs", "--help"], capture_output=True, text=True,
                       env=child_env({"LOADLINE_ENV_FILE": str(d)}), cwd=str(work), timeout=30)
    assert r.returncode == 0 and "cannot read" not in r.stderr, r
