#!/usr/bin/env bash
# Run the frozen app's --smoke-test offscreen and check what it printed.
#
#   bash packaging/smoke.sh [DIST_FOLDER]     # default dist/agent-review-loop
#
# Fails (non-zero) unless the frozen app prints SMOKE OK, its versions and a keyring
# backend, and that backend is the one the source tree picks on this machine (a frozen app
# that lost keyring's backends falls back to the fail backend). Opens the example run the
# build ships (resources/example); a build without it fails. Reads and scores the Word
# review the build ships (resources/word: mammoth, lxml and olefile frozen with it), and the
# Markdown review as rendered text (resources/markdown: markdown-it-py frozen with it).
set -euo pipefail
cd "$(dirname "$0")/.."
dist=${1:-dist/agent-review-loop}
exe="$(realpath -m "$dist")/agent-review-loop"
[[ -x "$exe" ]] || { echo "smoke: $exe not found; run bash packaging/build.sh" >&2; exit 2; }

export QT_QPA_PLATFORM=offscreen
export QTWEBENGINE_CHROMIUM_FLAGS="${QTWEBENGINE_CHROMIUM_FLAGS:-} --disable-gpu"
if [[ $(id -u) == 0 ]]; then export QTWEBENGINE_DISABLE_SANDBOX=1; fi
# A throwaway workspace, settings and log folder, as a first start on a new machine.
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
export ARL_HOME="$home/arl" XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" \
       XDG_CACHE_HOME="$home/cache" XDG_STATE_HOME="$home/state"

# The app looks for the example the same way (app.main.example_bundle_path): a bundle folder,
# a .zip, or a bundle in a subfolder of resources/example.
example="$dist/_internal/resources/example"
args=(--smoke-test)
if [[ -f "$example/manifest.json" ]] || compgen -G "$example/*.zip" >/dev/null \
        || compgen -G "$example/*/manifest.json" >/dev/null; then
    echo "smoke: using the example run the build ships (resources/example)"
else
    echo "smoke: FAILED: the build ships no example run ($example)" >&2
    exit 1
fi

start=$(date +%s%N)
set +e
out=$(cd "$home" && timeout 300 "$exe" "${args[@]}" 2>"$home/stderr")
code=$?
set -e
end=$(date +%s%N)
echo "$out"
if (( code != 0 )) || ! grep -qx "SMOKE OK" <<<"$out"; then
    echo "smoke: FAILED (exit $code); the app's stderr:" >&2
    tail -n 40 "$home/stderr" >&2
    exit 1
fi
if ! grep -q "^word: review.docx read" <<<"$out"; then
    echo "smoke: FAILED: the frozen app did not read and score the Word review" >&2
    exit 1
fi
if ! grep -q "^markdown: review.md read as rendered text" <<<"$out"; then
    echo "smoke: FAILED: the frozen app did not read the Markdown review as rendered text" >&2
    exit 1
fi
frozen_backend=$(sed -n 's/^keyring backend: //p' <<<"$out")
source_backend=$(uv run --quiet python -c \
    "from app.secrets import backend_name; print(backend_name())" 2>/dev/null || echo "?")
if [[ -z "$frozen_backend" ]]; then
    echo "smoke: FAILED: the frozen app printed no keyring backend" >&2
    exit 1
fi
if [[ "$source_backend" != "?" && "$frozen_backend" != "$source_backend" ]]; then
    echo "smoke: FAILED: keyring backend frozen '$frozen_backend' vs source '$source_backend'" >&2
    exit 1
fi
echo "smoke: frozen app OK in $(( (end - start) / 1000000 )) ms (keyring backend, same as from source: $frozen_backend)"
