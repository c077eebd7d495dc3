#!/bin/sh
# PrairieLearn's external grader runs this (the question's "entrypoint") in
# a fresh container for every submission: the student's files are in
# /grade/student, the kit in /grade/serverFilesCourse/cuda-labs/<lab>/, and
# the results go to /grade/results/results.json (gradable false when the
# code does not build).  PL_ROOT relocates /grade (to try it by hand).
#
# The usual route is the package's grading image (its image/ folder, named
# in info.json): the kit is built there once, at /cuda-labs/kit
# (CUDA_LABS_KIT relocates it), and a job builds only the student's files.
# In any other image (PrairieLearn's own prairielearn/grader-c) the job
# builds the kit first, from serverFilesCourse: slower, but it needs nothing
# the image lacks and no network.  Either way everything, the build
# included, ends inside info.json's timeout (@TIMEOUT@ s; PLATFORM_LIMIT
# overrides it) with results written.
root=${PL_ROOT:-/grade}
here="$root/serverFilesCourse/cuda-labs/@LAB@"
kit=${CUDA_LABS_KIT:-/cuda-labs/kit}
[ -d "$kit/labs" ] || kit="$here/kit"
PLATFORM_LIMIT=${PLATFORM_LIMIT:-@TIMEOUT@} exec sh "$here/autograde.sh" --platform prairielearn --kit "$kit" --lab @LAB@ \
    --submission "$root/student" --out "$root/results/results.json" --user "${GRADER_USER:-nobody}"
