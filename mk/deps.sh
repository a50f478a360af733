#!/bin/sh
# Checks the Debian packages callsign needs; installs the missing ones when run as root,
# otherwise prints the one apt-get command to run and fails.
PKGS="make gcc clang pkg-config libcjson-dev libssl-dev libcurl4-openssl-dev libpcre2-dev libcriterion-dev libxml2-utils python3 nodejs chromium"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# python3 and node may come from outside Debian's packages; accept them when on PATH.
case "$missing" in *python3*) command -v python3 >/dev/null 2>&1 && missing=$(echo "$missing" | sed 's/ python3//');; esac
case "$missing" in *nodejs*) command -v node >/dev/null 2>&1 && missing=$(echo "$missing" | sed 's/ nodejs//');; esac
[ -z "$missing" ] && { echo "deps: all present"; exit 0; }
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "deps: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  (apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing) >/tmp/callsign-deps.log 2>&1 || {
    echo "deps: apt-get failed, see /tmp/callsign-deps.log" >&2; tail -5 /tmp/callsign-deps.log >&2; exit 1; }
  echo "deps: installed"
else
  echo "deps: missing packages; run: sudo apt-get install -y$missing" >&2
  exit 1
fi
