#!/usr/bin/env bash
# Quick start: installs what is missing, builds, and decides a bundled pair.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
echo
echo "$ build/torchtv check examples/rmsnorm_reference.tvir examples/rmsnorm_production.tvir"
set +e
build/torchtv check examples/rmsnorm_reference.tvir examples/rmsnorm_production.tvir
rc=$?
set -e
echo "(exit code $rc)"
exit $rc
