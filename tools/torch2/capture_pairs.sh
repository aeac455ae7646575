#!/usr/bin/env bash
# Runs the capture package under another torch (2.x on the GPU machine; README "Supported torch
# versions"): its unit tests, and a capture of every pair file given, into OUT:
#   OUT/versions.txt      python and torch versions
#   OUT/unittest.log      python -m unittest discover -s tests/capture, its exit status last
#   OUT/captures.tsv      pair file, capture exit status, the capture's error as JSON
#   OUT/captures.tar.gz   captures/NAME/{capture,reference,production}.json for each capture
# The captures come back to this machine and tools/torch2/check_captures.py decides them with the
# binary (the tests' expectations, # EXPECT lines, are the same under every torch).
# Usage: tools/torch2/capture_pairs.sh OUT PAIR.py...   (PYTHON picks the interpreter)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: capture_pairs.sh OUT PAIR.py...}; shift
py=${PYTHON:-python3}
mkdir -p "$out/captures"
export PYTHONPATH=$PWD/src/capture PYTHONUNBUFFERED=1 TORCHTV_CAPTURE_ONLY=1
"$py" -c 'import sys, torch; print("python", sys.version.split()[0]); print("torch", torch.__version__)' > "$out/versions.txt" 2>&1
( "$py" -m unittest discover -s tests/capture > "$out/unittest.log" 2>&1; echo "exit status $?" >> "$out/unittest.log" ) &
capture_one() {
  local pair=$1 name rc
  name=$(basename "$pair" .py)
  "$py" -m torchtv_capture "$pair" -o "$out/captures/$name" --force > "$out/captures/$name.log" 2>&1
  rc=$?
  # the capture's error, as the JSON line it prints last ({"error": ..., "file": ..., "line": ...})
  printf '%s\t%s\t%s\n' "$pair" "$rc" "$(grep '^{"error"' "$out/captures/$name.log" | tail -n 1)"
}
export -f capture_one; export out py
printf '%s\n' "$@" | xargs -P "${JOBS:-8}" -I{} bash -c 'capture_one "$@"' _ {} | sort > "$out/captures.tsv"
wait
tar -C "$out" -czf "$out/captures.tar.gz" captures && rm -rf "$out/captures"
