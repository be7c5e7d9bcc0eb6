#!/usr/bin/env bash
# Run one pytest tier and remember its result; `tier.sh --summary` prints every
# tier, one closing line "N passed, N failed, N skipped" over all of them, and
# fails if any tier failed.  pytest's exit code 5 ("no tests collected") is not a
# failure here: a tier may legitimately be empty.
#   usage: tier.sh NAME pytest-command...   |   tier.sh --reset   |   tier.sh --summary
set -u
dir=${TIER_DIR:-.tiers}
case "${1:-}" in
  --reset) rm -rf "$dir"; mkdir -p "$dir"; exit 0 ;;
  --summary)
    echo; echo "== test tiers"; cat "$dir"/*.status 2>/dev/null
    python3 - "$dir" <<'PY'
import glob, sys, xml.etree.ElementTree as ET
p = f = s = 0
for path in glob.glob(sys.argv[1] + "/*.xml"):
    for suite in ET.parse(path).getroot().iter("testsuite"):
        t = int(suite.get("tests", 0)); e = int(suite.get("errors", 0))
        fl = int(suite.get("failures", 0)); sk = int(suite.get("skipped", 0))
        p += t - e - fl - sk; f += e + fl; s += sk
print(f"tiers: {p} passed, {f} failed, {s} skipped")
PY
    ! grep -q FAILED "$dir"/*.status 2>/dev/null ;;
  *)
    name=$1; shift
    mkdir -p "$dir"
    echo; echo "== tier: $name"
    "$@" --junitxml="$dir/$name.xml"; rc=$?
    case $rc in
      0) echo "$name: passed" > "$dir/$name.status" ;;
      5) echo "$name: no tests collected (ok)" > "$dir/$name.status" ;;
      *) echo "$name: FAILED (exit $rc)" > "$dir/$name.status" ;;
    esac ;;
esac
