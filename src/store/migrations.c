/* Versioned schema migrations.  Append only: a migration that has shipped is
 * never edited.  "@BLOB@" becomes BLOB (SQLite) or BYTEA (PostgreSQL). */
#include "migrations.h"

const struct migration migrations[] = {
	{1, "identity",
	 "CREATE TABLE orgs ("
	 "  id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at BIGINT NOT NULL);"
	 "CREATE TABLE users ("
	 "  id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id),"
	 "  email TEXT NOT NULL, email_key TEXT NOT NULL UNIQUE, name TEXT NOT NULL,"
	 "  name_key TEXT NOT NULL,"
	 "  role TEXT NOT NULL CHECK (role IN ('admin','member')), created_at BIGINT NOT NULL);"
	 "CREATE INDEX users_org ON users(org_id);"
	 "CREATE TABLE api_keys ("
	 "  id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id), name TEXT NOT NULL,"
	 "  prefix TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL,"
	 "  last_used_at BIGINT, revoked_at BIGINT);"
	 "CREATE INDEX api_keys_org ON api_keys(org_id);"
	 "CREATE TABLE login_links ("
	 "  token_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id),"
	 "  created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, used_at BIGINT);"
	 "CREATE TABLE customers ("
	 "  id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id), name TEXT NOT NULL,"
	 "  name_key TEXT NOT NULL, created_at BIGINT NOT NULL);"
	 "CREATE INDEX customers_name ON customers(org_id, name_key);"
	 "CREATE TABLE branches ("
	 "  id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id), name TEXT NOT NULL,"
	 "  name_key TEXT NOT NULL, created_at BIGINT NOT NULL);"
	 "CREATE INDEX branches_name ON branches(org_id, name_key);"
	 "CREATE TABLE locations ("
	 "  id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id),"
	 "  name TEXT, name_key TEXT, street TEXT, city TEXT, state TEXT, zip TEXT,"
	 "  address_key TEXT, created_by_run TEXT, created_at BIGINT NOT NULL);"
	 "CREATE INDEX locations_name ON locations(org_id, name_key);"
	 "CREATE INDEX locations_address ON locations(org_id, address_key);"
	 "CREATE TABLE approvers ("
	 "  org_id TEXT NOT NULL REFERENCES orgs(id), email TEXT NOT NULL,"
	 "  PRIMARY KEY (org_id, email));"},
};

const int migrations_count = (int)(sizeof migrations / sizeof migrations[0]);
