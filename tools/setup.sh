#!/bin/sh
# Makes sure this machine has what the kit needs to build and grade:
# a C and C++ compiler, make, perl, pkg-config and the Check unit-test library.
# As root (containers, CI, notebooks) it installs what is missing from the
# system's packages; otherwise it changes nothing and prints the command to run.
# Quiet when everything is already here.
#
#   tools/setup.sh          what every build needs
#   tools/setup.sh cuda11   also CUDA 11.8 beside the machine's own toolkit, for
#                           tests/check-nvcc.sh: Debian 12's toolkit, unpacked into
#                           /opt/cuda-labs/cuda-11, and g++-11, its host compiler
#   tools/setup.sh cuda12   also CUDA 12.4 for the same test: Debian 13's toolkit,
#                           unpacked into /opt/cuda-labs/cuda-12
#   tools/setup.sh slurm    also what tests/check-slurm.sh needs: Debian's slurm-wlm and
#                           munge (a one-node Slurm) and similarity-tester (sim_c, which
#                           tools/similarity.sh uses)
#   tools/setup.sh browser  also what tests/check-report.sh renders the HTML reports
#                           with: Debian's chromium (headless), and xmllint; and
#                           pdftotext (poppler-utils), with which
#                           tests/check-handouts.sh reads chromium's PDF handouts
set -u
toolkit="" slurm="" browser=""
case "${1:-}" in
cuda11 | cuda12) toolkit=$1 ;;
slurm) slurm=1 ;;
browser) browser=1 ;;
'') ;;
*) echo "usage: tools/setup.sh [cuda11 | cuda12 | slurm | browser]" >&2; exit 2 ;;
esac

missing=""
need() { command -v "$1" >/dev/null 2>&1 || missing="$missing $2"; }
need gcc gcc
need g++ g++
need make make
need perl perl
ls grading/*/mutants >/dev/null 2>&1 && need patch patch   # only the kit's own tests apply patches (grading/<lab>/mutants); grading never does
if [ -n "$slurm" ]; then
    need slurmctld slurm-wlm
    need slurmd slurm-wlm
    need sbatch slurm-client
    need munged munge
    need sim_c similarity-tester
fi
if [ -n "$browser" ]; then
    need chromium chromium
    need xmllint libxml2-utils
    need pdftotext poppler-utils
fi

staged_check=.deps/check/usr/include/check.h   # a copy staged for machines without packages
if [ ! -f "$staged_check" ]; then
    need pkg-config pkg-config
    if command -v pkg-config >/dev/null 2>&1; then
        pkg-config --exists check 2>/dev/null || missing="$missing check libsubunit-dev"
    else
        missing="$missing check libsubunit-dev"
    fi
fi

# unpack_toolkit VERSION SUITE RUNTIME [MAIN]: Debian's CUDA VERSION from
# SUITE's non-free component (nvidia-cuda-toolkit, and of nvidia-cuda-dev and
# the runtime package RUNTIME only what compiling and linking with the
# runtime need), and the packages MAIN from the system's own sources (where
# SUITE is the system's release: headers the toolkit's include, from main),
# unpacked into /opt/cuda-labs/cuda-MAJOR and told where it lives by
# its nvcc.profile.  apt-get fetches the packages with a configuration and
# state of its own under the target (non-free's index only, 100 kB), so the
# system's sources and packages stay as they are; nothing is installed, so
# none of the math libraries nvidia-cuda-dev depends on (half the download,
# and most of an install's CPU time) is fetched or unpacked.  The host
# compiler is the system's: the toolkit's g++ wrapper picks a version it
# supports from the PATH.
unpack_toolkit() {
    version=$1 suite=$2 runtime=$3 main=${4:-}
    root=/opt/cuda-labs/cuda-${version%%.*}
    bin=$root/usr/lib/nvidia-cuda-toolkit/bin
    [ -x "$bin/nvcc" ] && return 0
    keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1 \
        || [ ! -f "$keyring" ]; then
        echo "CUDA $version for the nvcc check: run tools/setup.sh cuda${version%%.*} as root on Debian (apt-get, dpkg-deb, $keyring)" >&2
        return 1
    fi
    work=$root.part
    rm -rf "$work" && mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/debs" "$work/root" \
        && : > "$work/apt/status" || return 1
    echo "deb [signed-by=$keyring] http://deb.debian.org/debian $suite non-free" > "$work/apt/sources.list"
    set -- -o Dir::Etc::SourceList="$work/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
        -o Dir::Etc::Preferences=/nonexistent -o Dir::Etc::PreferencesParts=/nonexistent \
        -o Dir::State::Lists="$work/apt/lists" -o Dir::State::Status="$work/apt/status" -o Dir::Cache="$work/apt/cache" \
        -o APT::Architecture=amd64 -o APT::Architectures=amd64 -o Acquire::Languages=none -o APT::Sandbox::User=root
    echo "Fetching CUDA $version (Debian $suite's nvidia-cuda-toolkit, about 0.9 GB) into $root" >&2
    apt-get "$@" -q update >"$work/apt.log" 2>&1 \
        && (cd "$work/debs" && apt-get "$@" -q download nvidia-cuda-toolkit nvidia-cuda-dev "$runtime") >>"$work/apt.log" 2>&1 \
        || { tail -n 3 "$work/apt.log" >&2; echo "apt-get could not fetch Debian $suite's CUDA $version" >&2; return 1; }
    if [ -n "$main" ]; then
        (cd "$work/debs" && apt-get -q download $main) >>"$work/apt.log" 2>&1 \
            || { (cd "$work/debs" && apt-get -q update && apt-get -q download $main) >>"$work/apt.log" 2>&1; } \
            || { tail -n 3 "$work/apt.log" >&2; echo "apt-get could not fetch $main" >&2; return 1; }
    fi
    for deb in "$work"/debs/*.deb; do
        case $deb in */nvidia-cuda-dev_*) continue ;; esac
        dpkg-deb -x "$deb" "$work/root" || return 1
    done
    # of nvidia-cuda-dev's 2.5 GB (mostly the math libraries) only what
    # compiling, and linking with the runtime, need
    dpkg-deb --fsys-tarfile "$work"/debs/nvidia-cuda-dev_*.deb | tar -x -C "$work/root" --wildcards './usr/include/*' \
        './usr/lib/x86_64-linux-gnu/libcudart*' './usr/lib/x86_64-linux-gnu/libcudadevrt*' \
        './usr/lib/x86_64-linux-gnu/libculibos*' './usr/lib/x86_64-linux-gnu/stubs/*' || return 1
    # (its nvcc.profile is a link to the system's /etc/nvcc.profile: a file of its own instead)
    rm -f "$work/root/usr/lib/nvidia-cuda-toolkit/bin/nvcc.profile"
    {
        echo "# Debian $suite's CUDA $version, unpacked into $root by tools/setup.sh cuda${version%%.*}"
        echo "NVVMIR_LIBRARY_DIR = $root/usr/lib/nvidia-cuda-toolkit/libdevice"
        echo "PATH += $bin:$root/usr/bin:"
        echo "INCLUDES += \"-I$root/usr/include\" \$(_SPACE_)"
        echo "LIBRARIES =+ \$(_SPACE_) \"-L$root/usr/lib/x86_64-linux-gnu/stubs\" \"-L$root/usr/lib/x86_64-linux-gnu\""
    } > "$work/root/usr/lib/nvidia-cuda-toolkit/bin/nvcc.profile" || return 1
    rm -rf "$root" && mv "$work/root" "$root" && rm -rf "$work" || return 1
    "$bin/nvcc" --version >/dev/null 2>&1 || { echo "the unpacked nvcc $version does not run" >&2; return 1; }
}

