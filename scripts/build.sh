#!/usr/bin/env bash
# Configures and builds torchtv into build/ (the CLI lands at build/torchtv).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" > build.log 2>&1 || { cat build.log; exit 1; }
cmake --build build -j "$jobs" >> build.log 2>&1 || { tail -n 60 build.log; exit 1; }
echo "build: build/torchtv ready"
