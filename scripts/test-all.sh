#!/usr/bin/env bash
# Runs every check: the typecheck (tsc --noEmit) and the linter (biome check)
# first, then the tiers by cost: unit/API/db tests (no build), the compiled
# binary's smoke and attack tests, then the browser tests (Chromium against the
# binary) side by side with the real-PBX tier (test/pbx) against the testbed. Installs what it
# needs first (npm packages, Debian packages; the testbed's own through its `up`).
# Ends with the line "N passed, N failed, N skipped" from the JUnit reports
# (typecheck and lint count as one test each), and exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."

[ -x node_modules/.bin/bun ] || npm install --no-audit --no-fund || exit 1
bash scripts/ensure-system-deps.sh || exit 1
BUN=node_modules/.bin/bun

reports=$(mktemp -d)
trap 'rm -rf "$reports"' EXIT
status=0

run_group() { # name, paths...
  local name=$1
  shift
  echo "== $name: bun test $*"
  # The output is also kept, so the summary can say why a group failed without a failed test.
  # A test's time limit only catches a hang: how fast something is belongs in bench/, and a real reload,
  # install or browser step takes many times longer on a loaded machine than on an idle one. Bun's own
  # default (5 s) cannot be changed in bunfig.toml, only by this flag (package.json's scripts pass it too).
  "$BUN" test "$@" --timeout 60000 --reporter=junit --reporter-outfile="$reports/$name.xml" 2>&1 | tee "$reports/$name.log"
  local code=${PIPESTATUS[0]}
  echo "$name exit=$code" >>"$reports/exit-codes"
  [ $code -eq 0 ] || status=1
}

# A gate that is not a bun test (typecheck, lint) is recorded as a one-test JUnit suite.
run_check() { # name, command...
  local name=$1
  shift
  echo "== $name: $*"
  "$@" 2>&1
  local code=$?
  local failures=0
  [ $code -eq 0 ] || { failures=1; status=1; }
  printf '<?xml version="1.0"?>\n<testsuites name="%s" tests="1" failures="%s" skipped="0"></testsuites>\n' \
    "$name" "$failures" >"$reports/$name.xml"
  echo "$name exit=$code" >>"$reports/exit-codes"
}

run_check typecheck node_modules/.bin/tsc --noEmit
run_check lint node_modules/.bin/biome check .

# The real FreePBX 17 + Asterisk 22 of ../shared/testbed: `up` installs what it needs and starts it,
# first, so its log is in the output and its time is in no test's hook. The unit tests' PBX test host
# runs its own Asterisk from the testbed's tree; test/pbx uses the testbed itself. The output goes to
# files: the shell `up` leaves starting MariaDB keeps them open, and would keep a pipe open for ever.
testbed=${PBX_TESTBED_DIR:-../shared/testbed}
echo "== testbed: $testbed/up"
timeout 1200 "$testbed/up" >"$reports/testbed.env" 2>"$reports/testbed.log" </dev/null
code=$?
cat "$reports/testbed.log"
printf '<?xml version="1.0"?>\n<testsuites name="testbed" tests="1" failures="%s" skipped="0"></testsuites>\n' \
  "$([ $code -eq 0 ] && echo 0 || echo 1)" >"$reports/testbed.xml"
echo "testbed exit=$code" >>"$reports/exit-codes"
[ $code -eq 0 ] || status=1

run_group unit test/server test/db test/shared test/web test/install test/fakes test/pbx-host

echo "== build"
if "$BUN" run build.ts; then
  run_group binary test/smoke test/security
  # The browser tier waits mostly on Chromium and the binary, the real-PBX tier mostly on the PBX (calls,
  # reloads, registrations): they share nothing (the browser tests never touch the testbed), so they run side
  # by side. The PBX tier's output is printed after the browser tier's, whole.
  ( run_group pbx test/pbx/ >"$reports/pbx.out" 2>&1; exit $status ) &
  pbx_pid=$!
  run_group browser test/browser
  wait $pbx_pid || status=1
  cat "$reports/pbx.out"
else
  echo "binary build failed" >&2
  echo "build exit=1" >>"$reports/exit-codes"
  status=1
fi

"$BUN" scripts/junit-summary.ts "$reports" || status=1
exit $status
