#!/usr/bin/env bash
# Installs what is missing, builds fennel, and runs every test suite: once in the normal
# build and once under AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
fennel_install_deps

passed=0
failed=0
run_suite() {
    local dir=$1 log
    log=$(mktemp)
    local status=0
    meson test -C "$dir" --setup all --print-errorlogs --num-processes 2 >"$log" 2>&1 || status=$?
    grep -E "^ *[0-9]+/[0-9]+ |^(Ok|Fail|Expected Fail|Unexpected Pass|Skipped|Timeout):" "$log" || true
    if ((status != 0)); then
        tail -n 150 "$log"
    fi
    passed=$((passed + $(awk '/^Ok:/ {print $2}' "$log")))
    failed=$((failed + $(awk '/^(Fail|Timeout|Unexpected Pass):/ {s += $2} END {print s + 0}' "$log")))
    rm -f "$log"
    return 0
}

echo "== build"
fennel_build build
echo "== tests"
run_suite build

echo "== sanitizer build (address, undefined)"
fennel_build build-sanitize -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    run_suite build-sanitize

echo "tests: $passed passed, $failed failed"
((failed == 0))
