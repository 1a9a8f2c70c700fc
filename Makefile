# The two commands of the README:
#   make demo   installs crosslayer into .venv and runs the flagship study (seed 000 Access Link)
#   make test   installs crosslayer into .venv and runs every test (Rust and Python)
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: install demo test test-deps linux-ref bench instructions lint docs fuzz startup pgo

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

install: $(PY)
	$(PY) -m pip install -q -e ".[test]"

demo: install
	$(VENV)/bin/crosslayer run studies/seed000-access-link.toml --out results/demo --force   # the demo owns results/demo/

# Debian packages that some tests drive (a headless browser opens the HTML report, tshark reads
# the packet captures, ns-2.35 runs crosscheck --with ns2, valgrind counts instructions for
# tools/instructions.py), as package:program: installed when
# the program is missing and this user can (root with apt-get), so that CI really runs those
# tests; elsewhere the tests skip and say why.
TEST_PACKAGES := chromium:chromium tshark:tshark ns2:ns valgrind:valgrind
test-deps:
	@export DEBIAN_FRONTEND=noninteractive; for entry in $(TEST_PACKAGES); do \
	  pkg=$${entry%%:*}; prog=$${entry#*:}; \
	  command -v $$prog >/dev/null 2>&1 && continue; \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing $$pkg (Debian) for the tests that drive it"; \
	    { apt-get install -y -q --no-install-recommends $$pkg >/dev/null 2>&1 || \
	      { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends $$pkg >/dev/null 2>&1; }; } || \
	      echo "could not install $$pkg: the tests that need it will skip"; \
	  else echo "$$pkg is missing and cannot be installed here (needs root and apt-get): the tests that need it will skip"; fi; \
	done

# The Linux reference kernel (crosscheck --with linux): User-mode Linux 6.1 with time-travel, built
# once from Debian's linux-source-6.1 (about 5 minutes on 2 cores) and cached under
# ~/.cache/crosslayer/linux-ref; the packages are installed when missing and this user can, so that
# CI really runs the kernel's tests; elsewhere they skip and say why.
LINUX_REF_PACKAGES := linux-source-6.1 flex bison bc ethtool iproute2
linux-ref: install
	@export DEBIAN_FRONTEND=noninteractive; \
	if $(VENV)/bin/crosslayer linux-ref path >/dev/null 2>&1 && command -v ethtool >/dev/null && command -v tc >/dev/null; then exit 0; fi; \
	if [ ! -f /usr/src/linux-source-6.1.tar.xz ] || ! command -v flex >/dev/null || ! command -v bison >/dev/null || ! command -v ethtool >/dev/null || ! command -v tc >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing $(LINUX_REF_PACKAGES) (Debian) for the Linux reference kernel"; \
	    { apt-get install -y -q --no-install-recommends $(LINUX_REF_PACKAGES) >/dev/null 2>&1 || \
	      { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends $(LINUX_REF_PACKAGES) >/dev/null 2>&1; }; } || \
	      echo "could not install $(LINUX_REF_PACKAGES): the Linux reference tests will skip"; \
	  else echo "the Linux reference kernel needs $(LINUX_REF_PACKAGES) (root and apt-get to install them): its tests will skip"; fi; \
	fi; \
	$(VENV)/bin/crosslayer linux-ref build || echo "the Linux reference kernel could not be built: its tests will skip"

# The engine's tests run optimized; its unit tests also run as a debug build, where every
# debug_assert (the hot path's invariants, Time::plus) and integer overflow check is on, and so
# do the eager links' runs that must equal their events' (the scheduler's and the rings' order
# checked on every event: a discard scheduled in the past was found so), on one line and on
# random graphs of several routers.
test: install test-deps linux-ref
	cargo test --release -p crosslayer-core
	cargo test -p crosslayer-core --lib
	cargo test -p crosslayer-core --test eager_links -- event_driven_run counts_its_losses
	cargo test -p crosslayer-core --test eager_topologies
	$(PY) -m pytest -q

# The engine rebuilt profile-guided (tools/pgo.py, about 3 minutes): the same results, 5-7 %
# faster, about 10 % fewer instructions (docs/PERFORMANCE.md). Needs llvm-profdata of rustc's
# LLVM (Debian llvm-<major>, or rustup's llvm-tools); `make install` puts the standard build back.
pgo: install
	$(PY) tools/pgo.py

# Clippy over both crates with every warning an error (the code is clean of them; a lint allowed
# where it is says why).
lint:
	cargo clippy --all-targets -p crosslayer-core -p crosslayer-py -- -D warnings

bench: install
	cargo bench -p crosslayer-core --bench throughput
	$(VENV)/bin/crosslayer bench

# Instructions and events a delivered segment (callgrind: the same count on any load), issue 21's
# table by default; `make instructions ARGS="--base HEAD~1 --fingerprints"` compares with a commit
# and says whether every result stayed the same (tools/instructions.py --help).
instructions: install
	$(PY) tools/instructions.py $(ARGS)

# CPU seconds of `crosslayer --version` and `crosslayer -h` (min / median / max of 15 runs).
startup: install
	$(VENV)/bin/crosslayer bench --startup

docs: install
	$(PY) -m crosslayer.docgen docs/models

# A long fuzz run of mutated study files (the tests run 3000 cases); prints the outcome counts.
fuzz: install
	$(PY) tests/fuzz_studies.py --cases 200000 --seed 1
