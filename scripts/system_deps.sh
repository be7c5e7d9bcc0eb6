#!/usr/bin/env bash
# Install a Debian package the kit needs when what it provides is missing, if we
# can (root, or passwordless sudo).  Without the rights it prints the command to
# run instead and exits 1; callers decide whether that is fatal.
#   usage: system_deps.sh graphviz|chromium|python3-venv
set -u
pkg=$1
have() { command -v "$1" >/dev/null 2>&1; }
case $pkg in
  graphviz) what="the 'dot' program"; check() { have dot; } ;;
  chromium) what="the 'chromium' browser"; check() { have chromium; } ;;
  # Debian's python3 has no venv/ensurepip until python3-venv is installed
  python3-venv) what="python3's venv module"; check() { "${PYTHON:-python3}" -c "import ensurepip, venv" 2>/dev/null; } ;;
  *) echo "system_deps.sh: unknown package $pkg" >&2; exit 2 ;;
esac
check && exit 0
if ! have apt-get; then
  echo "note: $what is missing and this is not a Debian/Ubuntu system; install $pkg yourself." >&2
  exit 1
fi
if [ "$(id -u)" = 0 ]; then SUDO=""
elif sudo -n true 2>/dev/null; then SUDO="sudo -n"
else
  echo "note: $what is missing; run: sudo apt-get install -y $pkg" >&2
  exit 1
fi
echo "installing Debian package $pkg (for $what) ..."
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null && $SUDO apt-get install -y -qq "$pkg" >/dev/null
check
