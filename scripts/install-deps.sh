#!/usr/bin/env bash
# Installs what torchtv needs from Debian 12's packages, and nothing else.
# Idempotent: packages already installed are skipped. As root it runs apt-get;
# otherwise it prints the command to run.
set -euo pipefail

PACKAGES=(
  cmake make g++                 # build
  python3                        # the golden-test runner (any Python 3)
  libtorch-dev python3-torch     # TorchScript import, replay; graph capture (torch 1.13)
  python3-pytest                 # tests of the Python API
  python3-matplotlib             # the benchmark's plot (bench/run.py)
  libz3-dev                      # the SMT prover
  libboost-dev                   # Boost.Multiprecision (headers): exact rationals of the real normal form
  libboost-graph-dev             # Boost.Graph (headers): post-dominators and reachability that rank cut candidates
  libspdlog-dev                  # logging
  doctest-dev                    # unit tests
  libcli11-dev                   # command-line parsing
  nlohmann-json3-dev             # JSON reading and writing
  libzip-dev pkg-config          # reading .pt2 archives (both layouts)
  libtoml11-dev                  # `torchtv ci` manifests (TOML, header-only)
  libsqlite3-dev                 # the proof cache's default store (src/cache/)
  libhiredis-dev                 # the proof cache shared through Redis (--cache redis://...)
  redis-server                   # tests: a real Redis for the proof cache's test
  graphviz                       # `dot` lays out the graphs of the HTML report
  bubblewrap util-linux          # `verify --sandbox`: bwrap, prlimit and setpriv (Note [The capture sandbox])
  fonts-dejavu-core              # the font the report's drawings and page use
  python3-jsonschema             # tests: validate SARIF against its schema
  python3-pil                    # tests: check the browser test's screenshot
  chromium                       # tests: open HTML reports in a real browser
  dpkg-dev file                  # the .deb: dpkg-shlibdeps derives its Depends, CPack runs `file` on the binaries
  python3-yaml git curl          # tests: the composite action (action.yml) on a scratch repository
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  [[ "$pkg" == \#* ]] && continue
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

# npm installs playwright-core for the browser test. Any npm will do: a node
# from elsewhere (e.g. NodeSource's) must not be replaced by Debian's.
if ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all packages present"
  exit 0
fi

echo "install-deps: missing: ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: not root; please run:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${missing[*]}"
