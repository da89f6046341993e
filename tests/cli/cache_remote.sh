#!/usr/bin/env bash
# weft build --remote-cache, weft cache stats|push|pull against a real
# redis-server on a random loopback port; SKIPPED (exit 77) without one.
# usage: cache_remote.sh WEFT KERNEL WORK_DIR
set -eu
weft=$1
kernel=$2
work=$3
server=$(command -v redis-server || true)
if [ -z "$server" ]; then echo "SKIPPED: redis-server is not installed (scripts/install-deps.sh installs it)"; exit 77; fi
rm -rf "$work"
mkdir -p "$work"
pid=
cleanup() { if [ -n "$pid" ]; then kill -9 "$pid" 2>/dev/null || true; fi; }
trap cleanup EXIT
for attempt in 1 2 3 4 5 6 7 8; do
  port=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 40000 ))
  "$server" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" >"$work/redis.log" 2>&1 &
  pid=$!
  up=no
  for i in $(seq 1 100); do
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then up=yes; break; fi
    sleep 0.05
  done
  [ "$up" = yes ] && break
  cleanup; pid=
done
[ -n "$pid" ] || { echo "FAILED: redis-server did not start"; exit 1; }
url="redis://127.0.0.1:$port"

expect() { # expect PATTERN OUTPUT
  if ! printf '%s\n' "$2" | grep -Eq "$1"; then printf 'FAILED: expected /%s/ in:\n%s\n' "$1" "$2"; exit 1; fi
}

# Entries are signed by default (issue 39): with no trusted keys nothing is fetched (a warning
# says how to name them), and accepting unsigned entries must be asked for, and is warned about.
"$weft" build "$kernel" --target cpu --cache-dir "$work/x" --remote-cache "$url" --remote-read-only >/dev/null 2>"$work/err"
expect "remote cache $url: its entries must be signed by a trusted key, and no trusted keys directory is named, so nothing is fetched from it" "$(cat "$work/err")"
"$weft" build "$kernel" --target cpu --cache-dir "$work/y" --remote-cache "$url" --remote-allow-unsigned --remote-read-only \
  >/dev/null 2>"$work/err"
expect "remote cache $url accepts unsigned entries \(require_signature is false\): anyone who can write to the server can choose code this host runs" "$(cat "$work/err")"

mkdir -p "$work/keys"
openssl genpkey -algorithm ed25519 -out "$work/writer.pem" 2>/dev/null
openssl pkey -in "$work/writer.pem" -pubout -out "$work/keys/writer.pem" 2>/dev/null
writer="--remote-trusted-keys $work/keys --remote-signing-key $work/writer.pem"
reader="--remote-trusted-keys $work/keys"

"$weft" build "$kernel" --target cpu --cache-dir "$work/a" --remote-cache "$url" $writer >/dev/null
out=$("$weft" cache stats --cache-dir "$work/a"); echo "$out"
expect '^compiles: +1$' "$out"
expect '^remote stores: +1$' "$out"

"$weft" build "$kernel" --target cpu --cache-dir "$work/b" --remote-cache "$url" $reader --remote-read-only >/dev/null
out=$("$weft" cache stats --cache-dir "$work/b")
expect '^compiles: +0$' "$out"
expect '^remote hits: +1$' "$out"

# push warms an empty remote from a local cache; pull fills an empty local cache.
"$weft" cache stats --cache-dir "$work/a" --json | grep -q '"remote_stores": 1'
out=$("$weft" cache push --cache-dir "$work/a" --remote-cache "$url" $writer); echo "$out"
expect "^pushed 1 artifacts to $url \(0 not pushed\)$" "$out"
out=$("$weft" cache pull --cache-dir "$work/c" --remote-cache "$url" $reader); echo "$out"
expect "^pulled 1 artifacts from $url \(0 already here, 0 rejected\)$" "$out"
"$weft" build "$kernel" --target cpu --cache-dir "$work/c" >/dev/null
out=$("$weft" cache stats --cache-dir "$work/c")
expect '^local hits: +1$' "$out"
expect '^compiles: +0$' "$out"

# A server that is gone: push fails (exit 1) saying so; a build still succeeds.
cleanup; pid=
if "$weft" cache push --cache-dir "$work/a" --remote-cache "$url" $writer >"$work/out" 2>"$work/err"; then
  echo "FAILED: push to a stopped server succeeded"; exit 1
fi
expect "the remote cache $url had 1 errors" "$(cat "$work/err")"
"$weft" build "$kernel" --target cpu --cache-dir "$work/d" --remote-cache "$url" $reader >/dev/null 2>"$work/err"
expect "remote cache $url is unavailable \(cannot connect: Connection refused\)" "$(cat "$work/err")"
echo ok
