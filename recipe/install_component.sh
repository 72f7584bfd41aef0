#!/usr/bin/env bash
# Package step of one library output: installs CMake install component $1 into $PREFIX, plus the unversioned
# development link $2 (from the "devlinks" install component; optional), both from the staging build tree.
set -euo pipefail
component=$1
devlink=${2:-}
build=${ET_BUILD_DIR:-$SRC_DIR/_build}
cmake --install "$build" --component "$component" --prefix "$PREFIX"
if [ -n "$devlink" ]; then
  links=$(mktemp -d)
  cmake --install "$build" --component devlinks --prefix "$links" >/dev/null
  mkdir -p "$PREFIX/$(dirname "$devlink")"
  cp -P "$links/$devlink" "$PREFIX/$devlink"
  rm -rf "$links"
fi
