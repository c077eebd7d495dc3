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

# cuda11 [FRESH]: Debian's CUDA 11.8 at /usr/lib/nvidia-cuda-toolkit.  Only
# Debian carries that version (Ubuntu's nvidia-cuda-toolkit is 11.5 or 12.0),
# in non-free, which most images leave out: a sources file of the kit's own
# adds it for this suite rather than editing the system's.
cuda11() {
    [ -x /usr/lib/nvidia-cuda-toolkit/bin/nvcc ] && command -v g++-11 >/dev/null 2>&1 && return 0
    codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null)
    # Debian 12 (bookworm) is the release whose nvidia-cuda-toolkit is 11.8
    if ! grep -q '^ID=debian' /etc/os-release 2>/dev/null || [ "$codename" != bookworm ]; then
        echo "CUDA 11.8 comes from Debian 12's non-free nvidia-cuda-toolkit; this is not Debian 12" >&2
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
    apt-get -o DPkg::Lock::Timeout=900 update -q >/dev/null 2>&1
    apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends nvidia-cuda-toolkit g++-11 >/dev/null 2>&1 \
        || { echo "apt-get could not install nvidia-cuda-toolkit g++-11 (from $list)" >&2; return 1; }
    [ -x /usr/lib/nvidia-cuda-toolkit/bin/nvcc ] \
        || { echo "nvidia-cuda-toolkit installed no /usr/lib/nvidia-cuda-toolkit/bin/nvcc" >&2; return 1; }
}

# cuda12: Debian 13's CUDA 12.4 (nvidia-cuda-toolkit, and the headers and
# runtime of nvidia-cuda-dev and libcudart12, all in non-free), unpacked into
# /opt/cuda-labs/cuda-12 and told where it lives by its nvcc.profile.
# Debian 12 cannot install Debian 13's packages (they want its libraries),
# but NVIDIA's compilers in them run on older systems, and the host compiler
# is the system's g++ (12 on Debian 12, which CUDA 12.4 supports).  apt-get
# fetches them with a configuration and state of its own under the target
# (non-free's index only, 100 kB), so the system's sources and packages stay
# as they are.  About 1 GB to fetch, 220 MB kept.
cuda12() {
    root=/opt/cuda-labs/cuda-12
    bin=$root/usr/lib/nvidia-cuda-toolkit/bin
    [ -x "$bin/nvcc" ] && return 0
    keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1 \
        || [ ! -f "$keyring" ]; then
        echo "CUDA 12.4 for the nvcc check: run tools/setup.sh cuda12 as root on Debian (apt-get, dpkg-deb, $keyring)" >&2
        return 1
    fi
    work=$root.part
    rm -rf "$work" && mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/debs" "$work/root" \
        && : > "$work/apt/status" || return 1
    echo "deb [signed-by=$keyring] http://deb.debian.org/debian trixie non-free" > "$work/apt/sources.list"
    set -- -o Dir::Etc::SourceList="$work/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
        -o Dir::Etc::Preferences=/nonexistent -o Dir::Etc::PreferencesParts=/nonexistent \
        -o Dir::State::Lists="$work/apt/lists" -o Dir::State::Status="$work/apt/status" -o Dir::Cache="$work/apt/cache" \
        -o APT::Architecture=amd64 -o APT::Architectures=amd64 -o Acquire::Languages=none -o APT::Sandbox::User=root
    echo "Fetching CUDA 12.4 (Debian 13's nvidia-cuda-toolkit, about 1 GB) into $root" >&2
    apt-get "$@" -q update >"$work/apt.log" 2>&1 \
        && (cd "$work/debs" && apt-get "$@" -q download nvidia-cuda-toolkit nvidia-cuda-dev libcudart12) >>"$work/apt.log" 2>&1 \
        || { tail -n 3 "$work/apt.log" >&2; echo "apt-get could not fetch Debian 13's CUDA 12.4" >&2; return 1; }
    for deb in "$work"/debs/nvidia-cuda-toolkit_*.deb "$work"/debs/libcudart12_*.deb; do
        dpkg-deb -x "$deb" "$work/root" || return 1
    done
    # of nvidia-cuda-dev's 2.5 GB (mostly the math libraries) only what
    # compiling, and linking with the runtime, need
    dpkg-deb --fsys-tarfile "$work"/debs/nvidia-cuda-dev_*.deb | tar -x -C "$work/root" --wildcards './usr/include/*' \
        './usr/lib/x86_64-linux-gnu/libcudart*' './usr/lib/x86_64-linux-gnu/libcudadevrt*' \
        './usr/lib/x86_64-linux-gnu/libculibos*' './usr/lib/x86_64-linux-gnu/stubs/*' || return 1
    {
        echo "# Debian 13's CUDA 12.4, unpacked into $root by tools/setup.sh cuda12"
        echo "NVVMIR_LIBRARY_DIR = $root/usr/lib/nvidia-cuda-toolkit/libdevice"
        echo "PATH += $bin:$root/usr/bin:"
        echo "INCLUDES += \"-I$root/usr/include\" \$(_SPACE_)"
        echo "LIBRARIES =+ \$(_SPACE_) \"-L$root/usr/lib/x86_64-linux-gnu/stubs\" \"-L$root/usr/lib/x86_64-linux-gnu\""
    } > "$work/root/usr/lib/nvidia-cuda-toolkit/bin/nvcc.profile" || return 1
    rm -rf "$root" && mv "$work/root" "$root" && rm -rf "$work" || return 1
    "$bin/nvcc" --version >/dev/null 2>&1 || { echo "the unpacked nvcc 12.4 does not run" >&2; return 1; }
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
