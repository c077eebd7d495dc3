#!/bin/sh
# PrairieLearn's external grader runs this (the question's "entrypoint") in
# a fresh container for every submission: the student's files are in
# /grade/student, the kit in /grade/serverFilesCourse/cuda-labs/<lab>/, and
# the results go to /grade/results/results.json (gradable false when the
# code does not build).  PL_ROOT relocates /grade (to try it by hand).
root=${PL_ROOT:-/grade}
here="$root/serverFilesCourse/cuda-labs/@LAB@"
exec sh "$here/autograde.sh" --platform prairielearn --kit "$here/kit" --lab @LAB@ \
    --submission "$root/student" --out "$root/results/results.json" --user "${GRADER_USER:-nobody}"
