#!/usr/bin/env bash
# The generation benchmark, in a venv of its own: the baseline (hypothesis-jsonschema 0.23.1)
# needs Hypothesis 6.170.9, and both generators are measured on that one Hypothesis.
# Usage: benchmarks/run-generation.sh [--examples N] [--every N] [--json FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv-bench/bin/python ]; then
    python3 -m venv .venv-bench
    .venv-bench/bin/pip install -q . 'hypothesis==6.170.9' 'hypothesis-jsonschema==0.23.1'
fi
exec .venv-bench/bin/python benchmarks/generation.py "$@"
