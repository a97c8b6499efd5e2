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

# inflate_pe IN OUT SIZE_MB: write OUT, a copy of the x64 PE file IN with
# one more section, ".bigdata", of SIZE_MB MiB of /dev/urandom bytes: the
# way real multi-hundred-MB DLLs (cuDNN, cuBLAS) carry their GPU code.
# The section goes right after the last one of the image, at
# ImageBase + SizeOfImage (already section-aligned).  Without an explicit
# address objcopy puts it at VMA 0, below the image base, and first in the
# file, which is not what a real big DLL looks like.  Random, non-sparse
# bytes: zeros could end up as holes in the file system (or compress away)
# and make reading the whole file unrealistically cheap.  The blob is
# written next to OUT (same file system, not a possibly small tmpfs /tmp).
# Returns 1 (after removing its temporary file) when a step fails.
inflate_pe() {
    local in=$1 dest=$2 size_mb=$3
    need_cmd x86_64-w64-mingw32-objcopy binutils-mingw-w64-x86-64 || return 1
    local hdr image_base size_of_image vma blob
    hdr=$(x86_64-w64-mingw32-objdump -p "$in") || return 1
    image_base=$(awk '$1 == "ImageBase" { print $2 }' <<<"$hdr")
    size_of_image=$(awk '$1 == "SizeOfImage" { print $2 }' <<<"$hdr")
    [[ -n $image_base && -n $size_of_image ]] || { echo "inflate_pe: no PE header in $in" >&2; return 1; }
    vma=$(printf '0x%x' $((16#$image_base + 16#$size_of_image)))
    blob=$(mktemp "$(dirname "$dest")/.inflate_pe.XXXXXX") || return 1
    if ! head -c "$((size_mb * 1024 * 1024))" /dev/urandom >"$blob" ||
        ! x86_64-w64-mingw32-objcopy \
            --add-section ".bigdata=$blob" \
            --set-section-flags .bigdata=contents,alloc,load,readonly,data \
            --change-section-address ".bigdata=$vma" \
            "$in" "$dest"; then
        rm -f "$blob"
        return 1
    fi
    rm -f "$blob"
}
