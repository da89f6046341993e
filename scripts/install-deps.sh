#!/usr/bin/env bash
# Installs the Debian 12 packages weft needs; skips the ones already present.
# This is the one place that names them.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  # cpack -G DEB and its test: dpkg-shlibdeps derives the packages' dependencies.
  dpkg-dev
  llvm-19-dev libclang-19-dev clang-19 libclang-cpp19-dev
  libboost-dev libboost-filesystem-dev
  libtomlplusplus-dev
  libssl-dev openssl
  # The shared artifact cache: the Redis server its tests start, and hiredis, the independent client
  # the tests check weft's own protocol code against (libweft links neither).
  libhiredis-dev redis-server
  catch2
  libfmt-dev
  libcli11-dev
  nlohmann-json3-dev
  libglm-dev librandom123-dev
  # bench/tiles compares tile_matmul with OpenBLAS's sgemm (bench only: nothing else links it).
  libopenblas-dev
  # The EGL bridge loads libEGL at run time; its tests use Mesa's surfaceless display.
  libegl1 libegl-mesa0 libgl1-mesa-dri
)
# Optional groups, named on the command line: `install-deps.sh fuzz`.
fuzz_packages=(libclang-rt-19-dev)
for group in "$@"; do
  case "$group" in
    fuzz) packages+=("${fuzz_packages[@]}") ;;
    *) echo "install-deps.sh: unknown group '$group' (known: fuzz)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "weft: installing missing packages: ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
