#!/bin/sh
# Makes a kit ready to grade one lab on a learning platform's machine:
# builds the grader and the lab's reference runner on the cpu backend, moves
# it to prebuilt/cpu/<lab>/, and deletes the solution sources, so that
# no student code run later can read them.  Building here, on the platform's
# own system, means the builds match its libraries.
#
#   platforms/common/prepare-kit.sh KIT_DIR LAB
set -u
kit=${1:?usage: prepare-kit.sh KIT_DIR LAB}
lab_arg=${2:?usage: prepare-kit.sh KIT_DIR LAB}
cd "$kit" || exit 2

lab=$(sh tools/lab-folder.sh "$lab_arg")
[ -n "$lab" ] || { echo "prepare-kit: no lab $lab_arg in $kit/labs" >&2; exit 2; }
backend=${BACKEND:-cpu}

if [ -d "solutions/$lab" ]; then
    make -s --no-print-directory BACKEND="$backend" build/host/grader "build/$backend/$lab/reference-runner" || exit 2
    mkdir -p "prebuilt/$backend/$lab"
    cp "build/$backend/$lab/reference-runner" "prebuilt/$backend/$lab/reference-runner" || exit 2
    rm -rf solutions
    rm -rf "build/$backend/$lab/reference" "build/$backend/$lab/reference-runner" "build/$backend/$lab/reference.so" \
        "build/$backend/$lab/lab-solution"
elif [ -x "prebuilt/$backend/$lab/reference-runner" ]; then
    make -s --no-print-directory BACKEND="$backend" build/host/grader || exit 2
else
    echo "prepare-kit: neither solutions/$lab nor prebuilt/$backend/$lab/reference-runner in $kit" >&2
    exit 2
fi
echo "prepare-kit: $lab ready to grade on the $backend backend"
