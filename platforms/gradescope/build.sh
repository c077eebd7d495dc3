#!/bin/sh
# make gradescope LAB=lab3: dist/gradescope-<lab>.zip, the autograder to
# upload on Gradescope ("Configure Autograder", zip file, Ubuntu 22.04 base).
#
# At its root: setup.sh, run_autograder, autograde.sh, results.pl, prepare-kit.sh,
# LAB (the lab's folder name), LIMIT (the autograder timeout set on
# Gradescope, seconds: GRADESCOPE_TIMEOUT=900 for 15 minutes; default 600) and kit/ (the kit with this lab's solution only,
# which setup.sh builds into a reference and deletes).
set -u
# DIST_DIR=DIR writes the package there instead of dist/.
cd "$(dirname "$0")/../.." || exit 2
lab_arg=${1:?usage: platforms/gradescope/build.sh LAB}
lab=$(sh tools/lab-folder.sh --or-say gradescope "$lab_arg") || exit 2
command -v zip >/dev/null 2>&1 || { echo "gradescope: needs zip (sudo apt-get install -y zip)" >&2; exit 2; }

stage=$(mktemp -d) || exit 2
trap 'rm -rf "$stage"' EXIT
sh platforms/common/package-kit.sh "$lab" "$stage/kit" || exit 2
cp platforms/gradescope/setup.sh platforms/gradescope/run_autograder \
   platforms/common/autograde.sh platforms/common/results.pl platforms/common/prepare-kit.sh "$stage/" || exit 2
echo "$lab" > "$stage/LAB"
# The autograder timeout set on Gradescope (seconds): grading ends, results written, before it.
echo "${GRADESCOPE_TIMEOUT:-600}" > "$stage/LIMIT"
chmod +x "$stage/setup.sh" "$stage/run_autograder"

out=${DIST_DIR:-dist}
mkdir -p "$out" && out=$(cd "$out" && pwd)
zipfile="$out/gradescope-$lab.zip"
rm -f "$zipfile"
(cd "$stage" && zip -q -r -X "$zipfile" .) || exit 2
echo "gradescope: $zipfile ($(unzip -l "$zipfile" | tail -n 1 | awk '{print $2}') files)"
