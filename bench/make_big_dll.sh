#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Build the ~600 MB x64 DLL used by bench/run.sh.
#
# Usage: bench/make_big_dll.sh OUT.dll
#   BIG_DLL_MB=N  size of the inflating section in MiB (default 600)
#
# The DLL is a small, genuine mingw-w64 build of big_dll.c (imports from
# kernel32/msvcrt, ~330 named exports, a version resource) plus one huge
# section of random bytes appended *after* the image.  A reader that only
# follows the PE directories should touch a few pages; a reader that loads
# or maps-and-walks the whole file pays for 600 MB.  That is the
# difference the benchmark is meant to show.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"

if [[ $# -ne 1 ]]; then
    echo "usage: $0 OUT.dll" >&2
    exit 2
fi
out=$1
size_mb=${BIG_DLL_MB:-600}

# Cache: building writes 600 MB, so skip when OUT is newer than every input.
if [[ -f $out ]]; then
    fresh=1
    for src in "$here/big_dll.c" "$here/big_dll.rc" "$here/make_big_dll.sh" "$here/common.sh"; do
        [[ $src -nt $out ]] && fresh=0
    done
    if [[ $fresh -eq 1 ]]; then
        echo "make_big_dll: $out is up to date" >&2
        exit 0
    fi
fi

need_cmd x86_64-w64-mingw32-gcc gcc-mingw-w64-x86-64 || { echo "make_big_dll: need x86_64-w64-mingw32-gcc" >&2; exit 1; }
need_cmd x86_64-w64-mingw32-objcopy binutils-mingw-w64-x86-64 || { echo "make_big_dll: need mingw binutils" >&2; exit 1; }

mkdir -p "$(dirname "$out")"
# Work next to OUT (same filesystem) so the 600 MB blob is not put in a
# possibly small tmpfs /tmp, and the final rename is atomic.
work=$(mktemp -d "$(dirname "$out")/.make_big_dll.XXXXXX")
trap 'rm -rf "$work"' EXIT

x86_64-w64-mingw32-windres -O coff "$here/big_dll.rc" -o "$work/res.o"
# -s: no DWARF from the CRT objects; the image should be small and plain.
x86_64-w64-mingw32-gcc -O2 -s -shared -o "$work/small.dll" "$here/big_dll.c" "$work/res.o"

# One section of random bytes after the image (common.sh explains how).
inflate_pe "$work/small.dll" "$work/big.dll" "$size_mb" || { echo "make_big_dll: objcopy failed" >&2; exit 1; }

# Sanity check: objdump must still find the import and export tables; a
# broken DLL would make every reader in the benchmark look fast.
dump=$(x86_64-w64-mingw32-objdump -p "$work/big.dll")
grep -q 'DLL Name: KERNEL32.dll' <<<"$dump" || { echo "make_big_dll: imports lost" >&2; exit 1; }
grep -q 'bench_fn_319' <<<"$dump" || { echo "make_big_dll: exports lost" >&2; exit 1; }
x86_64-w64-mingw32-objdump -h "$work/big.dll" | grep -q '\.bigdata' || { echo "make_big_dll: no .bigdata" >&2; exit 1; }

mv -f "$work/big.dll" "$out"
echo "make_big_dll: wrote $out ($(stat -c %s "$out") bytes)" >&2
