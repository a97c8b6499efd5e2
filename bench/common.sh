# shellcheck shell=bash
# Helpers shared by the bench scripts (sourced, not executed).

# need_cmd CMD PACKAGE: make sure CMD exists.  A fresh machine only has
# compilers, so when we are root we install the Debian package that ships
# CMD (and only if it is missing, to keep reruns fast and offline-safe).
# Returns 1 if CMD is still unavailable afterwards; callers decide whether
# that is fatal (the DLL builder) or just a "not installed" row (peers).
need_cmd() {
    local cmd=$1 pkg=$2
    if command -v "$cmd" >/dev/null 2>&1 || [[ -x $cmd ]]; then
        return 0
    fi
    install_pkg "$pkg" || true
    command -v "$cmd" >/dev/null 2>&1 || [[ -x $cmd ]]
}

# need_file PATH PACKAGE: same as need_cmd, for a non-executable file
# (a header, a Python module, the Wine DLL directory).
need_file() {
    local path=$1 pkg=$2
    [[ -e $path ]] && return 0
    install_pkg "$pkg" || true
    [[ -e $path ]]
}

# install_pkg PACKAGE: apt-get install, only as root, with one
# `apt-get update` per script run (the package lists may be absent or stale
# on a fresh machine, and running update for every package would be slow).
BENCH_APT_UPDATED=${BENCH_APT_UPDATED:-0}
install_pkg() {
    local pkg=$1
    if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
        echo "bench: '$pkg' is missing and we are not root; install it by hand" >&2
        return 1
    fi
    if dpkg -s "$pkg" >/dev/null 2>&1; then
        return 0
    fi
    echo "bench: installing $pkg" >&2
    if [[ $BENCH_APT_UPDATED -eq 0 ]]; then
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || true
        BENCH_APT_UPDATED=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" >&2
}
