#!/bin/sh
# Makes sure this machine has what the kit needs to build and grade:
# a C and C++ compiler, make, perl, pkg-config and the Check unit-test library.
# As root (containers, CI, notebooks) it installs what is missing from the
# system's packages; otherwise it changes nothing and prints the command to run.
# Quiet when everything is already here.
#
#   tools/setup.sh          what every build needs
#   tools/setup.sh cuda11   also CUDA 11.8 beside the machine's own toolkit, for
#                           tests/check-nvcc.sh: Debian's nvidia-cuda-toolkit (from
#                           the non-free component) and g++-11, its host compiler
set -u
want_cuda11=no
case "${1:-}" in
cuda11) want_cuda11=yes ;;
'') ;;
*) echo "usage: tools/setup.sh [cuda11]" >&2; exit 2 ;;
esac

missing=""
need() { command -v "$1" >/dev/null 2>&1 || missing="$missing $2"; }
need gcc gcc
need g++ g++
need make make
need perl perl
need patch patch

staged_check=.deps/check/usr/include/check.h   # a copy staged for machines without packages
if [ ! -f "$staged_check" ]; then
    need pkg-config pkg-config
    if command -v pkg-config >/dev/null 2>&1; then
        pkg-config --exists check 2>/dev/null || missing="$missing check libsubunit-dev"
    else
        missing="$missing check libsubunit-dev"
    fi
fi

# cuda11 [FRESH]: Debian's CUDA 11.8 at /usr/lib/nvidia-cuda-toolkit.  Only
# Debian carries that version (Ubuntu's nvidia-cuda-toolkit is 11.5 or 12.0),
# in non-free, which most images leave out: a sources file of the kit's own
# adds it for this suite rather than editing the system's.
cuda11() {
    [ -x /usr/lib/nvidia-cuda-toolkit/bin/nvcc ] && command -v g++-11 >/dev/null 2>&1 && return 0
    codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null)
    if [ ! -f /etc/debian_version ] || ! grep -q '^ID=debian' /etc/os-release 2>/dev/null || [ -z "$codename" ]; then
        echo "CUDA 11.8 comes from Debian's non-free nvidia-cuda-toolkit; this is not Debian" >&2
        return 1
    fi
    if [ "$(id -u)" != 0 ]; then
        echo "CUDA 11.8 for the nvcc check: as root, run tools/setup.sh cuda11, or:" >&2
        echo "    add 'contrib non-free' to the Components of /etc/apt/sources.list.d/debian.sources" >&2
        echo "    sudo apt-get update && sudo apt-get install -y --no-install-recommends nvidia-cuda-toolkit g++-11" >&2
        return 1
    fi
    list=/etc/apt/sources.list.d/cuda-labs-non-free.sources
    if ! apt-cache policy nvidia-cuda-toolkit 2>/dev/null | grep -q 'Candidate: [0-9]'; then
        printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: contrib non-free\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
            "$codename" > "$list"
    fi
    echo "Installing CUDA 11.8 (Debian's nvidia-cuda-toolkit, about 2 GB) and g++-11" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null 2>&1
    apt-get install -y -q --no-install-recommends nvidia-cuda-toolkit g++-11 >/dev/null 2>&1 \
        || { echo "apt-get could not install nvidia-cuda-toolkit g++-11 (from $list)" >&2; return 1; }
    [ -x /usr/lib/nvidia-cuda-toolkit/bin/nvcc ] \
        || { echo "nvidia-cuda-toolkit installed no /usr/lib/nvidia-cuda-toolkit/bin/nvcc" >&2; return 1; }
}

if [ -z "$missing" ]; then
    [ "$want_cuda11" = yes ] || exit 0
    cuda11; exit $?
fi

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
[ "$want_cuda11" = yes ] || exit 0
cuda11
