#!/bin/sh
# tools/lab-folder.sh NAME [KIT]: the folder under KIT/labs/ (default: the kit
# this script belongs to) that NAME names, by its folder name, its short name
# or its number (lab3-folding, lab3, 3).  Prints nothing and exits 1 when no
# lab has that name.  Every script that takes a lab on its command line asks here.
#
# tools/lab-folder.sh --or-say WHO NAME [KIT]: the same, but when no lab has
# that name it says "WHO: no lab 'NAME' (try: the labs)" on stderr and exits 2.
set -u
who=
if [ "${1:-}" = --or-say ]; then
    who=${2:?usage: tools/lab-folder.sh --or-say WHO NAME [KIT]}
    shift 2
fi
name=${1:?usage: tools/lab-folder.sh NAME [KIT]}
kit=${2:-$(dirname "$0")/..}
asked=$name
# No lab by that name: exit 1, or with --or-say, say so and exit 2.
not_found() {
    [ -n "$who" ] || exit 1
    echo "$who: no lab '$asked' (try: $(ls "$kit/labs" | tr '\n' ' '))" >&2
    exit 2
}
case $name in */* | '' | .*) not_found ;; [0-9]*) name=lab$name ;; esac
for dir in "$kit/labs/$name" "$kit/labs/$name"-*; do
    [ -d "$dir" ] && { basename "$dir"; exit 0; }
done
not_found
