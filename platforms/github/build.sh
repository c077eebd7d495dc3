#!/bin/sh
# make github LAB=lab3: dist/github-<lab>/, the starting repository of a lab
# for students who work on GitHub: the student copy (no solution source;
# graded against its prebuilt references) with a GitHub Actions workflow that
# grades every push (.github/workflows/grade.yml, .github/grade.sh).  Push it
# to a new repository and mark it as a template, or hand it out as it is.
set -u
# DIST_DIR=DIR writes the package there instead of dist/.
cd "$(dirname "$0")/../.." || exit 2
lab_arg=${1:?usage: platforms/github/build.sh LAB}
lab=$(sh tools/lab-folder.sh --or-say github "$lab_arg") || exit 2
short=${lab%%-*}
out="${DIST_DIR:-dist}/github-$lab"
DIST_LABS=$lab DIST_GPU=${DIST_GPU:-no} sh tools/dist.sh --stage "$out" || exit 2
mkdir -p "$out/.github/workflows"
sed -e "s|@LAB@|$lab|g" -e "s|@SHORT@|$short|g" platforms/github/grade.yml > "$out/.github/workflows/grade.yml"
cp platforms/github/grade.sh "$out/.github/grade.sh"
printf '/build/\n/.deps/\n*.o\n*.so\n!/prebuilt/**/*.so\n!/prebuilt/**/*.o\n/grade-report.xml\n/grade-summary.md\n' > "$out/.gitignore"
echo "github: $out (push it as the lab's starting repository)"
