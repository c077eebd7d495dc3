#!/bin/sh
# make doctor: it runs on this machine and says which backend it picks; and on
# a machine where Check is missing (simulated: a kit without its staged copy,
# a pkg-config that knows no 'check'), it says so and gives the install command.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
[ "$BACKEND" = cpu ] || { echo "# (the same on every backend: run on the cpu pass)"; finish; }
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT

sh tools/doctor.sh >"$work/here.log" 2>&1
rc=$?
if grep -q "backend .*$(tools/detect-backend.sh)" "$work/here.log" && grep -q '^  Check ' "$work/here.log"; then
    ok "doctor reports Check and the backend on this machine (exit $rc)"
else
    not_ok "doctor reports Check and the backend on this machine (exit $rc)"
    sed 's/^/    /' "$work/here.log"
fi

# A kit root without .deps/, and a PATH whose pkg-config knows nothing.
mkdir -p "$work/kit/tools" "$work/bin" "$work/empty-pc"
cp tools/doctor.sh tools/detect-backend.sh tools/cuda-arch.sh "$work/kit/tools/"
cat > "$work/bin/pkg-config" <<'PC'
#!/bin/sh
# a pkg-config that knows no package at all
case "$1" in --version) echo 0.29.2; exit 0 ;; esac
echo "Package check was not found in the pkg-config search path." >&2
exit 1
PC
chmod +x "$work/bin/pkg-config"
PATH="$work/bin:$PATH" PKG_CONFIG_PATH="$work/empty-pc" PKG_CONFIG_LIBDIR="$work/empty-pc" \
    sh "$work/kit/tools/doctor.sh" >"$work/nocheck.log" 2>&1
rc=$?
if [ "$rc" -eq 1 ]; then ok "doctor exits 1 when Check is missing"
else not_ok "doctor exits 1 when Check is missing (exit $rc)"; fi
if grep -q 'Check .*MISSING' "$work/nocheck.log"; then ok "doctor says Check is missing"
else not_ok "doctor says Check is missing"; sed 's/^/    /' "$work/nocheck.log"; fi
if grep -q 'sudo apt-get install -y .*check' "$work/nocheck.log" && grep -q 'libsubunit-dev' "$work/nocheck.log"; then
    ok "doctor gives the install command for Check"
else
    not_ok "doctor gives the install command for Check"; sed 's/^/    /' "$work/nocheck.log"
fi

# Without any pkg-config at all: a PATH that has everything but pkg-config.
mkdir -p "$work/nopc"
for tool in sh gcc g++ make perl uname head sed tr sort grep mktemp rm dirname cat id printf; do
    p=$(command -v "$tool") && ln -s "$p" "$work/nopc/$tool"
done
PATH="$work/nopc" sh "$work/kit/tools/doctor.sh" >"$work/nopc.log" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -q 'pkg-config .*MISSING' "$work/nopc.log" \
   && grep -q 'sudo apt-get install -y .*pkg-config' "$work/nopc.log"; then
    ok "doctor explains a missing pkg-config with its install command"
else
    not_ok "doctor explains a missing pkg-config with its install command (exit $rc)"; sed 's/^/    /' "$work/nopc.log"
fi

# The architecture flag comes from the GPU nvidia-smi reports, never from
# -arch=native (which nvcc accepts with no GPU and quietly ignores).
mkdir -p "$work/arch/gpu" "$work/arch/none"
printf '#!/bin/sh\necho 8.6\n' > "$work/arch/gpu/nvidia-smi"
printf '#!/bin/sh\nexit 0\n' > "$work/arch/gpu/nvcc"
cp "$work/arch/gpu/nvcc" "$work/arch/none/nvcc"
printf '#!/bin/sh\nexit 9\n' > "$work/arch/none/nvidia-smi"
chmod +x "$work/arch/gpu/"* "$work/arch/none/"*
with_gpu=$(PATH="$work/arch/gpu:$PATH" sh tools/cuda-arch.sh 2>/dev/null)
without=$(PATH="$work/arch/none:$PATH" sh tools/cuda-arch.sh 2>/dev/null)
if [ "$with_gpu" = "-arch=sm_86" ] && [ -z "$without" ]; then
    ok "cuda-arch: sm_86 for a GPU of compute capability 8.6, nvcc's default with no GPU"
else
    not_ok "cuda-arch: sm_86 for a GPU of compute capability 8.6, nvcc's default with no GPU ('$with_gpu', '$without')"
fi
# An nvcc that refuses the host compiler (as nvcc 11.8 refuses GCC 12): doctor says so and
# names the way out, instead of leaving it to the first build.
mkdir -p "$work/refusing"
cat > "$work/refusing/nvcc" <<'EOF2'
#!/bin/sh
case " $* " in *" --version "*) echo "Cuda compilation tools, release 11.8, V11.8.89"; exit 0 ;; esac
echo "error -- unsupported GNU version! gcc versions later than 11 are not supported!" >&2
exit 1
EOF2
chmod +x "$work/refusing/nvcc"
PATH="$work/refusing:$PATH" sh tools/doctor.sh > "$work/refusing.log" 2>&1
if grep -q 'host compiler.*REFUSED by nvcc: .*unsupported GNU version' "$work/refusing.log" \
   && grep -q "NVCC_EXTRA='-ccbin g++-11'" "$work/refusing.log"; then
    ok "doctor: an nvcc that refuses the host compiler is named, with the way out"
else
    not_ok "doctor: an nvcc that refuses the host compiler is named, with the way out"
    grep -i -A1 'host compiler\|Also' "$work/refusing.log" | sed 's/^/    /'
fi
finish
