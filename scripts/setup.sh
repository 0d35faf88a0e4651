#!/usr/bin/env bash
# One-time machine setup for attentive on Debian: system packages and the
# offline speech model. Idempotent; safe to run before every build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ci-speech-setup.sh
