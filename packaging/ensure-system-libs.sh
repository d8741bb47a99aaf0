#!/usr/bin/env bash
# Make sure the system libraries Qt and QtWebEngine load (offscreen included) and the tools
# PyInstaller uses on Linux are present; install the missing ones with apt-get (Debian or
# Ubuntu, as root or with sudo). Does nothing, quickly, when all are there.
#
#   bash packaging/ensure-system-libs.sh
#
# The sonames are the NEEDED entries of PySide6's libQt6WebEngineCore, QtWebEngineProcess,
# libQt6Gui/Widgets/Network/DBus/XcbQpa and the offscreen and xcb platform plugins that are
# not shipped inside the PySide6 wheels.
set -euo pipefail

pairs=(
    "libEGL.so.1 libegl1" "libGL.so.1 libgl1" "libOpenGL.so.0 libopengl0"
    "libgbm.so.1 libgbm1" "libfontconfig.so.1 libfontconfig1" "libfreetype.so.6 libfreetype6"
    "libxkbcommon.so.0 libxkbcommon0" "libxkbcommon-x11.so.0 libxkbcommon-x11-0"
    "libnss3.so libnss3" "libnspr4.so libnspr4" "libdbus-1.so.3 libdbus-1-3"
    "libasound.so.2 libasound2" "libglib-2.0.so.0 libglib2.0-0" "libexpat.so.1 libexpat1"
    "libbrotlidec.so.1 libbrotli1" "libudev.so.1 libudev1" "libgssapi_krb5.so.2 libgssapi-krb5-2"
    "libX11.so.6 libx11-6" "libX11-xcb.so.1 libx11-xcb1" "libXext.so.6 libxext6"
    "libXfixes.so.3 libxfixes3" "libXcomposite.so.1 libxcomposite1"
    "libXdamage.so.1 libxdamage1" "libXrandr.so.2 libxrandr2" "libXtst.so.6 libxtst6"
    "libxkbfile.so.1 libxkbfile1" "libxcb.so.1 libxcb1" "libxcb-cursor.so.0 libxcb-cursor0"
    "libxcb-icccm.so.4 libxcb-icccm4" "libxcb-image.so.0 libxcb-image0"
    "libxcb-keysyms.so.1 libxcb-keysyms1" "libxcb-randr.so.0 libxcb-randr0"
    "libxcb-render-util.so.0 libxcb-render-util0" "libxcb-shape.so.0 libxcb-shape0"
    "libxcb-xkb.so.1 libxcb-xkb1" "libxcb-dri3.so.0 libxcb-dri3-0"
    "libxcb-render.so.0 libxcb-render0" "libxcb-shm.so.0 libxcb-shm0"
    "libxcb-sync.so.1 libxcb-sync1" "libxcb-util.so.1 libxcb-util1"
    "libxcb-xfixes.so.0 libxcb-xfixes0"
)

missing=()
cache=$(ldconfig -p 2>/dev/null || /sbin/ldconfig -p)
for pair in "${pairs[@]}"; do
    so=${pair%% *}
    grep -qF "	$so (" <<<"$cache" || missing+=("${pair#* }")
done
for tool in objdump readelf strip; do
    command -v "$tool" >/dev/null || { missing+=(binutils); break; }
done
# Chromium and Qt need at least one font and a fontconfig configuration.
if [[ ! -f /etc/fonts/fonts.conf ]] || ! find /usr/share/fonts -type f -print -quit 2>/dev/null | grep -q .; then
    missing+=(fontconfig fonts-dejavu-core)
fi

if (( ${#missing[@]} == 0 )); then
    echo "system libraries: all present"
    exit 0
fi
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
echo "system libraries: installing ${missing[*]}"
sudo=()
if [[ $(id -u) != 0 ]]; then
    command -v sudo >/dev/null || { echo "not root and no sudo: install ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
fi
command -v apt-get >/dev/null || { echo "no apt-get: install the equivalents of ${missing[*]}" >&2; exit 1; }
"${sudo[@]}" apt-get update -qq
resolved=()
for pkg in "${missing[@]}"; do
    # Debian 13 and Ubuntu 24.04 renamed some libraries with a t64 suffix.
    if ! apt-cache show "$pkg" >/dev/null 2>&1 && apt-cache show "${pkg}t64" >/dev/null 2>&1; then
        pkg="${pkg}t64"
    fi
    resolved+=("$pkg")
done
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
    "${resolved[@]}" >/dev/null
echo "system libraries: installed ${resolved[*]}"
