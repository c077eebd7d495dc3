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
if [ -d .git ] && command -v git >/dev/null 2>&1; then
    files=$(git ls-files --cached --others --exclude-standard)
else
    files=$(find . -type f | sed 's|^\./||')
fi
echo "$files" | while IFS= read -r f; do
    [ -f "$f" ] || continue
    case "$f" in
    solutions/"$lab"/*) ;;
    solutions/*|tests/*|platforms/*|dist/*|build/*|prebuilt/*|.deps/*|.git/*|.github/*|.ci/*) continue ;;
    esac
    mkdir -p "$dest/$(dirname "$f")" && cp -p "$f" "$dest/$f"
done
# Hidden tests are instructor files: they may be ignored by git, so take them as they are.
if [ -d grading/hidden ]; then
    mkdir -p "$dest/grading" && cp -R grading/hidden "$dest/grading/"
fi
