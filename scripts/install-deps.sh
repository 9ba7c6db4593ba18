#!/usr/bin/env bash
# Installs the Debian packages chipsim needs to build, test and plot.
#
#   scripts/install-deps.sh [--if-missing] [--fuzz] [--slurm]
#
# --if-missing  do nothing when everything is already present (what `make` uses)
# --fuzz        add clang (libFuzzer) for `make fuzz`
# --slurm       add slurm-wlm and munge for the Slurm test (tests/slurm/run.sh)
#
# Idempotent. It prints the package list and which packages are missing before it starts.
# apt-get waits up to DEPS_LOCK_TIMEOUT seconds (default 600) for another apt or dpkg to
# release its locks, retries each failed download 3 times, and the whole update-and-install
# step is tried DEPS_TRIES times (default 3), DEPS_PAUSE seconds apart (default 30).
set -euo pipefail

LOCK_TIMEOUT=${DEPS_LOCK_TIMEOUT:-600}
TRIES=${DEPS_TRIES:-3}
PAUSE=${DEPS_PAUSE:-30}

IF_MISSING=false
FUZZ=false
SLURM=false
for a in "$@"; do
    case $a in
    --if-missing) IF_MISSING=true ;;
    --fuzz) FUZZ=true ;;
    --slurm) SLURM=true ;;
    -h | --help)
        sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
        exit 0
        ;;
    *)
        echo "install-deps: unknown option '$a' (try --help)" >&2
        exit 2
        ;;
    esac
done

PACKAGES=(gcc make pkg-config libinih-dev libjansson-dev libcriterion-dev libsqlite3-dev
          liblzma-dev libcsv-dev python3 python3-matplotlib)
if $FUZZ; then
    PACKAGES+=(clang)
fi
if $SLURM; then
    PACKAGES+=(slurm-wlm munge)
fi

say() { echo "install-deps: $*" >&2; }

have_pc() { command -v pkg-config >/dev/null && pkg-config --exists "$1"; }

# Whether what package $1 provides is usable, checked the way the build uses it (so that a
# library installed some other way also counts).
present() {
    case $1 in
    gcc | make | pkg-config | clang) command -v "$1" ;;
    libinih-dev) have_pc inih ;;
    libjansson-dev) have_pc jansson ;;
    libcriterion-dev) have_pc criterion ;;
    libsqlite3-dev) have_pc sqlite3 ;;
    liblzma-dev) have_pc liblzma ;;
    libcsv-dev) [ -f /usr/include/csv.h ] ;; # no pkg-config module
    # the plots of `chipsim study` use Debian's Python and matplotlib
    python3) [ -x /usr/bin/python3 ] ;;
    python3-matplotlib) /usr/bin/python3 -c 'import matplotlib' ;;
    slurm-wlm) command -v slurmctld && command -v slurmd && command -v sbatch ;;
    munge) command -v munged ;;
    *) dpkg-query -W -f='${Status}' "$1" | grep -q 'ok installed' ;;
    esac
}

missing() {
    MISSING=()
    local p
    for p in "${PACKAGES[@]}"; do
        present "$p" >/dev/null 2>&1 || MISSING+=("$p")
    done
    [ ${#MISSING[@]} -gt 0 ]
}

if ! missing && $IF_MISSING; then
    exit 0
fi

say "packages: ${PACKAGES[*]}"
if [ ${#MISSING[@]} -gt 0 ]; then
    say "missing:  ${MISSING[*]}"
else
    say "missing:  none (installing anyway: no --if-missing)"
fi

SUDO=
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then SUDO=sudo; else
        say "need root (or sudo) to install: ${PACKAGES[*]}"
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
APT=(apt-get -o "DPkg::Lock::Timeout=$LOCK_TIMEOUT" -o Acquire::Retries=3)
[ -z "$SUDO" ] || APT=("$SUDO" "${APT[@]}")

# apt-get update takes the package lists' lock, for which DPkg::Lock::Timeout does not wait
# (apt 2.6): wait for it here, up to the same timeout.
update() {
    local waited=0 out
    while true; do
        if out=$("${APT[@]}" update -qq 2>&1); then
            [ -z "$out" ] || echo "$out" >&2
            return 0
        fi
        if ! grep -q 'Could not get lock' <<<"$out" || [ "$waited" -ge "$LOCK_TIMEOUT" ]; then
            echo "$out" >&2
            return 1
        fi
        [ "$waited" -gt 0 ] || say "waiting for another apt to release the package lists' lock"
        sleep 5
        waited=$((waited + 5))
    done
}

install() {
    "${APT[@]}" install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null
}

say "apt-get update and install (waiting up to $LOCK_TIMEOUT s for any other apt or dpkg)"
try=1
until update && install; do
    if [ "$try" -ge "$TRIES" ]; then
        say "apt-get failed $TRIES times; giving up"
        exit 1
    fi
    say "apt-get failed (try $try of $TRIES); trying again in $PAUSE s"
    sleep "$PAUSE"
    try=$((try + 1))
done

if missing; then
    say "packages installed but still not found: ${MISSING[*]}"
    exit 1
fi
say "done: every package is installed"
