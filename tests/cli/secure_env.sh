#!/bin/sh
# With AT_SECURE (a setgid copy of secure_env), the environment overrides are
# ignored; the plain program takes them (the control). Needs root to give the
# copy another group, and a file system that honours set-group-ID bits:
# otherwise the test reports SKIPPED (exit 77).
# usage: secure_env.sh PROGRAM WORK_DIR
set -eu
program=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
export WEFT_PLUGIN_PATH=/from/env/plugins WEFT_CACHE_DIR=/from/env/cache WEFT_DEBUG=all \
  WEFT_REMOTE_CACHE=redis://from.env:1
plain=$("$program")
echo "$plain"
echo "$plain" | grep -q '^secure 0$'
echo "$plain" | grep -q '^search /from/env/plugins$'
echo "$plain" | grep -q '^cache /from/env/cache$'
echo "$plain" | grep -q '^debug 1$'
echo "$plain" | grep -q '^remote redis://from.env:1$'

if [ "$(id -u)" -ne 0 ]; then echo "SKIPPED: making a setgid copy for another group needs root"; exit 77; fi
cp "$program" "$work/secure_env"
chgrp 65534 "$work/secure_env"
chmod g+s "$work/secure_env"
secure=$("$work/secure_env")
echo "$secure"
if echo "$secure" | grep -q '^secure 0$'; then echo "SKIPPED: $work does not honour set-group-ID bits (nosuid?)"; exit 77; fi
echo "$secure" | grep -q '^secure 1$'
if echo "$secure" | grep -q '/from/env'; then echo "FAILED: a setgid process took an environment override"; exit 1; fi
echo "$secure" | grep -q '^debug 0$'
echo "$secure" | grep -q '^remote -$'
echo ok
