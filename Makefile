# The command surface. Each target sets up .venv on first use (drills/bootstrap.py).
#   make grade [DRILL=t1] [IMPL=mine|solutions] [JSON=path] [V=1]   grade your kernels (LANG=zh)
#   make grade DRILL=t3 CHECK=k_tail                          one check by its id (drills/spec.py)
#   make progress                                             every drill's last grade, and next
#   make bench [DRILL=t1] [IMPL=mine|solutions]               time kernels beside torch (GPU)
#   make hint [DRILL=t2] [LANG=zh]                            the next hint for a drill (zh: 中文)
#   make watch [DRILL=t2]                                     re-grade on every save (DRILL: stay on it)
#   make reset DRILL=t2                                       back up mine/, restore the stub
#   make compare DRILL=t2 [YES=1]                             your file beside the reference
#   make doctor                                               check the environment
#   make versions                                             references, positives, negatives, each triton
#   make run FILE=content/experiments/t2_long_rows.py         a lesson's script, in .venv
#   make test                                                 the repo's own tests (CI)
#   make test-fast                                            those that grade no whole drill

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
READY := $(VENV)/.ready

# LANG=zh on make's command line asks for Chinese even where the shell sets LC_ALL, which
# outranks LANG in a locale (drills/chinese.py)
ifeq ($(origin LANG),command line)
export DRILLS_LANG := $(LANG)
endif

.PHONY: help grade progress bench hint watch reset compare doctor versions run test test-fast lint clean

help:
	@sed -n '2,14p' Makefile | sed 's/^#//'

# TORCH=cpu: a new .venv gets the CPU-only torch (1.9 GB instead of 5.5 GB; README, Quick start)
$(READY): pyproject.toml drills/bootstrap.py
	$(PYTHON) drills/bootstrap.py $(if $(TORCH),--torch $(TORCH))

# CHECK reaches the shell through the environment (make exports command-line variables), so
# a name with spaces or quotes arrives whole
grade: $(READY)
	@$(PY) grader.py $(DRILL) --impl $(or $(IMPL),mine) $(if $(JSON),--json $(JSON)) $(if $(V),-v) \
		$(if $(CHECK),--check "$$CHECK")

progress: $(READY)
	@$(PY) -m drills.tools progress

bench: $(READY)
	@$(PY) -m drills.bench $(DRILL) --impl $(or $(IMPL),mine)

hint watch: $(READY)
	@$(PY) -m drills.tools $@ $(DRILL)

reset: $(READY)
	@$(PY) -m drills.tools reset $(DRILL)

compare: $(READY)
	@$(PY) -m drills.tools compare $(DRILL) $(if $(YES),--yes)

doctor: $(READY)
	@$(PY) -m drills.tools doctor

versions: $(READY)
	@$(PY) -m drills.versions

run: $(READY)
	@$(if $(FILE),,$(error make run needs a script: make run FILE=content/experiments/t2_long_rows.py))
	@$(PY) $(FILE)

$(VENV)/.tests-ready: $(READY) pyproject.toml
	$(PYTHON) drills/bootstrap.py --with-tests

# One pytest worker more than cores: a grading test waits on its processes (a judge's start,
# its runner's replies), and a core would idle meanwhile. --maxschedchunk=1 hands each worker
# one test at a time, the longest first (tests/conftest.py): by default xdist gave each a
# quarter of its share at once, and on 2 cores one worker still had 8 minutes of tests queued
# when another had run out.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
PYTEST_PARALLEL := -n $(TEST_WORKERS) --maxschedchunk=1

test: lint
	$(PY) -m pytest $(PYTEST_PARALLEL) -q --durations=30

test-fast: lint
	$(PY) -m pytest $(PYTEST_PARALLEL) -q -m "not slow" --durations=10

lint: $(VENV)/.tests-ready
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

clean:
	$(PYTHON) drills/bootstrap.py --clean
	rm -rf .pytest_cache
