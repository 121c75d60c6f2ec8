#!/usr/bin/env bash
# Exercism's test-runner interface: run.sh SLUG INPUT_DIR OUTPUT_DIR grades the drill SLUG
# (t1, t1_add or t1-add) in INPUT_DIR and writes OUTPUT_DIR/results.json (version 2). It exits 0
# whenever results.json was written, whatever the grade, as the interface asks; another status
# means the grader could not run (2: a usage or environment error).
set -uo pipefail
if [ $# -ne 3 ]; then
    echo "usage: $0 SLUG INPUT_DIR OUTPUT_DIR" >&2
    exit 2
fi
repo=$(cd "$(dirname "$0")/../.." && pwd)
"$repo/.venv/bin/python" "$repo/grader.py" "${1//-/_}" --impl "$2" \
    --format exercism "${3%/}/results.json"
status=$?
if [ "$status" -eq 1 ]; then # a drill that did not pass: a grade, in results.json
    exit 0
fi
exit "$status"
