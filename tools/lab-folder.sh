#!/bin/sh
# tools/lab-folder.sh NAME [KIT]: the folder under KIT/labs/ (default: the kit
# this script belongs to) that NAME names, by its folder name, its short name
# or its number (lab3-folding, lab3, 3).  Prints nothing and exits 1 when no
# lab has that name.  Every script that takes a lab on its command line asks here.
set -u
name=${1:?usage: tools/lab-folder.sh NAME [KIT]}
kit=${2:-$(dirname "$0")/..}
case $name in */* | '' | .*) exit 1 ;; [0-9]*) name=lab$name ;; esac
for dir in "$kit/labs/$name" "$kit/labs/$name"-*; do
    [ -d "$dir" ] && { basename "$dir"; exit 0; }
done
exit 1
