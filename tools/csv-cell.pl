# csv-cell.pl: one spreadsheet-safe CSV cell, for the two scripts that write
# CSV (tools/batch-grade.sh and tools/merge-grades.sh).
# A cell a spreadsheet would read as a formula (first character =, +, -, @,
# tab or carriage return) gets a leading quote mark, so that it stays text;
# a cell holding a quote, comma, line break or that mark is quoted.
sub csv_cell {
    my $v = shift // "";
    $v = "\x27$v" if $v =~ /^[=+\-@\t\r]/;
    $v =~ s/"/""/g;
    return $v =~ /[",\n\r\x27]/ ? "\"$v\"" : $v;
}
1;
