#!/bin/sh
# tools/kit-files.sh: the kit's files, one a line, relative to its root (run
# from there): in a git checkout, those git tracks and the untracked ones it
# does not ignore; elsewhere (an unpacked copy) every file below.  The list
# that tools/dist.sh and platforms/common/package-kit.sh copy from.
if [ -d .git ] && command -v git >/dev/null 2>&1; then
    git ls-files --cached --others --exclude-standard
else
    find . -type f | sed 's|^\./||'
fi
