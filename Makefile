# Two commands a new user needs: `make demo` and `make test`. Both create .venv and install on first use.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean browser

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "alchemy-table needs Python 3.11 or newer (set PYTHON=python3.11)")'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	@# The real LED driver builds from its sdist off the Pi too (a C compiler needed); its test skips without it.
	$(PY) -m pip install --quiet 'rpi-ws281x>=5.0' || echo "rpi-ws281x not built (no C compiler?): its test will be skipped"
	@touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/alchemy-table demo

test: $(STAMP) browser
	@test -x /usr/sbin/mosquitto || { [ "$$(id -u)" = 0 ] && apt-get update -qq && apt-get install -y mosquitto; } || \
		{ echo "the tournament tests need Mosquitto: sudo apt-get install -y mosquitto"; exit 1; }
	$(VENV)/bin/ruff check .
	@# One worker per core, each test file kept on one worker (its module's fixtures built once): 678 -> 392 s on 2 cores.
	$(PY) -m pytest -n auto --maxprocesses 4 --dist loadfile

# The web page's tests drive Debian's chromium (Playwright never downloads a browser here).
browser:
	@command -v chromium >/dev/null || if [ "$$(id -u)" = 0 ]; then apt-get update -q && apt-get install -y -q chromium; \
	  else echo "the web page's browser tests need chromium: sudo apt-get install -y chromium"; fi

lint: $(STAMP)
	$(VENV)/bin/ruff check .

bench: $(STAMP)
	$(VENV)/bin/alchemy-table bench all

clean:
	rm -rf $(VENV) demo-output .pytest_cache build *.egg-info test-artifacts
