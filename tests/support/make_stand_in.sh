#!/usr/bin/env bash
# Builds a stand-in DLL at test time (mingw-w64, the fixtures' own version.rc): a file of the real one's name
# and version whose export table answers every function a real binary imports from it, so that dlldoctor's
# answer on the real binary does not hinge on a missing export of our making. Never run by a test.
#   make_stand_in.sh CC WINDRES RC_DIR OUT VERSION COMPANY DESCRIPTION EXPORT...   (a name, or @N: ordinal N, no name)
set -euo pipefail
cc=$1 windres=$2 rc_dir=$3 out=$4 version=$5 company=$6 description=$7
shift 7
name=$(basename "$out")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
IFS=. read -r major minor patch build <<<"$version"
{
  echo "LIBRARY $name"
  echo "EXPORTS"
  for export in "$@"; do
    case $export in
      @*) echo "  dd_stand_in_${export#@}=dd_stand_in $export NONAME" ;;
      *) echo "  $export=dd_stand_in" ;;
    esac
  done
} >"$work/stand_in.def"
echo 'int dd_stand_in(void) { return 0; }' >"$work/stand_in.c"
# windres hands the defines to the C preprocessor through a shell line of its own: quotes as \".
"$windres" -DVER_MAJOR="$major" -DVER_MINOR="$minor" -DVER_PATCH="$patch" -DVER_BUILD="$build" \
  "-DVER_STRING=\\\"$version\\\"" "-DVER_COMPANY=\\\"$company\\\"" "-DVER_DESCRIPTION=\\\"$description\\\"" \
  "-DVER_PRODUCT=\\\"$description\\\"" "-DVER_FILENAME=\\\"$name\\\"" \
  -I "$rc_dir" -O coff -i "$rc_dir/version.rc" -o "$work/version.o"
mkdir -p "$(dirname "$out")"
"$cc" -shared -s -O1 -o "$out" "$work/stand_in.c" "$work/stand_in.def" "$work/version.o"
