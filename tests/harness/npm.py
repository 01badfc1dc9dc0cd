"""`npm ci` of a test helper's pinned packages, once, also when several
pytest processes (pytest-xdist workers) ask at the same time: a lock file
beside package.json serializes them, and the first one installs."""
import fcntl
import os
import shutil
import subprocess


def npm_ci_once(directory, package, extra=()):
    """Installs directory's lockfile when node_modules/<package> is missing.
    Returns None, or the error text of a failed install."""
    marker = os.path.join(directory, "node_modules", package)
    if os.path.isdir(marker):
        return None
    npm = shutil.which("npm")
    if not npm:
        return "npm is missing: run scripts/deps"
    with open(os.path.join(directory, ".npm-ci.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.isdir(marker):
            return None   # another worker installed it meanwhile
        r = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error", *extra], cwd=directory,
                           capture_output=True, text=True, timeout=600)
    return None if r.returncode == 0 else "npm ci in %s failed:\n%s%s" % (directory, r.stdout, r.stderr)
