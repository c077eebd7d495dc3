#!/bin/sh
# Builds the kit once, into the grading image (the Dockerfile runs this), so
# that a job only builds the student's files: Check and the build tools, the
# grader, the lab's reference (then its solution source is deleted), and the
# cpu backend and harness that every student build links.
#
#   sh image-setup.sh KIT_DIR LAB
set -u
kit=${1:?usage: image-setup.sh KIT_DIR LAB}
lab=${2:?usage: image-setup.sh KIT_DIR LAB}
here=$(cd "$(dirname "$0")" && pwd)
cd "$kit" || exit 2
sh tools/setup.sh || exit 2
sh "$here/prepare-kit.sh" "$kit" "$lab" || exit 2
labdir=$(sh tools/lab-folder.sh "$lab")
# the skeleton's build brings the backend and the harness up to date; a job's build reuses them
make -s --no-print-directory BACKEND=cpu "build/cpu/$labdir/student.so" || exit 2
echo "image-setup: $labdir built once in $kit"
