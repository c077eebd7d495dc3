#!/bin/sh
# A skeleton and its solution are the same file outside the TODO regions
# ("/* TODO k: ... */" up to "/* END TODO k */"), their TODOs are numbered
# 1, 2, 3... in order, and the lab's handout speaks of every one of them.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
[ "$BACKEND" = cpu ] || { echo "# (source checks: run once, on the cpu pass)"; finish; }

outside_todos() {
    perl -ne 'if (m{/\*\s*END TODO (\d+)\b}) { $in = 0; } print unless $in; $in = 1 if m{/\*\s*TODO (\d+)\b};' "$1"
}
todo_numbers() { perl -ne 'print "$1\n" if m{/\*\s*TODO (\d+)\b}' "$1"; }

for skeleton in labs/*/*.cu; do
    lab=$(basename "$(dirname "$skeleton")")
    solution="solutions/$lab/$(basename "$skeleton")"
    name="$lab/$(basename "$skeleton")"
    if [ ! -f "$solution" ] && ! grep -q 'TODO [0-9]' "$skeleton"; then
        ok "$name: a given file (no TODO), built as it is for the reference too"
        continue
    elif [ ! -f "$solution" ]; then
        not_ok "$name: has a solution at $solution"
        continue
    fi
    if diff -u "$(outside_todos "$skeleton" > /tmp/drift.$$.a; echo /tmp/drift.$$.a)" \
               "$(outside_todos "$solution" > /tmp/drift.$$.b; echo /tmp/drift.$$.b)" > /tmp/drift.$$.diff; then
        ok "$name: skeleton and solution agree outside the TODOs"
    else
        not_ok "$name: skeleton and solution differ outside the TODOs"
        head -30 /tmp/drift.$$.diff | sed 's/^/    /'
    fi
    numbers=$(todo_numbers "$skeleton" | tr '\n' ' ')
    expected=$(i=0; for n in $numbers; do i=$((i + 1)); printf '%s ' "$i"; done)
    if [ -n "$numbers" ] && [ "$numbers" = "$expected" ]; then
        ok "$name: TODOs numbered in order ($numbers)"
    elif [ -z "$numbers" ]; then
        ok "$name: no TODOs in this file"
    else
        not_ok "$name: TODOs must be numbered 1, 2, 3... in order (found: $numbers)"
    fi
    rm -f /tmp/drift.$$.*
done

for lab_dir in labs/*/; do
    lab=$(basename "$lab_dir")
    handout="handouts/$lab.md"
    if [ ! -f "$handout" ]; then
        not_ok "$lab: has a handout at $handout"
        continue
    fi
    missing=""
    for n in $(cat "$lab_dir"*.cu | perl -ne 'print "$1\n" if m{/\*\s*TODO (\d+)\b}' | sort -un); do
        grep -q "TODO $n\b" "$handout" || missing="$missing $n"
    done
    if [ -z "$missing" ]; then ok "$lab: the handout names every TODO"
    else not_ok "$lab: the handout does not name TODO$missing"; fi
done
finish
