# `make test` is the one command that installs everything and runs the tests
# (it is also what CI runs, through .ci/run).
.PHONY: test install bench bench-spark traces

test:
	sh tests/install-deps.sh
	python3 -m pytest

install:
	python3 -m pip install .

bench:
	python3 bench/bench_bfs.py

bench-spark:
	python3 bench/bench_spark.py

# rewrite traces/ from fresh checker runs (tests/test_traces.py compares them)
traces:
	MODELCHECK_REGENERATE_TRACES=1 python3 -m pytest -q tests/test_traces.py
