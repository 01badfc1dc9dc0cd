"""Direct reads of the service's own database, for tests that must check
what is stored (both backends)."""
import sqlite3
import subprocess


def db_value(url, sql):
    """The first column of the first row of sql, as text (None for NULL or
    no row)."""
    if url.startswith("sqlite:"):
        con = sqlite3.connect(url[len("sqlite:"):], timeout=30)
        try:
            row = con.execute(sql).fetchone()
        finally:
            con.close()
        return None if row is None or row[0] is None else str(row[0])
    out = subprocess.run(["psql", "-X", "-At", "-d", url, "-c", sql], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    return out.rstrip("\n") or None


def db_exec(url, sql):
    """Runs one statement on the service's database behind its back (fault
    injection: a table renamed away is a bug the service must not call an
    outage)."""
    if url.startswith("sqlite:"):
        con = sqlite3.connect(url[len("sqlite:"):], timeout=30)
        try:
            con.execute(sql)
            con.commit()
        finally:
            con.close()
        return
    subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql], capture_output=True,
                   text=True, timeout=60, check=True)


def db_int(url, sql):
    """db_value as a number (0 for NULL or no row)."""
    v = db_value(url, sql)
    return int(v) if v is not None else 0
