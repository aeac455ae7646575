#!/usr/bin/env bash
# The libFuzzer run (fuzz/README.md): builds the fuzz targets with clang into
# build-fuzz/ and fuzzes each for SECONDS, one after another.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     # default: 15 s each, every target
#
# Each target starts from the committed corpus in tests/fuzz/NAME (read only)
# and its own corpus in build-fuzz/corpus/NAME (grown by earlier runs). A
# finding lands in build-fuzz/found/NAME/ and makes the script exit 1.
# Needs clang and libclang-rt-14-dev (not in scripts/install-deps.sh: CI does
# not run this).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-15}
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(tvir capture_json pt2_program manifest torchscript)
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DTORCHTV_FUZZ=ON > build-fuzz.log 2>&1 || { cat build-fuzz.log; exit 1; }
cmake --build build-fuzz -j2 --target "${targets[@]/#/fuzz_}" >> build-fuzz.log 2>&1 || { tail -n 40 build-fuzz.log; exit 1; }
status=0
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$t" "build-fuzz/found/$t" build-fuzz/logs
  log="build-fuzz/logs/$t-$(date +%Y%m%dT%H%M%S).log"
  if build-fuzz/fuzz/"fuzz_$t" "build-fuzz/corpus/$t" "tests/fuzz/$t" -max_total_time="$secs" \
      -rss_limit_mb=2048 -timeout=10 -artifact_prefix="build-fuzz/found/$t/" > "$log" 2>&1; then
    echo "fuzz_$t: $(grep -E '^Done [0-9]+ runs' "$log" | tail -1)"
  else
    echo "fuzz_$t: FINDING (log: $log, input in build-fuzz/found/$t/)"
    status=1
  fi
done
exit $status
