# Loadline: the two set-up commands are `make run` and `make check`.
# Everything real happens in meson.build and scripts/; this file only wires them.

BUILD      ?= build
SAN_BUILD  ?= build-san
FUZZ_BUILD ?= build-fuzz
TSAN_BUILD ?= build-tsan
PY         ?= /usr/bin/python3
FUZZ_SECONDS ?= 300
SMOKE_SECONDS ?= 10
# pytest processes for make check / make api (pytest-xdist): the suite waits
# on servers far more than it computes (load ~0.7 on 2 cores run serially),
# so three at once take it from ~19 to ~8 minutes.  0: one process.
PYTEST_JOBS ?= 3

.PHONY: all deps run check unit lint fuzz fuzz-smoke api bench clean docs tsan tsan-check deb deb-check soak soak-short

all: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

deps:
	@scripts/deps

$(BUILD)/build.ninja:
	meson setup $(BUILD)

$(SAN_BUILD)/build.ninja:
	meson setup $(SAN_BUILD) -Db_sanitize=address,undefined -Db_lundef=false

$(TSAN_BUILD)/build.ninja:
	meson setup $(TSAN_BUILD) -Db_sanitize=thread -Db_lundef=false

$(FUZZ_BUILD)/build.ninja:
	CC=clang meson setup $(FUZZ_BUILD) -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false

# Builds, bootstraps a first organization on a new database, serves.
run: all
	@scripts/run $(BUILD)/loadline

# Unit tests and API/browser tests, all against the ASan+UBSan build.
# The last line printed is pytest's summary.
check: all $(SAN_BUILD)/build.ninja $(TSAN_BUILD)/build.ninja
	ninja -C $(SAN_BUILD)
	@scripts/lint
	@$(BUILD)/loadline docs check
	@scripts/openapi-check
	meson test -C $(SAN_BUILD) --print-errorlogs
	meson test -C $(BUILD) --suite oom --print-errorlogs
	@$(MAKE) --no-print-directory fuzz-smoke
	@$(MAKE) --no-print-directory tsan-check
	LOADLINE_BIN=$(abspath $(SAN_BUILD))/loadline $(PY) -m pytest -q -p no:cacheprovider -n $(PYTEST_JOBS) tests

# The C unit tests alone, against the ASan+UBSan build.
unit: all $(SAN_BUILD)/build.ninja
	ninja -C $(SAN_BUILD)
	meson test -C $(SAN_BUILD) --print-errorlogs

api: all $(SAN_BUILD)/build.ninja
	ninja -C $(SAN_BUILD)
	LOADLINE_BIN=$(abspath $(SAN_BUILD))/loadline $(PY) -m pytest -q -p no:cacheprovider -n $(PYTEST_JOBS) tests $(ARGS)

lint:
	@scripts/lint

fuzz: deps $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD)
	@scripts/fuzz $(FUZZ_BUILD) $(FUZZ_SECONDS)

fuzz-smoke: deps $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD)
	@scripts/fuzz $(FUZZ_BUILD) $(SMOKE_SECONDS)

# ThreadSanitizer: every test that starts a server (HTTP pool, workers,
# heartbeat, sweepers, mailer, webhook sender, the notification hub's
# listeners, lingering, the OIDC refresher), both backends, against a TSan
# build; any report fails the test that produced it (tests/harness/server.py).
# The list is derived: tests/conftest.py marks every test that uses a
# server fixture `server` (issue 27), and -m server selects them.
TSAN_ENV = TSAN_OPTIONS=suppressions=$(abspath tests/tsan.supp) LOADLINE_BIN=$(abspath $(TSAN_BUILD))/loadline
tsan: deps $(TSAN_BUILD)/build.ninja
	ninja -C $(TSAN_BUILD)
	TSAN_OPTIONS=suppressions=$(abspath tests/tsan.supp) \
		meson test -C $(TSAN_BUILD) --print-errorlogs dispatch store http base notify
	$(TSAN_ENV) $(PY) -m pytest -q -p no:cacheprovider -m server tests $(ARGS)

# What `make check` runs under ThreadSanitizer: the tests of the threads
# that hand work to each other (long polls, webhook deliveries, retention
# sweeps), both backends.  About 3.5 minutes on 2 cores (docs/reliability.md).
TSAN_CHECK_TESTS ?= tests/api/test_long_poll.py tests/api/test_webhooks.py tests/api/test_retention.py \
	tests/api/test_connections.py::test_uploads_waiting_for_a_slot_hold_no_thread tests/api/test_big_workbook.py
tsan-check: deps $(TSAN_BUILD)/build.ninja
	ninja -C $(TSAN_BUILD)
	$(TSAN_ENV) $(PY) -m pytest -q -p no:cacheprovider $(TSAN_CHECK_TESTS)

# Reliability soak (docs/reliability.md): faults at random moments on both
# backends, with figures; outside make check's time budget.
soak: all $(SAN_BUILD)/build.ninja
	ninja -C $(SAN_BUILD)
	LOADLINE_SOAK=1 SOAK_SCALE=$${SOAK_SCALE:-1} LOADLINE_BIN=$(abspath $(SAN_BUILD))/loadline \
		$(PY) -m pytest -q -p no:cacheprovider tests/soak/soak_faults.py

soak-short:
	@$(MAKE) --no-print-directory soak SOAK_SCALE=0.05

bench: all
	@scripts/bench $(BUILD)

# Debian package (debhelper, in build-deb/) and its check: lintian, units
# verified, unpacked into a scratch root and run (CI runs deb-check).
deb: deps
	@scripts/deb

deb-check: deps
	@scripts/deb-check

# Regenerates docs/errors.md and docs/openapi.json from the code table.
docs: all
	$(BUILD)/loadline docs write

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(FUZZ_BUILD) $(TSAN_BUILD) build-deb
