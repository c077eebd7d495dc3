#!/bin/sh
# Copies the kit into a platform package: everything the grader needs, the
# lab's own solution (built into a reference on the platform, then deleted),
# and the instructor's hidden tests; never the kit's tests, other labs'
# solutions, builds or packages.
#
#   platforms/common/package-kit.sh LAB DEST_DIR      (run from the kit's root)
set -u
lab=${1:?usage: package-kit.sh LAB DEST_DIR}
dest=${2:?usage: package-kit.sh LAB DEST_DIR}
[ -d "solutions/$lab" ] || { echo "package-kit: no solutions/$lab" >&2; exit 2; }
mkdir -p "$dest" || exit 2
sh tools/kit-files.sh | while IFS= read -r f; do
    [ -f "$f" ] || continue
    case "$f" in
    solutions/"$lab"/*) ;;
    grading/*/mutants/*|grading/*/alternatives/*) continue ;;
    solutions/*|tests/*|platforms/*|dist/*|build/*|prebuilt/*|.deps/*|.git/*|.github/*|.ci/*) continue ;;
    esac
    mkdir -p "$dest/$(dirname "$f")" && cp -p "$f" "$dest/$f"
done
# Hidden tests: grading/hidden/<lab>.c is the instructor's fuller suite for the
# lab (the public items and more); in a package it takes the public suite's
# place.  HIDDEN_SUITES=DIR looks for it elsewhere.
hidden=${HIDDEN_SUITES:-grading/hidden}/$lab.c
if [ -f "$hidden" ]; then
    cp "$hidden" "$dest/grading/$lab/suite.c" || exit 2
    # Its items that the public suite lacks are the hidden ones: Gradescope
    # shows them once grades are published.
    item_names() { perl -ne 'print "$1\n" while /\bGRADE_ITEM\(\s*([A-Za-z0-9_]+),/g' "$1" | sort -u; }
    item_names "grading/$lab/suite.c" > "$dest/grading/$lab/public-items"
    item_names "$hidden" | grep -v -x -F -f "$dest/grading/$lab/public-items" > "$dest/grading/$lab/hidden-items"
    rm -f "$dest/grading/$lab/public-items"
    echo "package-kit: $lab graded with the hidden suite $hidden ($(wc -l < "$dest/grading/$lab/hidden-items") hidden items)" >&2
fi
