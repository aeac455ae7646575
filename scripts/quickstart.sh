#!/usr/bin/env bash
# Quick start: installs what is missing, builds, and decides the bundled example pairs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
run() {
  echo
  echo "\$ $*"
  set +e
  "$@"
  echo "(exit code $?)"
  set -e
}
# Two .tvir graphs: RMSNorm written two ways.
run build/torchtv check examples/rmsnorm_reference.tvir examples/rmsnorm_production.tvir
# A pair file: LayerNorm train step, autograd reference against a hand-derived backward.
run build/torchtv verify tests/capture/pairs/layernorm_train.py
# The same pair with a planted bug (the bias gradient averaged instead of summed).
run build/torchtv verify tests/capture/pairs/layernorm_train__bias_grad.py
