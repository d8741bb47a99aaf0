#!/usr/bin/env bash
# Build the one-folder app: dist/agent-review-loop/agent-review-loop (+ _internal/).
#
#   bash packaging/build.sh            # build
#   bash packaging/build.sh --smoke    # build, then run the frozen app's --smoke-test offscreen
#
# Linux is the tested target; the spec also carries the macOS .app and Windows bits (untested).
# Needs uv. Adds to dist/agent-review-loop/ the Linux .desktop file and icons (share/).
set -euo pipefail
cd "$(dirname "$0")/.."

smoke=0
for arg in "$@"; do
    case "$arg" in
        --smoke) smoke=1 ;;
        *) echo "usage: bash packaging/build.sh [--smoke]" >&2; exit 2 ;;
    esac
done

dist=dist/agent-review-loop
start=$(date +%s)
uv sync --group packaging --quiet
uv run --group packaging pyinstaller --noconfirm --clean --log-level WARN \
    --distpath dist --workpath build/pyinstaller packaging/agent-review-loop.spec

# Debug information only: a pyenv-built Python ships libpython (23 MB) and its extension
# modules unstripped. --strip-debug removes the .debug_* sections and nothing the loader or
# a traceback uses. Skipped when binutils' strip is missing.
if [[ "$(uname -s)" == Linux ]] && command -v strip >/dev/null && command -v readelf >/dev/null; then
    stripped=0
    while IFS= read -r -d '' f; do
        # grep without -q reads all of readelf's output: with pipefail, -q's early exit
        # would make readelf die of SIGPIPE and the test fail at random.
        if readelf -S "$f" 2>/dev/null | grep '\.debug_info' >/dev/null; then
            strip --strip-debug "$f" && stripped=$((stripped + 1))
        fi
    done < <(find "$dist" -type f \( -name '*.so' -o -name '*.so.*' \) -print0)
    echo "stripped debug information from $stripped libraries"
fi

# Linux desktop integration, beside the executable (copy share/ to ~/.local/share/ or
# /usr/share/ and point Exec= at the executable to install it into a menu).
if [[ "$(uname -s)" == Linux ]]; then
    mkdir -p "$dist/share/applications" "$dist/share/icons/hicolor/scalable/apps"
    cp packaging/linux/agent-review-loop.desktop "$dist/share/applications/"
    cp packaging/icons/agent-review-loop.svg "$dist/share/icons/hicolor/scalable/apps/"
    for size in 16 32 48 64 128 256 512; do
        mkdir -p "$dist/share/icons/hicolor/${size}x${size}/apps"
        cp "packaging/icons/agent-review-loop-$size.png" \
           "$dist/share/icons/hicolor/${size}x${size}/apps/agent-review-loop.png"
    done
fi

end=$(date +%s)
echo "built $dist in $((end - start)) s; $(du -sh "$dist" | cut -f1) on disk"

if (( smoke )); then
    exec bash packaging/smoke.sh
fi
