#!/bin/sh
# tests/cpu-by-command.sh COMMAND...: runs COMMAND (a check: sh
# tests/check-attacks.sh) and prints where its CPU time went: user + system
# seconds and the count of processes, by command name (cc1plus, cicc, lab,
# grader, perl...), of COMMAND and everything it started.  Made to find
# what `make test` spends its CPU on, and what it repeats.
# Needs root and the acct package (accton): the kernel's process accounting
# writes a record as each process ends, with its parent's pid; the tree of
# COMMAND is rebuilt from them, a pid used twice told apart by its start
# time.  Other processes of the machine (other checks, other users) are left
# out.  Accounting is on for the whole machine meanwhile (one file at a
# time: run one of these at once), and turned off at the end.
set -u
[ $# -gt 0 ] || { echo "usage: tests/cpu-by-command.sh COMMAND..." >&2; exit 2; }
command -v accton >/dev/null 2>&1 && [ "$(id -u)" = 0 ] || { echo "needs root and accton (apt-get install acct)" >&2; exit 2; }
records=$(mktemp) && trap 'rm -f "$records"' EXIT
accton "$records" >/dev/null || exit 2
sh -c 'echo $$ > "$0.pid"; exec "$@"' "$records" "$@"
status=$?
accton off >/dev/null
ROOT=$(cat "$records.pid") perl -e '
    use strict; use warnings;
    # struct acct_v3 (linux/acct.h): 64 bytes; comp_t is a 13-bit mantissa and a base-8 exponent, in 1/100 s
    sub comp { my $c = shift; return ($c & 0x1fff) << (3 * (($c >> 13) & 7)) }
    my @records;
    open my $f, "<:raw", $ARGV[0] or die "$ARGV[0]: $!\n";
    while (read($f, my $r, 64) == 64) {
        my ($version, $pid, $ppid, $start, $utime, $stime, $name) = (unpack("C C S L L L L L L f S S S S S S S S Z16", $r))[1, 6, 7, 8, 10, 11, 18];
        push @records, [$pid, $ppid, $start, (comp($utime) + comp($stime)) / 100, $name] if $version == 3;
    }
    # latest end first: a process ends after its children, so its own
    # record (its pid, its start) is known when theirs are read
    my %seen = ($ENV{ROOT} => [1, 0]); my (%cpu, %count); my $total = 0;
    for (reverse @records) {
        my ($pid, $ppid, $start, $seconds, $name) = @$_;
        my $parent = $seen{$ppid};
        my $mine = $pid == $ENV{ROOT} || ($parent && $parent->[0] && $parent->[1] <= $start + 1);
        $seen{$pid} = [$mine, $start];
        next unless $mine;
        $cpu{$name} += $seconds; $count{$name}++; $total += $seconds;
    }
    printf "# CPU by command (user + system seconds, processes):\n";
    printf "#   %-16s %8.1f %7d\n", $_, $cpu{$_}, $count{$_} for grep { $cpu{$_} >= 0.05 } sort { $cpu{$b} <=> $cpu{$a} } keys %cpu;
    printf "#   %-16s %8.1f\n", "all", $total;' "$records"
rm -f "$records.pid"
exit $status
