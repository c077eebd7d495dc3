#!/bin/sh
# Known-bad versions must lose points on the item meant to catch them, and
# correct alternatives written differently from the reference must get full
# marks.  Each is a patch to one file of the solution, so that it shows its
# one mistake, or how it differs, and nothing else.
# Each file's first lines say what it is (docs/developing.md):
#   // mutant: <what is wrong>        or   // alternative: <how it differs>
#   // replaces: <file of the lab it stands in for>
#   // must-fail: <item> [<item>...]    (mutants graded by the grader)
#   // asan-run: <args>                 (caught by the cpu backend's ASan build of the lab program instead)
#   // tsan-run: <args>                 (caught by its TSan build: a race between threads or blocks)
#   // must-fail-gpu: <item>...         (optional: what catches it on the gpu pass instead, e.g. the
#                                        compute-sanitizer item for a race or an out-of-bounds access)
#   // backend: cpu|gpu                 (optional: only meaningful there)
#   // must-say: <text>                 (optional, cpu backend: the feedback names the real mistake so)
#   // whole-lab-cpu-within: <seconds>  (optional: every item is graded, and the whole lab in that many
#                                        CPU seconds, the grader's and all it ran: CPU time, since the
#                                        cpu backend's watchdog counts it and a loaded machine (CI's two
#                                        cores shared by four checks) stretches the wall clock 2-3x)
# MUTANTS=lab4-tournament limits the run to one lab.
# Versions graded on correctness run in parallel, one per core; those marked
# "backend: gpu" (timing, races between blocks) run alone afterwards.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh

header() { sed -n "s|^// $1: *||p" "$2" | head -n 1; }

