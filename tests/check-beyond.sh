#!/bin/sh
# The going-further versions of solutions/ (every solutions/<lab>/X.cu with no
# labs/<lab>/X.cu: what make bench sets against the libraries) give right
# answers: tests/beyond/check.c, built with them by cucc on the cpu backend
# and by nvcc on a GPU.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT

beyond=""
for file in solutions/*/*.cu; do
    lab=$(basename "$(dirname "$file")")
    [ -f "labs/$lab/$(basename "$file")" ] || beyond="$beyond $file"
done
if [ "$BACKEND" = gpu ]; then
    build() { nvcc $(tools/cuda-arch.sh) -O2 -std=c++17 -Icommon/harness -o "$work/check" tests/beyond/check.c $beyond \
                  common/harness/kit.c common/harness/kit_cuda.cu; }
else
    build() { common/cpu/cucc -O2 -Icommon/harness -o "$work/check" tests/beyond/check.c $beyond \
                  common/harness/kit.c common/harness/kit_cuda.cu; }
fi
if build > "$work/build.log" 2>&1; then
    ok "the going-further versions build ($(echo $beyond | wc -w) files)"
else
    not_ok "the going-further versions build"
    sed 's/^/    /' "$work/build.log" | head -20
    finish
fi
if "$work/check" > "$work/run.log" 2>&1; then
    ok "$(tail -n 1 "$work/run.log")"
else
    not_ok "every going-further version is right"
    sed 's/^/    /' "$work/run.log" | head -20
fi
finish
