#!/bin/sh
# make classroom LAB=lab3: dist/github-classroom-<lab>/, the template
# repository of a GitHub Classroom assignment: the student copy (no solution
# source; graded against its prebuilt references) with the autograding
# workflow.  Push it to a new repository, mark it as a template, and pick it
# as the assignment's starter code.
set -u
# DIST_DIR=DIR writes the package there instead of dist/.
cd "$(dirname "$0")/../.." || exit 2
lab_arg=${1:?usage: platforms/github-classroom/build.sh LAB}
lab=$(cd labs && ls -d "$lab_arg" "$lab_arg"-* 2>/dev/null | head -n 1)
[ -n "$lab" ] || { echo "classroom: no lab '$lab_arg' (try: $(ls labs | tr '\n' ' '))" >&2; exit 2; }
short=${lab%%-*}
out="${DIST_DIR:-dist}/github-classroom-$lab"
DIST_GPU=${DIST_GPU:-no} sh tools/dist.sh --stage "$out" || exit 2
mkdir -p "$out/.github/workflows" "$out/.github/classroom"
sed -e "s|@LAB@|$lab|g" -e "s|@SHORT@|$short|g" platforms/github-classroom/classroom.yml > "$out/.github/workflows/classroom.yml"
cp platforms/github-classroom/autograding-result.sh "$out/.github/classroom/"
printf '/build/\n/.deps/\n*.o\n*.so\n!/prebuilt/**/*.so\n' > "$out/.gitignore"
echo "classroom: $out (push it as the assignment's template repository)"
