"""The operator documentation is complete (issue 21 item 5): every
LOADLINE_* setting the code reads is in loadline.env(5) (the API client's
in loadline(1)), every `loadline admin` subcommand is in loadline(1) and in
docs/operations.md, and the README names every Makefile target.  Read from
the sources, so a setting or command added without its documentation fails
here."""
import os
import re

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# The API client (`loadline push`, `loadline runs`): its settings are in
# loadline(1), ENVIRONMENT; every other file's are the server's.
CLIENT_FILES = {"src/cli/client.c", "src/cli/push.c", "src/cli/runs.c"}


def read(path):
    with open(os.path.join(REPO, path), encoding="utf-8") as f:
        return f.read()


def c_strings(text):
    """The string literals of a C file (comments dropped first)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.findall(r'"((?:[^"\\\n]|\\.)*)"', text)


def settings_read():
    """{variable: {files}} for every LOADLINE_* name in a string literal in src/."""
    found = {}
    for top, _, files in os.walk(os.path.join(REPO, "src")):
        for name in files:
            if not name.endswith((".c", ".h")):
                continue
            rel = os.path.relpath(os.path.join(top, name), REPO)
            for lit in c_strings(read(rel)):
                for var in re.findall(r"\bLOADLINE_[A-Z0-9_]*[A-Z0-9]", lit):
                    found.setdefault(var, set()).add(rel)
    return found


def documented(page):
    """Variables a man page documents: named in bold (*LOADLINE_X*)."""
    return set(re.findall(r"\*(LOADLINE_[A-Z0-9_]+)\*", read(page)))


def test_every_setting_is_in_the_man_pages():
    found = settings_read()
    assert "LOADLINE_DB" in found and "LOADLINE_URL" in found, sorted(found)
    env5, man1 = documented("docs/man/loadline.env.5.scd"), documented("docs/man/loadline.1.scd")
    missing = []
    for var, files in sorted(found.items()):
        client_only = files <= CLIENT_FILES
        if var not in (man1 if client_only else env5):
            missing.append("%s (read in %s) is not in %s" % (
                var, ", ".join(sorted(files)), "loadline(1)" if client_only else "loadline.env(5)"))
    assert not missing, "\n".join(missing)


def admin_subcommands():
    text = read("src/cli/admin.c")
    table = text[text.index("} commands[] = {"):]
    table = table[:table.index("};")]
    names = re.findall(r'\{"([a-z-]+)",\s*[a-z_]+,', table)
    assert len(names) >= 15, names
    return names


def test_every_admin_subcommand_is_documented():
    man1 = read("docs/man/loadline.1.scd")
    ops = read("docs/operations.md")
    missing = []
    for name in admin_subcommands():
        if not re.search(r"\*admin %s\*" % re.escape(name), man1):
            missing.append("admin %s is not in loadline(1), ADMIN COMMANDS" % name)
        if not re.search(r"`admin [^`]*\b%s\b" % re.escape(name), ops):
            missing.append("admin %s is not in docs/operations.md, Operator commands" % name)
    assert not missing, "\n".join(missing)


def test_every_make_target_is_in_the_readme():
    makefile, readme = read("Makefile"), read("README.md")
    targets = {t for t in re.findall(r"^([a-z][a-z0-9-]*):(?!=)", makefile, re.M)}
    phony = set(re.search(r"^\.PHONY:(.*)$", makefile, re.M).group(1).split())
    assert phony <= targets, "phony targets without a rule: %s" % sorted(phony - targets)
    missing = [t for t in sorted(targets) if "`make %s`" % t not in readme]
    assert not missing, "README.md does not name: %s" % ", ".join("make " + t for t in missing)
    assert "`make`" in readme
    # and says how to change the port
    assert re.search(r"LOADLINE_LISTEN=[0-9.]+:[0-9]+ make run", readme), "README: how to change the port"
