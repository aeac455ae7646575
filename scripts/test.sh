#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test, then
# replays the readers' fuzz corpora under ASan + UBSan (docs/trust.md,
# "Sanitizers"; TORCHTV_SANITIZE_CI=0 skips that step).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
(cd build && ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)" --timeout 900)
if [[ "${TORCHTV_SANITIZE_CI:-1}" != 0 ]]; then
  cmake --preset asan > build-asan.log 2>&1 || { cat build-asan.log; exit 1; }
  cmake --build --preset asan-readers >> build-asan.log 2>&1 || { tail -n 60 build-asan.log; exit 1; }
  ctest --preset asan-readers --output-on-failure
fi