# cuda11: Debian 12's CUDA 11.8 (the only distribution that carries that
# version: Ubuntu's nvidia-cuda-toolkit is 11.5 or 12.0), unpacked into
# /opt/cuda-labs/cuda-11, and g++-11, its host compiler (CUDA 11.8 takes
# none newer), installed from Debian 12's main component.
cuda11() {
    [ -x /opt/cuda-labs/cuda-11/usr/lib/nvidia-cuda-toolkit/bin/nvcc ] && command -v g++-11 >/dev/null 2>&1 && return 0
    codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null)
    if ! grep -q '^ID=debian' /etc/os-release 2>/dev/null || [ "$codename" != bookworm ]; then
        echo "CUDA 11.8 comes from Debian 12's non-free nvidia-cuda-toolkit; this is not Debian 12" >&2
        return 1
    fi
    if [ "$(id -u)" != 0 ]; then
        echo "CUDA 11.8 for the nvcc check: as root, run tools/setup.sh cuda11" >&2
        return 1
    fi
    if ! command -v g++-11 >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends g++-11 >/dev/null 2>&1 \
            || { apt-get -o DPkg::Lock::Timeout=900 update -q >/dev/null 2>&1 \
                 && apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends g++-11 >/dev/null 2>&1; } \
            || { echo "apt-get could not install g++-11" >&2; return 1; }
    fi
    # (its cooperative groups include libcu++'s <cuda/std/...>, a package of main)
    unpack_toolkit 11.8 bookworm libcudart11.0 libcu++-dev
}

# cuda12: Debian 13's CUDA 12.4, unpacked into /opt/cuda-labs/cuda-12.
# Debian 12 cannot install Debian 13's packages (they want its libraries),
# but NVIDIA's compilers in them run on older systems, and the host compiler
# is the system's g++ (12 on Debian 12, which CUDA 12.4 supports).  About
# 1 GB to fetch, 220 MB kept.
cuda12() {
    unpack_toolkit 12.4 trixie libcudart12
}

if [ -z "$missing" ]; then
    [ -n "$toolkit" ] || exit 0
    $toolkit; exit $?
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
apt-get -o DPkg::Lock::Timeout=900 install -y -q ${slurm:+--no-install-recommends} $packages >/dev/null 2>&1 \
    || { apt-get -o DPkg::Lock::Timeout=900 update -q >/dev/null 2>&1 && apt-get -o DPkg::Lock::Timeout=900 install -y -q $packages >/dev/null; } \
    || { echo "apt-get could not install: $packages" >&2; exit 1; }
[ -n "$toolkit" ] || exit 0
$toolkit
