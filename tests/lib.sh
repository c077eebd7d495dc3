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
