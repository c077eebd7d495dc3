#!/bin/sh
# Makes sure this machine has what the kit needs to build and grade:
# a C and C++ compiler, make, perl, pkg-config and the Check unit-test library.
# As root (containers, CI, notebooks) it installs what is missing from the
# system's packages; otherwise it changes nothing and prints the command to run.
# Quiet when everything is already here.
set -u

missing=""
need() { command -v "$1" >/dev/null 2>&1 || missing="$missing $2"; }
need gcc gcc
need g++ g++
need make make
need perl perl
[ -d tests/mutants ] && need patch patch   # only the kit's own tests apply patches (tests/mutants); grading never does

staged_check=.deps/check/usr/include/check.h   # a copy staged for machines without packages
if [ ! -f "$staged_check" ]; then
    need pkg-config pkg-config
    if command -v pkg-config >/dev/null 2>&1; then
        pkg-config --exists check 2>/dev/null || missing="$missing check libsubunit-dev"
    else
        missing="$missing check libsubunit-dev"
    fi
fi

[ -z "$missing" ] && exit 0

packages=$(echo $missing | tr ' ' '\n' | sort -u | tr '\n' ' ')
if [ "$(id -u)" != 0 ]; then
    echo "CUDA Labs needs these packages first:$missing" >&2
    echo "Install them with:" >&2
    echo "    sudo apt-get install -y $packages" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "CUDA Labs needs:$missing (no apt-get here: install them with your system's package manager)" >&2
    exit 1
fi
echo "Installing what CUDA Labs needs:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q $packages >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q $packages >/dev/null; } \
    || { echo "apt-get could not install: $packages" >&2; exit 1; }
