#!/usr/bin/env bash
# The HTML report in a real browser: installs what it needs (Debian's chromium
# as root, playwright-core from npm into the build tree), renders reports with
# the real CLI, checks them in headless Chromium and checks the screenshot.
# Usage: run_browser_test.sh TORCHTV SOURCE_DIR WORK_DIR
set -euo pipefail
torchtv="$1" src="$2" work="$3"
playwright_version=1.65.1
python=/usr/bin/python3   # Debian's Python: it sees python3-pil

need_apt=()
command -v chromium >/dev/null || need_apt+=(chromium)
command -v npm >/dev/null || need_apt+=(nodejs npm)
"$python" -c "import PIL" 2>/dev/null || need_apt+=(python3-pil)
command -v dot >/dev/null || need_apt+=(graphviz)
if [[ ${#need_apt[@]} -gt 0 ]]; then
  if [[ $(id -u) -ne 0 ]]; then
    echo "FAIL browser test: missing ${need_apt[*]} and not root to install them;" >&2
    echo "  run: sudo apt-get install -y --no-install-recommends ${need_apt[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

mkdir -p "$work"
if [[ ! -f "$work/node_modules/playwright-core/package.json" ]] ||
   ! grep -q "\"version\": \"$playwright_version\"" "$work/node_modules/playwright-core/package.json"; then
  npm install --silent --no-audit --no-fund --prefix "$work" "playwright-core@$playwright_version" ||
    { echo "FAIL browser test: npm could not install playwright-core@$playwright_version" >&2; exit 1; }
fi

# Reports to look at: a divergence drawn in both graphs, a counterexample, an equivalent pair,
# and for the model-size checks (the divergence in view on load, search, fit, the side panel)
# a transformer train step (1 layer, the planted eps bug of bench/gen_transformer.py) and three
# repeated layers (a .tvir pair that decides in about 2 s; its repeats folded into boxes that
# expand). The 8- and 64-layer pairs take minutes to capture and decide: bench/report_browser.sh.
set +e
"$torchtv" check "$src/examples/rmsnorm_reference.tvir" "$src/examples/rmsnorm_production_bug.tvir" \
  --report "$work/divergence.html" >/dev/null
"$torchtv" check "$src/tests/golden/structural/output_dtype_mismatch.tvir" --report "$work/counterexample.html" >/dev/null
"$torchtv" check "$src/examples/rmsnorm_reference.tvir" "$src/examples/rmsnorm_production.tvir" \
  --report "$work/equivalent.html" >/dev/null
# Three repeated layers with a bug in the second: the repeats folded (checked by "layers").
"$torchtv" check "$src/tests/browser/layers3_eps.tvir" --report "$work/layers3_eps.html" >/dev/null
"$python" "$src/bench/gen_transformer.py" -o "$work/pairs" --sizes small --layers 1 --bugs eps --bug-layers 1 >/dev/null
"$torchtv" verify "$work/pairs/transformer_small_L1__eps.py" --report "$work/transformer_L1_eps.html" >/dev/null
set -e
rm -f "$work"/shot-*.png
node "$src/tests/browser/report_browser.js" "$work" "$work/shot" \
  "$work/divergence.html:divergence:shot" "$work/counterexample.html:counterexample" \
  "$work/equivalent.html:equivalent" "$work/transformer_L1_eps.html:scale:shot" "$work/layers3_eps.html:layers:shot"
for shot in "$work"/shot-*.png; do "$python" "$src/tests/browser/check_screenshot.py" "$shot"; done
echo "ok browser: reports checked in $(chromium --version 2>/dev/null | head -1)"
