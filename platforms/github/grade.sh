#!/bin/sh
# Grades one lab and writes the two reports that the workflow publishes:
#   grade-report.xml   JUnit, one test case per grader item (the run's artifact)
#   grade-summary.md   the total and the grader's report (the run's summary page)
# Exits as the grader does: 0 full marks, 1 points missing, 2 not gradable.
# On a runner whose sandbox is below the minimum a grade needs (a seccomp
# filter, and namespaces or a runner user: the workflow's step before this
# one gives an ordinary user namespaces on Ubuntu 24.04) nothing is graded:
# exit 2, and both reports say why, with no points at all.
#
#   sh .github/grade.sh LAB     (from the repository's root)
set -u
lab=${1:?usage: sh .github/grade.sh LAB}
rm -f grade-report.xml grade-summary.md
./grader "$lab" --require-walls --backend="${BACKEND:-cpu}" --format=junit --out=grade-report.xml > grade-output.txt 2>&1
rc=$?
cat grade-output.txt
total=$(grep -E '^lab[0-9].*: [0-9.]+/[0-9.]+ points' grade-output.txt | tail -n 1)
refused=$(sed -n 's/^grader: not grading: //p' grade-output.txt | head -n 1)
if [ -n "$refused" ]; then
    total="Not graded: this runner cannot sandbox the code well enough to grade it ($refused). Not your fault: tell your instructor."
    why=$(printf '%s' "$refused" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g; s/"/\&quot;/g')
    printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="CUDA Labs" tests="1" failures="0" errors="1">\n  <testsuite name="%s" tests="1" failures="0" errors="1">\n    <testcase classname="%s" name="sandbox"><error message="not graded: the sandbox is below the minimum: %s"/></testcase>\n  </testsuite>\n</testsuites>\n' "$lab" "$lab" "$why" > grade-report.xml
elif [ ! -s grade-report.xml ]; then
    # The grader stopped before its results (it always writes them; this is the last resort).
    printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="CUDA Labs" tests="1" failures="0" errors="1">\n  <testsuite name="%s" tests="1" failures="0" errors="1">\n    <testcase classname="%s" name="grade"><error message="the grader stopped (exit %s): see the run'"'"'s log"/></testcase>\n  </testsuite>\n</testsuites>\n' "$lab" "$lab" "$rc" > grade-report.xml
fi
{
    echo "## CUDA Labs, $lab"
    echo
    echo "**${total:-Not graded (exit $rc): the report below says why.}**"
    echo
    echo '```text'
    sed 's/```/`` `/g' grade-output.txt # (nothing a program prints can end the block)
    echo '```'
} > grade-summary.md
rm -f grade-output.txt
exit $rc
