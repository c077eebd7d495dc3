#!/bin/sh
# PrairieLearn's external grader runs this (the question's "entrypoint") in
# a fresh container for every submission: the student's files are in
# /grade/student, the kit in /grade/serverFilesCourse/cuda-labs/<lab>/, and
# the results go to /grade/results/results.json (gradable false when the
# code does not build).  PL_ROOT relocates /grade (to try it by hand).
# In the package's grading image (its image/ folder) the kit is already
# built, at /cuda-labs/kit (CUDA_LABS_KIT relocates it): a job then builds
# only the student's files.
root=${PL_ROOT:-/grade}
here="$root/serverFilesCourse/cuda-labs/@LAB@"
kit=${CUDA_LABS_KIT:-/cuda-labs/kit}
[ -d "$kit/labs" ] || kit="$here/kit"
exec sh "$here/autograde.sh" --platform prairielearn --kit "$kit" --lab @LAB@ \
    --submission "$root/student" --out "$root/results/results.json" --user "${GRADER_USER:-nobody}"
