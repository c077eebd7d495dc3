#!/bin/sh
# Where nvcc exists, every .cu of the kit must compile with it too, even on a
# machine with no GPU: CUDA-only compile errors never reach a student.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
[ "$BACKEND" = cpu ] || { echo "# (the gpu pass compiles everything with nvcc already)"; finish; }
if ! command -v nvcc >/dev/null 2>&1; then
    ok "nvcc compile check # SKIP nvcc is not installed here"
    finish
fi
out=$(mktemp -d) && trap 'rm -rf "$out"' EXIT
# Known-bad versions and alternatives are patches to a solution: compile them patched.
for patch_file in tests/mutants/*/*.patch tests/alternatives/*/*.patch; do
    [ -f "$patch_file" ] || continue
    lab=$(basename "$(dirname "$patch_file")")
    replaces=$(sed -n 's|^// replaces: *||p' "$patch_file" | head -n 1)
    kind=$(basename "$(dirname "$(dirname "$patch_file")")")
    mkdir -p "$out/$kind/$lab"
    patch -s -o "$out/$kind/$lab/$(basename "$patch_file" .patch).cu" "solutions/$lab/$replaces" < "$patch_file" >/dev/null 2>&1
done
for file in common/harness/*.cu labs/*/*.cu solutions/*/*.cu "$out"/mutants/*/*.cu "$out"/alternatives/*/*.cu; do
    [ -f "$file" ] || continue
    lab=$(echo "$file" | sed -n 's|^.*/\(lab[0-9][^/]*\)/[^/]*$|\1|p')
    obj="$out/$(echo "$file" | tr / _).o"
    if nvcc -std=c++17 -Icommon/harness ${lab:+-Ilabs/$lab} -c "$file" -o "$obj" >"$obj.log" 2>&1; then
        ok "nvcc compiles $file"
    else
        not_ok "nvcc compiles $file"
        head -20 "$obj.log" | sed 's/^/    /'
    fi
done
finish
