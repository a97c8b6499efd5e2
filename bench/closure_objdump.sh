#!/usr/bin/env bash
# The "recursive objdump" peer of bench/closure.sh: the DLL closure of a
# program as a shell script would find it.
#
# Usage: bench/closure_objdump.sh PROGRAM
#
# Runs `x86_64-w64-mingw32-objdump -p` on PROGRAM, takes its "DLL Name:"
# lines (imports and delay imports), and follows each name that exists in
# PROGRAM's folder (any case), once per file.  Prints each file and what
# it imports, "(not in folder)" for names it cannot follow (system DLLs).
# One objdump process per file, which is how such scripts are written.
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: $0 PROGRAM" >&2
    exit 2
fi
dir=$(dirname "$1")
declare -A in_folder=() seen=()
for f in "$dir"/*; do
    name=${f##*/}
    in_folder[${name,,}]=$f
done

visit() {
    local file=$1 name lower
    echo "$file"
    while read -r name; do
        lower=${name,,}
        if [[ -z ${in_folder[$lower]:-} ]]; then
            echo "  $name (not in folder)"
            continue
        fi
        echo "  $name"
        if [[ -z ${seen[$lower]:-} ]]; then
            seen[$lower]=1
            visit "${in_folder[$lower]}"
        fi
    done < <(x86_64-w64-mingw32-objdump -p "$file" | sed -n 's/^[[:space:]]*DLL Name: //p')
}

seen[${1##*/}]=1
visit "$1"
