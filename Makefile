# The command surface. Each target sets up .venv on first use (drills/bootstrap.py).
#   make grade [DRILL=t1] [IMPL=mine|solutions] [JSON=path]   grade your kernels
#   make bench [DRILL=t1] [IMPL=mine|solutions]               time kernels beside torch (GPU)
#   make test                                                 the repo's own tests

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
READY := $(VENV)/.ready

.PHONY: help grade bench test clean

help:
	@sed -n '2,4p' Makefile | sed 's/^#//'

$(READY): pyproject.toml drills/bootstrap.py
	$(PYTHON) drills/bootstrap.py

grade: $(READY)
	@$(PY) grader.py $(DRILL) --impl $(or $(IMPL),mine) $(if $(JSON),--json $(JSON))

bench: $(READY)
	@$(PY) -m drills.bench $(DRILL) --impl $(or $(IMPL),mine)

test: $(READY)
	$(PY) -m pytest -n auto -q

clean:
	rm -rf $(VENV) .pytest_cache
