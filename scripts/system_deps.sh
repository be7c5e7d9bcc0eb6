#!/usr/bin/env bash
# Install a Debian package the kit needs when its program is missing, if we can
# (root, or passwordless sudo).  Never fails the caller for lack of rights: it
# prints what to run instead.   usage: system_deps.sh graphviz|chromium
set -u
pkg=$1
case $pkg in
  graphviz) prog=dot ;;
  chromium) prog=chromium ;;
  *) echo "system_deps.sh: unknown package $pkg" >&2; exit 2 ;;
esac
command -v "$prog" >/dev/null 2>&1 && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "note: '$prog' not found and this is not a Debian/Ubuntu system; install $pkg yourself." >&2
  exit 1
fi
if [ "$(id -u)" = 0 ]; then SUDO=""
elif sudo -n true 2>/dev/null; then SUDO="sudo -n"
else
  echo "note: '$prog' not found; run: sudo apt-get install -y $pkg" >&2
  exit 1
fi
echo "installing Debian package $pkg (for '$prog') ..."
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null && $SUDO apt-get install -y -qq "$pkg" >/dev/null
command -v "$prog" >/dev/null 2>&1