# check_one FILE: grades one version; its "ok"/"not ok" lines go to
# $work/<file>.result, so that several can run at once.
check_one() {
    file=$1
    result="$work/$(echo "$file" | tr / _).result"
    ok() { echo "ok - $*" >> "$result"; }
    not_ok() { echo "not ok - $*" >> "$result"; }
    [ -f "$file" ] || return
    lab=$(basename "$(dirname "$(dirname "$file")")") # grading/<lab>/mutants/x.patch
    short=${lab%%-*}
    name="$lab/$(basename "$file" | sed 's/\.[a-z]*$//')"
    only_backend=$(header backend "$file")
    if [ -n "$only_backend" ] && [ "$only_backend" != "$BACKEND" ]; then
        ok "$name # SKIP only meaningful on the $only_backend backend"
        return
    fi
    replaces=$(header replaces "$file")
    if [ -z "$replaces" ] || [ ! -f "labs/$lab/$replaces" ]; then
        not_ok "$name: its '// replaces:' line must name a file of labs/$lab"
        return
    fi
    dir="$work/$(echo "$name" | tr / -)"
    mkdir -p "$dir"
    if ! patch -s -o "$dir/$replaces" "solutions/$lab/$replaces" < "$file" > "$dir/patch.log" 2>&1; then
        not_ok "$name: the patch no longer applies to solutions/$lab/$replaces (update it)"
        sed 's/^/    /' "$dir/patch.log" | head -5
        return
    fi

    # Caught by a sanitizer build of the cpu backend instead of the grader:
    # the lab program, run with these arguments, must stop with a report
    # that points into the student's file.  (On the gpu pass such a version
    # is graded by its must-fail items, if it has any.)
    sanitizer="" args=""
    [ -n "$(header asan-run "$file")" ] && sanitizer=address args=$(header asan-run "$file") report=AddressSanitizer
    [ -n "$(header tsan-run "$file")" ] && sanitizer=thread args=$(header tsan-run "$file") report="ThreadSanitizer: data race"
    if [ -n "$sanitizer" ] && [ "$BACKEND" = cpu ]; then
        log="$dir/$sanitizer.log"
        tag=$(echo "$sanitizer-$name" | tr -c 'A-Za-z0-9_\n-' _)
        program="build/cpu-$sanitizer/submissions/$tag/$lab/lab"
        make -s --no-print-directory BACKEND=cpu SANITIZE=$sanitizer STUDENT_DIR="$dir" STUDENT_TAG="$tag" \
            "$program" >"$log" 2>&1 && "$program" $args >>"$log" 2>&1
        if grep -q "$report" "$log" && grep -q "$replaces:" "$log"; then
            ok "$name: the SANITIZE=$sanitizer build reports it in $replaces"
        else
            not_ok "$name: the SANITIZE=$sanitizer build should report it in $replaces"
            sed 's/^/    /' "$log" | head -20
        fi
        # and, where it names items, the grader catches it too
        [ -n "$(header must-fail "$file")" ] || return
    fi
    must_fail=$(header must-fail "$file")
    [ "$BACKEND" = gpu ] && [ -n "$(header must-fail-gpu "$file")" ] && must_fail=$(header must-fail-gpu "$file")
    if [ -n "$sanitizer" ] && [ -z "$must_fail" ]; then
        ok "$name # SKIP caught by the cpu backend's SANITIZE=$sanitizer build"
        return
    fi

    case "$file" in
    */alternatives/*)
        ./grader "$short" --backend="$BACKEND" --student-dir="$dir" --format=json --out="$dir/r.json" >"$dir/log" 2>&1
        rc=$?
        # Every item passes; on a GPU a slower alternative may score part
        # of a performance item (it still passes: the speed is its score).
        lost=$(json_items "$dir/r.json" 2>/dev/null | awk '$2 != "passed" && $2 != "skipped" { print $1 }' | tr '\n' ' ')
        set -- $(json_total "$dir/r.json" 2>/dev/null)
        if [ "$rc" -le 1 ] && [ -n "${2:-}" ] && [ -z "$lost" ]; then
            ok "$name: a correct alternative passes every item ($1/$2)"
        else
            not_ok "$name: a correct alternative passes every item (exit $rc, ${1:-?}/${2:-?}, lost: ${lost:-none})"
            sed 's/^/    /' "$dir/log" | head -30
        fi
        ;;
    *)
        if [ -z "$must_fail" ]; then
            not_ok "$name: needs a '// must-fail:' line"
            return
        fi
        only=--only=$(echo $must_fail | tr ' ' ',')
        # "// whole-lab-cpu-within: SECONDS": every item graded, in that
        # many CPU seconds at most (user + system of the grader and its
        # runners, which it waits for: perl's times() counts them)
        within=$(header whole-lab-cpu-within "$file")
        [ -n "$within" ] && only=""
        perl -e 'my $out = shift; system(@ARGV); my @t = times;
                 open my $f, ">", $out or die; printf $f "%d %.0f\n", $? & 127 ? 128 + ($? & 127) : $? >> 8, $t[2] + $t[3]' "$dir/took" \
            ./grader "$short" --backend="$BACKEND" --student-dir="$dir" $only \
            --format=json --out="$dir/r.json" >"$dir/log" 2>&1
        read -r rc took < "$dir/took"
        missed=""
        if [ -n "$within" ] && [ "$took" -gt "$within" ]; then
            missed="$missed (the whole lab took $took CPU seconds, more than $within)"
        fi
        for item in $must_fail; do
            line=$(json_items "$dir/r.json" 2>/dev/null | awk -v n="$item" '$1 == n')
            set -- $line
            if [ -z "$line" ]; then
                missed="$missed $item(not graded)"
            elif [ "$2" = skipped ] || perl -e 'exit !($ARGV[0] >= $ARGV[1])' "$3" "$4"; then
                missed="$missed $item($2)"
            fi
        done
        must_say=$(header must-say "$file")
        if [ -n "$must_say" ] && [ "$BACKEND" = cpu ] && ! grep -q -F -- "$must_say" "$dir/log"; then
            missed="$missed (the feedback does not say '$must_say')"
        fi
        # (exit 0 where every item it must fail is a going-further one: those
        # count toward no total, so losing them is not "points lost")
        if [ "$rc" -le 1 ] && [ -z "$missed" ]; then
            ok "$name: loses points on $must_fail${must_say:+, saying so}${within:+, grading the lab in $took CPU seconds}"
        else
            not_ok "$name: should lose points on $must_fail (exit $rc; not caught by:${missed:- -})"
            sed 's/^/    /' "$dir/log" | head -30
        fi
        ;;
    esac
}

if [ -n "${CHECK_MUTANTS_WORKER:-}" ]; then
    check_one "$1"
    exit 0
fi

work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
export work BACKEND
# nvcc's front check is left out of these builds: check-nvcc compiles every
# one of these files with the same nvcc, to a cubin (half a CPU-second each)
export CUDALABS_NVCC_CHECK=no

# The references and the grader first, once, so that parallel graders do not build them together.
for lab_dir in labs/${MUTANTS:-*}/; do
    make -s --no-print-directory BACKEND="$BACKEND" "build/$BACKEND/$(basename "$lab_dir")/reference-runner" \
        build/host/grader >/dev/null 2>&1
    # and, where a version of this lab is run in a sanitizer build, that
    # build's shared objects (kit, backend, main.o), which the parallel
    # workers' programs would otherwise all build at once in one folder
    lab=$(basename "$lab_dir")
    for sanitizer in address thread; do
        [ "$BACKEND" = cpu ] || continue
        short_name=$(echo $sanitizer | cut -c1)san-run
        grep -l "^// $short_name:" grading/$lab/mutants/*.patch >/dev/null 2>&1 || continue
        make -s --no-print-directory BACKEND=cpu SANITIZE=$sanitizer "build/cpu-$sanitizer/$lab/lab-solution" >/dev/null 2>&1
    done
done

files=$(ls grading/${MUTANTS:-lab*}/mutants/*.patch grading/${MUTANTS:-lab*}/alternatives/*.patch 2>/dev/null)
alone=""
# (on a GPU the alternatives run alone too: they must pass every item, and
# an item such as lab 2's phase_times measures the call, which sixteen
# graders sharing one GPU can skew: seen on an H200)
for file in $files; do
    if [ "$(header backend "$file")" = gpu ]; then alone="$alone $file"
    elif [ "$BACKEND" = gpu ]; then case "$file" in */alternatives/*) alone="$alone $file" ;; esac
    fi
done
for file in $files; do
    case " $alone " in *" $file "*) ;; *) echo "$file" ;; esac
done | xargs -P "$(nproc 2>/dev/null || echo 2)" -n 1 env CHECK_MUTANTS_WORKER=1 sh "$0"
for file in $alone; do
    CHECK_MUTANTS_WORKER=1 sh "$0" "$file"
done

for file in $files; do
    result="$work/$(echo "$file" | tr / _).result"
    if [ ! -s "$result" ]; then
        not_ok "$file: no result (the check itself stopped)"
        continue
    fi
    while IFS= read -r line; do
        case "$line" in
        "ok - "*) ok "${line#ok - }" ;;
        *) not_ok "${line#not ok - }" ;;
        esac
    done < "$result"
done
finish
