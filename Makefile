# The two commands of the README:
#   make demo   installs crosslayer into .venv and runs the flagship study (seed 000 Access Link)
#   make test   installs crosslayer into .venv and runs every test (Rust and Python)
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: install demo test bench fmt docs

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

install: $(PY)
	$(PY) -m pip install -q -e ".[test]"

demo: install
	$(VENV)/bin/crosslayer run studies/seed000-access-link.toml

test: install
	cargo test --release -p crosslayer-core
	$(PY) -m pytest -q

bench: install
	cargo bench -p crosslayer-core --bench throughput
	$(VENV)/bin/crosslayer bench

docs: install
	$(PY) -m crosslayer.docgen docs/models
