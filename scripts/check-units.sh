#!/usr/bin/env bash
# Checks the systemd units with systemd-analyze (works without systemd as PID 1).
# verify only warns on unknown or invalid keys and still exits 0, so any output
# on stderr counts as a failure here. Usage: scripts/check-units.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$(realpath "${1:-target/debug/attentive}")
[[ -x "$binary" ]] || { echo "check-units: $binary is not an executable (build first)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR="$work/runtime"
mkdir -m 0700 -p "$XDG_RUNTIME_DIR"
status=0
for unit in attentive.service attentive-user.service; do
    # The installed path does not exist here: point ExecStart at the built binary.
    sed "s#^ExecStart=/usr/local/bin/attentive#ExecStart=$binary#" "systemd/$unit" > "$work/$unit"
    scope=()
    [[ $unit == *-user.service ]] && scope=(--user)
    if ! systemd-analyze "${scope[@]}" verify --man=no "$work/$unit" 2> "$work/err"; then
        echo "check-units: systemd-analyze verify failed for $unit:" >&2; cat "$work/err" >&2; status=1
    elif [[ -s "$work/err" ]]; then
        echo "check-units: systemd-analyze verify warned about $unit:" >&2; cat "$work/err" >&2; status=1
    else
        echo "check-units: $unit verifies cleanly"
    fi
done
# The system unit's exposure score (0-100 scale: 20 = 2.0) must stay low.
if ! systemd-analyze security --offline=yes --threshold=20 "$work/attentive.service" > "$work/security" 2>&1; then
    echo "check-units: attentive.service is exposed beyond 2.0:" >&2; tail -5 "$work/security" >&2; status=1
else
    echo "check-units: attentive.service $(grep -o 'Overall exposure level.*' "$work/security")"
fi
exit $status
