# Sourced by the ci/ scripts: create (once) and activate the repository's .venv, install openreg into it.
# Usage: source ci/_venv.sh [extras]   e.g. "test"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
    .venv/bin/python -m pip install -q --upgrade pip setuptools wheel
fi
extras="${1:-}"
spec="."
[ -n "$extras" ] && spec=".[$extras]"
.venv/bin/python -m pip install -q -e "$spec"
export PATH="$ROOT/.venv/bin:$PATH"
