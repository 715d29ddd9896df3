# The README's commands, for those who reach for make. `sh tests/run.sh` is
# the test command (CI runs it through .ci/run); it needs no make.
.PHONY: test install bench bench-spark traces

test:
	sh tests/run.sh

install:
	python3 -m venv .venv && .venv/bin/python -m pip install .

bench:
	python3 bench/bench_bfs.py

bench-spark:
	python3 bench/bench_spark.py

# rewrite traces/ from fresh checker runs (tests/test_traces.py compares them)
traces:
	MODELCHECK_REGENERATE_TRACES=1 python3 -m pytest -q tests/test_traces.py
