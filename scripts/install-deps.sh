#!/usr/bin/env bash
# Installs the Debian packages chipsim needs to build, test and plot.
# Idempotent: with --if-missing it does nothing when everything is present.
# --fuzz adds clang (libFuzzer) for `make fuzz`.
set -euo pipefail

PACKAGES=(gcc make pkg-config libinih-dev libjansson-dev libcriterion-dev libsqlite3-dev
          liblzma-dev libcsv-dev python3 python3-matplotlib)
PKGCONFIG_MODULES=(inih jansson criterion sqlite3 liblzma)
FUZZ=false
for a in "$@"; do
    [ "$a" = "--fuzz" ] && FUZZ=true
done
if $FUZZ; then
    PACKAGES+=(clang)
fi

missing() {
    command -v gcc >/dev/null && command -v pkg-config >/dev/null || return 0
    if $FUZZ; then
        command -v clang >/dev/null || return 0
    fi
    for m in "${PKGCONFIG_MODULES[@]}"; do
        pkg-config --exists "$m" || return 0
    done
    # libcsv has no pkg-config module
    [ -f /usr/include/csv.h ] || return 0
    # the plots of `chipsim study` use Debian's Python and matplotlib
    /usr/bin/python3 -c 'import matplotlib' 2>/dev/null || return 0
    return 1
}

if [ "${1:-}" = "--if-missing" ] && ! missing; then
    exit 0
fi

SUDO=
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then SUDO=sudo; else
        echo "install-deps: need root (or sudo) to install: ${PACKAGES[*]}" >&2
        exit 1
    fi
fi
echo "install-deps: installing ${PACKAGES[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null
if missing; then
    echo "install-deps: packages installed but still not found by pkg-config" >&2
    exit 1
fi
