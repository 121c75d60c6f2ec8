#!/usr/bin/env bash
# Exercism's test-runner interface: run.sh SLUG INPUT_DIR OUTPUT_DIR grades the drill SLUG
# (t1, t1_add or t1-add) in INPUT_DIR and writes OUTPUT_DIR/results.json (version 2); Exercism
# passes one folder as both, with a trailing slash. It exits 0 whenever results.json was
# written, whatever the grade, as the interface asks: where the grader refuses before grading
# (too little memory, an unknown slug) or ends without a result, results.json says why, with the
# status "error". Another status means no results.json could be written (2: a usage error or an
# unwritable folder).
#
# The image (course/exercism/Dockerfile) may run read-only, with /tmp and OUTPUT_DIR the only
# folders it can write: triton's cache, which the judge compiles into, is a new folder in the
# temporary folder, removed afterwards.
set -uo pipefail
if [ $# -ne 3 ]; then
    echo "usage: $0 SLUG INPUT_DIR OUTPUT_DIR" >&2
    exit 2
fi
# the repository holds this script as course/exercism/run.sh; the image links it from bin/run.sh
repo=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
results="${3%/}/results.json"
scratch=$(mktemp -d) || exit 2
trap 'rm -rf "$scratch"' EXIT
rm -f "$results" # one left by an earlier run must not pass for this run's
TRITON_CACHE_DIR="$scratch/triton-cache" "$repo/.venv/bin/python" "$repo/grader.py" \
    "${1//-/_}" --impl "$2" --format exercism "$results" 2>"$scratch/said"
status=$?
cat "$scratch/said" >&2
if [ "$status" -le 1 ] && [ -s "$results" ]; then
    exit 0 # the grade, in results.json (1: a drill that did not pass)
fi
case $status in
0 | 1 | 2) # refused before grading, or ended without writing: results.json says why
    "$repo/.venv/bin/python" -c '
import json, sys
said = open(sys.argv[1], errors="replace").read().strip() or "no reason was given"
result = {"version": 2, "status": "error", "message": "The drill could not be graded: " + said}
json.dump(result, open(sys.argv[2], "w"))' "$scratch/said" "$results" && exit 0
    ;;
esac
exit "$status"
