# everypath: `make demo` runs the main job end to end, `make test` the whole suite.
# Both start with an idempotent `make setup`.
SHELL := /bin/bash
PY := .venv/bin/python
PIP := .venv/bin/pip
STAMP := .venv/.installed
DEB_PACKAGES := g++ make pkg-config libxsimd-dev libopencv-imgproc-dev libfftw3-dev chromium qemu-user-static \
  openjdk-17-jdk-headless nodejs
# zig (PyPI ziglang) keeps its libc/libc++ builds here, outside the checkout, so clean clones share them
export EVERYPATH_ZIG_CACHE ?= $(HOME)/.cache/everypath/zig
# keyed on what decides the builds (targets, flags, the zig version in setup.py), not on the checkout's mtimes:
# a clean clone whose files match finds the stamp and skips warming
ZIG_WARM := $(EVERYPATH_ZIG_CACHE)/.warm-$(shell cat lowering/targets.py lowering/toolchain.py setup.py pyproject.toml | sha1sum | cut -c1-12)
export EVERYPATH_CACHE ?= $(CURDIR)/.everypath-cache
# PySpark ships as a 450 MB sdist: its wheel is built once per machine and installed from here
WHEELS := $(HOME)/.cache/everypath/wheels
PYSPARK := 4.3.0

.PHONY: setup demo test test-fast bench lint clean

setup: $(STAMP) $(ZIG_WARM)

$(STAMP): pyproject.toml setup.py $(wildcard lowering/runtime/*)
	@missing=""; for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing Debian packages:$$missing"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) || \
	  (sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing); fi
	@test -x $(PY) || python3 -m venv .venv
	@$(PIP) install -q --upgrade pip setuptools wheel 2>&1 | grep -v "^WARNING: Location" || true
	@# torch: the CPU build (the machine's wheel cache has one; the default PyPI wheel pulls GBs of CUDA)
	@$(PY) -c "import torch" 2>/dev/null || $(PIP) install -q 'torch==2.13.0+cpu' 2>/dev/null || \
	  $(PIP) install -q torch --index-url https://download.pytorch.org/whl/cpu || true
	@ls $(WHEELS)/pyspark-$(PYSPARK)-*.whl >/dev/null 2>&1 || { echo "building the PySpark wheel once"; \
	  $(PIP) wheel -q --no-deps -w $(WHEELS) pyspark==$(PYSPARK) 2>&1 | grep -v "^WARNING: Location" || true; }
	@$(PIP) install -q --find-links $(WHEELS) -e '.[dev,refs,peers,spark]' 2>&1 | grep -v "^WARNING: Location" || true
	@$(PY) -c "import everypath, everypath.lowering._runtime, everypath.lowering._dispatch, pyspark" && touch $(STAMP)

# the first build per cross target compiles its libc/libc++ (minutes each on 2 cores): once per machine
$(ZIG_WARM): | $(STAMP)
	@echo "warming zig's cache for every cross target (first time on this machine: several minutes)"
	@$(PY) -m everypath.lowering.toolchain --warm
	@touch $(ZIG_WARM)

demo: setup
	$(PY) examples/demo.py

test: setup
	$(PY) -m pytest -n 2 -q --durations=30

test-fast: setup
	$(PY) -m pytest -n 2 -q -m "not slow"

bench: setup
	$(PY) bench/corpus_bench.py

clean:
	rm -rf .everypath-cache build *.egg-info lowering/_runtime*.so lowering/_dispatch*.so

lint: setup
	.venv/bin/ruff check everypath base tracer lowering variants telemetry selector dashboard examples tests bench
