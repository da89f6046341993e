#!/usr/bin/env bash
# The main job, as far as weft goes today: discover the bundled plugins
# (manifests only), inspect one, and check them together for conflicts.
set -euo pipefail
build=${1:-build}
weft="$build/bin/weft"
plugins="$build/bundled-plugins"

step() { printf '\n== %s\n' "$*"; }

step "weft plugin list (reads manifests; opens no library)"
"$weft" plugin list --plugin-path "$plugins"

step "weft plugin inspect colors"
"$weft" plugin inspect "$plugins/colors"

step "weft plugin check (every plugin on the search path: alone, pairwise, then together)"
"$weft" plugin check --plugin-path "$plugins"
