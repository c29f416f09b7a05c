#!/usr/bin/env bash
# Runs the test command it is given with a mark in its environment (TRAITBRIDGE_TEST_RUN), which
# every process the tests start inherits; when the command ends, none of those may be left running
# (a crash reporter orphaned by a killed child, a peer a test forgot). What is left after 15 s is
# listed with its command line and parent, killed, and fails the run. When the tests fail, their
# failures are printed again at the end (CI keeps only the tail of a long log).
#
#   scripts/run-tests.sh COMMAND [ARGUMENTS...]
set -u
mark="$(date +%s%N)-$$"
log=$(mktemp "${TMPDIR:-/tmp}/run-tests.XXXXXX")
trap 'rm -f "$log"' EXIT
# Through a process substitution, not a pipe: a process left holding the output must not keep this
# script waiting before it can look for what is left.
TRAITBRIDGE_TEST_RUN="$mark" "$@" > >(tee "$log") 2>&1
status=$?
if [ "$status" -ne 0 ]; then
    sleep 1  # what tee still holds
    # Swift Testing marks a failure with ✘ (a known issue with ━); each with the next lines of its message.
    echo "run-tests: the failures, again (the first 60 lines):"
    grep -A 3 '✘' "$log" | head -60
fi

# The processes carrying this run's mark, one "pid ppid command" line each.
marked() {
    local dir pid
    for dir in /proc/[0-9]*; do
        pid=${dir#/proc/}
        if { tr '\0' '\n' < "$dir/environ"; } 2>/dev/null | grep -qx "TRAITBRIDGE_TEST_RUN=$mark"; then
            printf '%s %s %s\n' "$pid" "$({ awk '/^PPid:/ {print $2}' "$dir/status"; } 2>/dev/null)" \
                "$({ tr '\0' ' ' < "$dir/cmdline"; } 2>/dev/null | cut -c1-200)"
        fi
    done
}

# Orphan guards notice their owner's end within a second; stopped children may still be exiting.
left=""
for _ in $(seq 1 30); do
    left=$(marked)
    [ -z "$left" ] && break
    sleep 0.5
done
if [ -n "$left" ]; then
    echo "run-tests: processes the tests started are still running after they ended (pid, parent, command):" >&2
    echo "$left" >&2
    echo "$left" | awk '{print $1}' | xargs -r kill -KILL 2>/dev/null
    [ "$status" -eq 0 ] && status=1
else
    echo "run-tests: nothing the tests started is left running"
fi
exit "$status"
