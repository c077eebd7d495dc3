# Shared by the tests/check-*.sh scripts: TAP-style counting and JSON reading.
n_test=0
n_failed=0
ok()     { n_test=$((n_test + 1)); echo "ok $n_test - $*"; }
not_ok() { n_test=$((n_test + 1)); n_failed=$((n_failed + 1)); echo "not ok $n_test - $*"; }
finish() { echo "1..$n_test"; [ "$n_failed" -eq 0 ]; exit $?; }
BACKEND=${BACKEND:-$(tools/detect-backend.sh)}

# json_items FILE: one line per item, "name status points max_points" (perl's JSON::PP is core).
json_items() {
    perl -MJSON::PP -e '
        local $/; my $r = decode_json(<STDIN>);
        for my $lab (@{$r->{labs}}) { for my $i (@{$lab->{items}}) {
            printf "%s %s %s %s\n", $i->{name}, $i->{status}, $i->{points}, $i->{max_points}; } }' < "$1"
}
# json_total FILE: "points max_points"
json_total() {
    perl -MJSON::PP -e 'local $/; my $r = decode_json(<STDIN>); printf "%s %s\n", $r->{points}, $r->{max_points};' < "$1"
}

# in_parallel FUNCTION ARG...: runs "FUNCTION ARG" for each ARG, CHECK_JOBS
# at a time (default: one per core), each in a subshell of its own whose
# output is kept; then prints each one's output in ARG order, whole, its
# "ok"/"not ok" lines numbered on from this check's (so a check's lines
# are the same, in the same order, as when it ran them in turn).  The
# parts must share nothing that one changes: each writes only in folders
# of its own.
in_parallel() {
    part_fn=$1
    shift
    part_dir=$(mktemp -d) || exit 2
    part_jobs=${CHECK_JOBS:-$(nproc 2>/dev/null || echo 2)}
    part_i=0
    for part_arg; do
        part_i=$((part_i + 1))
        while [ $((part_i - 1 - $(ls "$part_dir" | grep -c '\.done$'))) -ge "$part_jobs" ]; do sleep 0.2; done
        ( ( n_test=0 n_failed=0; "$part_fn" "$part_arg" ) > "$part_dir/$part_i" 2>&1
          touch "$part_dir/$part_i.done" ) &
    done
    wait
    part_i=0
    for part_arg; do
        part_i=$((part_i + 1))
        while IFS= read -r part_line; do
            case "$part_line" in
            "not ok "[0-9]*" - "*) not_ok "${part_line#not ok * - }" ;;
            "ok "[0-9]*" - "*) ok "${part_line#ok * - }" ;;
            1..[0-9]*) ;;   # a part's own finish
            *) printf '%s\n' "$part_line" ;;
            esac
        done < "$part_dir/$part_i"
    done
    rm -rf "$part_dir"
}

# cpu_pass_only: ends a check whose result is the same on every backend
# unless this is the cpu pass (saying so), so that it runs once per make test.
cpu_pass_only() {
    [ "$BACKEND" = cpu ] || { echo "# (the same on every backend: run on the cpu pass)"; finish; }
}

# graded_lab_or_skip WHAT: sets $lab to the first lab (lab1-hello, then
# lab2-vector-mult, then the others) that has a solution and a grading
# suite, the lab a check of the grading machinery (batch grading, the
# platform packages) runs on; where there is none yet, says "WHAT # SKIP"
# and ends the check.
graded_lab_or_skip() {
    lab=""
    for candidate in lab1-hello lab2-vector-mult $(ls labs 2>/dev/null); do
        if [ -d "solutions/$candidate" ] && [ -f "grading/$candidate/suite.c" ]; then lab=$candidate; break; fi
    done
    [ -n "$lab" ] || { ok "$1 # SKIP no lab with a solution and a grading suite yet"; finish; }
}

# seed_kit_objects KIT [LAB...]: this kit's own cpu objects, built before
# the checks (the cpu backend's library, the harness, the precompiled
# header, each LAB's main.o), copied into the copy of the kit at KIT before
# it is built there, and made newer than its sources: the copy then builds
# only what is its own (its labs' references and programs; its grader and
# runner only where their objects' files differ: seed_host_objects).
# Its objects are then the bytes of this kit's, so that the build cache
# (CUDALABS_BUILD_CACHE, keyed by the kit's objects' bytes) gives a
# submission built in this kit, in the same walls, as the same user, to a
# grade in the copy.  For copies that a check grades with, not those whose
# build from nothing it tests (one such build of each kind stays whole).
seed_kit_objects() {
    seed_to=$1
    shift
    [ "$BACKEND" = cpu ] || return 0
    seed_list="build/cpu/emu build/cpu/harness build/cpu/pch"
    for seed_rel in $seed_list; do
        [ -d "$seed_rel" ] || return 0 # (not built here: the copy builds them all)
    done
    for seed_lab; do
        [ -f "build/cpu/$seed_lab/main.o" ] && seed_list="$seed_list build/cpu/$seed_lab/main.o"
    done
    for seed_rel in $seed_list; do
        mkdir -p "$seed_to/$(dirname "$seed_rel")" && cp -R "$seed_rel" "$seed_to/$(dirname "$seed_rel")/" || return 0
    done
    seed_host_objects "$seed_to"
    # (one time for all, so that no object looks older than the library
    # made of it; after the copy's sources were written, so that none is newer)
    touch "$seed_to/build/cpu/.seeded" && find "$seed_to/build/cpu" "$seed_to/build/host" -type f \
        -exec touch -r "$seed_to/build/cpu/.seeded" {} + 2>/dev/null
    rm -f "$seed_to/build/cpu/.seeded"
    true
}

# seed_host_objects KIT: the objects of this kit's grader and runner
# (build/host) that the copy at KIT would compile to the same bytes, copied
# there: only where the copy's Makefile is this kit's (the same flags), and
# for each object only where every file it was made of (its .d file's list,
# the source first) is in the copy, at the same path, with the same bytes;
# never one made of a file outside the kit or of a generated one (the lab
# tables, which list the copy's own labs).  The copy compiles the others and
# links its grader and runner itself.
seed_host_objects() {
    [ -d build/host ] && cmp -s Makefile "$1/Makefile" || return 0
    KIT_COPY=$1 perl -e '
        use File::Copy qw(copy); use File::Path qw(make_path);
        sub bytes { open my $f, "<:raw", $_[0] or return undef; local $/; my $b = <$f>; return $b }
        OBJECT: for my $d (split /\n/, `find build/host -name "*.d"`) {
            (my $o = $d) =~ s/\.d$/.o/;
            -f $o or next;
            my $text = bytes($d) // next;
            $text =~ s/\\\n/ /g;
            my ($rule) = split /\n/, $text;
            my (undef, $list) = split /:\s*/, $rule, 2;
            my @made_of = split " ", $list // "";
            @made_of or next;
            for my $f (@made_of) {
                next OBJECT if $f =~ m{^/|^build/|\.\.};
                my ($mine, $theirs) = (bytes($f), bytes("$ENV{KIT_COPY}/$f"));
                next OBJECT unless defined $mine && defined $theirs && $mine eq $theirs;
            }
            (my $dir = "$ENV{KIT_COPY}/$o") =~ s{/[^/]*$}{};
            make_path($dir);
            copy($o, "$ENV{KIT_COPY}/$o") && copy($d, "$ENV{KIT_COPY}/$d") or next;
        }' 2>/dev/null
    true
}
