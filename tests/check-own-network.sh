#!/bin/sh
# A network of the runners' own (grade_use_loopback: lab 9's NCCL items): in
# those items a submission may make, bind and connect sockets, and reaches
# its own loopback, but neither a TCP listener on the host's loopback nor a
# unix socket under /run (where the host's services name theirs); in the
# other items it may make no IP socket at all; and where the runners get no
# namespaces (CUDALABS_NO_NAMESPACES=1, a default container) no item lets it.
# A copy of lab 9's solution with tests/fixtures/own-network/probe.inc, on
# the cpu backend (the walls are the same on a GPU, where NCCL needs them).
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
[ "$BACKEND" = cpu ] || { echo "# (the same walls on every backend: run on the cpu pass)"; finish; }
lab=lab9-many-gpus
[ -d "solutions/$lab" ] || { ok "own network # SKIP no solution of $lab in this copy"; finish; }
work=$(mktemp -d) && chmod 755 "$work"
listeners=""
trap 'kill $listeners 2>/dev/null; rm -rf "$work" "$socket"' EXIT
make -s BACKEND=cpu build/host/grader >/dev/null 2>&1

# the host's listeners: each writes a file if anything connects to it
port=$(perl -MIO::Socket::INET -e 'my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0, Listen => 1) or die; print $s->sockport')
socket=/run/cudalabs-own-network-$$.sock
perl -MIO::Socket::INET -e 'my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => $ARGV[0], Listen => 5, ReuseAddr => 1) or exit 1;
    while ($s->accept) { open my $f, ">>", $ARGV[1]; print $f "connected\n" }' "$port" "$work/tcp-reached" &
listeners="$listeners $!"
if [ -w /run ]; then
    # open to every user, as the system bus's is
    perl -MIO::Socket::UNIX -e 'my $s = IO::Socket::UNIX->new(Local => $ARGV[0], Listen => 5) or exit 1; chmod 0666, $ARGV[0];
        while ($s->accept) { open my $f, ">>", $ARGV[1]; print $f "connected\n" }' "$socket" "$work/unix-reached" &
    listeners="$listeners $!"
fi
sleep 0.5
[ -S "$socket" ] || note_unix="(no unix listener: /run is not writable here)"

# the probe, in a copy of the solution
mkdir -p "$work/probe"
perl -0pe '
    BEGIN { local $/; open my $f, "<", "tests/fixtures/own-network/probe.inc" or die; $probe = <$f> }
    s{(#include "lab9.h"\n)}{$1\n#define OWN_NETWORK_TEST_PORT '"$port"'\n#define OWN_NETWORK_TEST_SOCKET "'"$socket"'"\n$probe} or die "no include";
    s{(int dot_nccl\(const float \*x, const float \*y, int n, double \*totals\)\n\{\n)}{$1    own_network_probe("nccl");\n} or die "no dot_nccl";
    s{(double dot_peer\(const float \*x, const float \*y, int n\)\n\{\n)}{$1    own_network_probe("peer");\n} or die "no dot_peer";
' "solutions/$lab/many_gpus.cu" > "$work/probe/many_gpus.cu" || { not_ok "the probe could not be put into the solution"; finish; }

grade() { # grade NAME [ENV...]: $work/NAME.out and .json
    name=$1
    shift
    env "$@" ./grader lab9 --backend=cpu --seed=5 --student-dir="$work/probe" --only=nccl_totals,peer_total -v \
        --format=json --out="$work/$name.json" >"$work/$name.out" 2>&1
}
said() { grep -q "$2" "$work/$1.out"; }

grade apart
if ! said apart "sandbox:.*namespaces"; then
    ok "own network # SKIP this host gives the runners no namespaces"
else
    if said apart "probe nccl: interfaces lo$" && said apart "probe nccl: own loopback works"; then
        ok "in an item that asked for it, the runner's network is its own loopback alone, and it works"
    else
        not_ok "in an item that asked for it, the runner's network is its own loopback alone, and it works"
        grep "probe" "$work/apart.out" | sed 's/^/# /'
    fi
    if said apart "probe nccl: host tcp unreached" && ! said apart "host tcp REACHED" && [ ! -e "$work/tcp-reached" ]; then
        ok "from there the host's TCP listener is not reached"
    else
        not_ok "from there the host's TCP listener is not reached"
    fi
    if [ -n "${note_unix:-}" ]; then
        ok "from there no unix socket under /run is reached # SKIP $note_unix"
    elif said apart "probe nccl: host unix unreached" && [ ! -e "$work/unix-reached" ]; then
        ok "from there no unix socket under /run is reached"
    else
        not_ok "from there no unix socket under /run is reached"
    fi
    if said apart "probe peer: inet socket refused"; then
        ok "in an item that did not ask, no IP socket can be made"
    else
        not_ok "in an item that did not ask, no IP socket can be made"
        grep "probe peer" "$work/apart.out" | sed 's/^/# /'
    fi
    if [ "$(json_items "$work/apart.json" | sort)" = "$(printf 'nccl_totals passed 15 15\npeer_total passed 15 15')" ]; then
        ok "the probe's items keep their points"
    else
        not_ok "the probe's items keep their points"
        json_items "$work/apart.json" | sed 's/^/# /'
    fi
fi

rm -f "$work/tcp-reached" "$work/unix-reached"
grade together CUDALABS_NO_NAMESPACES=1
if said together "probe nccl: inet socket refused" && said together "probe peer: inet socket refused" \
    && ! said together "REACHED" && [ ! -e "$work/tcp-reached" ] && [ ! -e "$work/unix-reached" ]; then
    ok "without namespaces, no item lets the runner make an IP socket"
else
    not_ok "without namespaces, no item lets the runner make an IP socket"
    grep "probe" "$work/together.out" | sed 's/^/# /'
fi
finish
