#!/bin/sh
# make prairielearn LAB=lab3: dist/prairielearn-<lab>/, two folders to copy
# into a PrairieLearn course repository as they are:
#   serverFilesCourse/cuda-labs/<lab>/     the kit (this lab's solution only: it is
#                                          built into a reference and deleted before
#                                          any student code runs), autograde.sh, prepare-kit.sh
#   questions/cuda-labs/<lab>/             info.json (external grading), question.html,
#                                          tests/run.sh (the grader's entrypoint)
# and image/, the grading image that has the kit built once (Dockerfile): with
# it a job builds only the student's files.  PL_IMAGE=NAME puts that image's
# name in info.json (default: PrairieLearn's prairielearn/grader-c, in which
# every job builds the kit first).
set -u
# DIST_DIR=DIR writes the package there instead of dist/.
cd "$(dirname "$0")/../.." || exit 2
lab_arg=${1:?usage: platforms/prairielearn/build.sh LAB}
lab=$(sh tools/lab-folder.sh --or-say prairielearn "$lab_arg") || exit 2
short=${lab%%-*}
files=$(cd "labs/$lab" && ls *.cu | tr '\n' ' ' | sed 's/ $//')
files_csv=$(echo "$files" | tr ' ' ',')
# A stable uuid per lab, so that rebuilding the package keeps the question's identity.
uuid=$(printf 'cuda-labs %s' "$lab" | md5sum | sed 's/^\(.\{8\}\)\(.\{4\}\).\(.\{3\}\).\(.\{3\}\)\(.\{12\}\).*/\1-\2-4\3-8\4-\5/')

out="${DIST_DIR:-dist}/prairielearn-$lab"
rm -rf "$out"
server="$out/serverFilesCourse/cuda-labs/$lab"
question="$out/questions/cuda-labs/$lab"
mkdir -p "$server" "$question/tests" || exit 2
sh platforms/common/package-kit.sh "$lab" "$server/kit" || exit 2
cp platforms/common/autograde.sh platforms/common/results.pl platforms/common/prepare-kit.sh "$server/" || exit 2
image=${PL_IMAGE:-prairielearn/grader-c}
# the job's limit (info.json's timeout, 600 s at most on PrairieLearn): run.sh grades within it
timeout=${PL_TIMEOUT:-600}
fill() { sed -e "s|@LAB@|$lab|g" -e "s|@SHORT@|$short|g" -e "s|@FILES_CSV@|$files_csv|g" \
             -e "s|@FILES@|$files|g" -e "s|@UUID@|$uuid|g" -e "s|@IMAGE@|$image|g" -e "s|@TIMEOUT@|$timeout|g" "$1" > "$2"; }
fill platforms/prairielearn/info.json "$question/info.json"
fill platforms/prairielearn/question.html "$question/question.html"
fill platforms/prairielearn/run.sh "$question/tests/run.sh"
chmod +x "$question/tests/run.sh"
mkdir -p "$out/image" && cp -R "$server/kit" "$out/image/kit" || exit 2
cp platforms/prairielearn/image-setup.sh platforms/common/prepare-kit.sh "$out/image/" || exit 2
fill platforms/prairielearn/Dockerfile "$out/image/Dockerfile"
echo "prairielearn: $out (copy its two folders into your course repository)"
