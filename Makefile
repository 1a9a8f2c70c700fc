# The two commands of the README:
#   make demo   installs crosslayer into .venv and runs the flagship study (seed 000 Access Link)
#   make test   installs crosslayer into .venv and runs every test (Rust and Python)
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: install demo test bench fmt docs fuzz

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

install: $(PY)
	$(PY) -m pip install -q -e ".[test]"

demo: install
	$(VENV)/bin/crosslayer run studies/seed000-access-link.toml --force   # the demo owns results/seed000-access-link/

test: install
	cargo test --release -p crosslayer-core
	$(PY) -m pytest -q

bench: install
	cargo bench -p crosslayer-core --bench throughput
	$(VENV)/bin/crosslayer bench

docs: install
	$(PY) -m crosslayer.docgen docs/models

# A long fuzz run of mutated study files (the tests run 3000 cases); prints the outcome counts.
fuzz: install
	$(PY) tests/fuzz_studies.py --cases 200000 --seed 1
