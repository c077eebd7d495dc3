# common/cpu/SplitKernel.pm: a kernel's block as loops over its threads,
# cut at its barriers (what PoCL's and COX's compilers do), for rewrite.pl
# --split (cucc's builds).
#
# A kernel of the shape most teaching kernels have is rewritten into a
# function the runtime calls once per block (include/cudaemu/split.h):
#
#     __global__ void k(P p)              void __cudaemu_split_k(split_block &b, P p)
#     {                                   {   (each local that lives past a barrier: an array, one element a thread)
#         __shared__ float s[256];            __shared__ float s[256];   (as rewritten: once a block)
#         int t = threadIdx.x;                for (each thread x) { auto &t = (t_s[x] = threadIdx.x);
#         s[t] = p.in[t];                                           s[t] = p.in[t]; }
#         __syncthreads();                    b.barrier();
#         for (int d = 1; d < 256; d *= 2) {  for (int d = 1; d < 256; d *= 2) {
#             ...                                 for (each thread x) { auto &t = t_s[x]; ... }
#             __syncthreads();                    b.barrier();
#         }                                   }
#         p.out[t] = s[t];                    for (each thread x) { auto &t = t_s[x]; p.out[t] = s[t]; }
#     }                                   }
#
# Every thread runs each stretch between two barriers in turn, the order the
# coroutines' loop gives (so every schedule gives the same run), with no
# call, switch or frame per thread: the compiler sees the loop, keeps what
# it can in registers and overlaps one thread's work with the next one's.
#
# The shape taken, and nothing else (any other kernel keeps its coroutine
# twin): __syncthreads() (or a thread block's sync(), which rewrite.pl's
# block_group_syncs finds) only as a statement of the kernel's body or of the
# body of a `for` loop at that level, whose header names no thread's own
# variable (threadIdx, a local of the kernel whose value may differ from
# thread to thread: one set from blockIdx, parameters and constants alone,
# and never changed, is read as the first thread's) and whose variable the
# body never assigns, and so runs the same way in every thread; no goto;
# no return except in the last stretch; no break or
# continue in a stretch inside such a loop; and each local that lives past
# a barrier declared as TYPE NAME [= VALUE], not auto and not braced.  A
# parameter the kernel changes (or whose address it takes) becomes each
# thread's own array element, as a local does: the block shares the call's
# one copy otherwise.  What
# the shape reader gets wrong fails to compile, and the file is compiled
# again without it (cpu.mk and cucc do that for the twins already).
package SplitKernel;
use strict;
use warnings;

my $barrier_call = qr/\b__syncthreads\s*\(\s*\)/;
my $any_barrier = qr/\b__syncthreads(?:_count|_and|_or)?\b/;
my $keywords = qr/^(?:return|if|for|while|do|switch|case|default|break|continue|goto|else|delete|throw|new|sizeof|
    typedef|using|enum|static_assert|constexpr|static|extern|struct|class|union|auto|decltype|template|typename|co_return|co_await)$/x;
my $builtin_type = qr/(?:unsigned|signed|long|short|int|char|float|double|bool)\b/;
my $pure_call = qr/^(?:min|max|sizeof|static_cast|unsigned|int|long)$/;

# The position of the brace, parenthesis or bracket that closes the one at $p.
sub closing {
    my ($m, $p) = @_;
    my $open = substr($m, $p, 1);
    my $close = $open eq '(' ? ')' : $open eq '{' ? '}' : ']';
    my $depth = 0;
    for (my $i = $p; $i < length $m; $i++) {
        my $c = substr($m, $i, 1);
        $depth++ if $c eq $open;
        $depth-- if $c eq $close;
        return $i if $depth == 0;
    }
    return -1;
}

# The statements of $m between $from and $to: [start, end) each; undef
# where they cannot be told apart.
sub statements {
    my ($m, $from, $to) = @_;
    my @out;
    my $i = $from;
    for (;;) {
        $i++ while $i < $to && substr($m, $i, 1) =~ /\s/;
        last if $i >= $to;
        my ($start, $depth, $end) = ($i, 0, undef);
        for (; $i < $to; $i++) {
            my $c = substr($m, $i, 1);
            if ($c eq '(' || $c eq '[') {
                $depth++;
            } elsif ($c eq ')' || $c eq ']') {
                $depth--;
            } elsif ($depth == 0 && $c eq ';') {
                $end = $i + 1;
                last;
            } elsif ($depth == 0 && $c eq '{') {
                my $close = closing($m, $i);
                return undef if $close < 0 || $close >= $to;
                if (substr($m, $start, $i - $start) =~ /(?:=|,|\breturn)\s*$/) { # an initializer's braces
                    $i = $close;
                    next;
                }
                $end = $close + 1;
                last;
            }
        }
        return undef unless defined $end;
        $i = $end;
        my $text = substr($m, $start, $end - $start);
        if (@out && ($text =~ /^else\b/ ||
                     ($text =~ /^while\b/ && substr($m, $out[-1][0], $out[-1][1] - $out[-1][0]) =~ /^do\b.*\}$/s))) {
            $out[-1][1] = $end;    # (the rest of an if or a do)
            next;
        }
        push @out, [$start, $end];
    }
    return \@out;
}

sub flat { my ($s) = @_; $s =~ s/\s+/ /g; $s =~ s/^ | $//g; return $s; }

# Splits $s at its commas outside (), [] and {}: [start, text] each.
sub top_commas {
    my ($s) = @_;
    my ($depth, $start, @parts) = (0, 0);
    for (my $i = 0; $i < length $s; $i++) {
        my $c = substr($s, $i, 1);
        $depth++ if $c =~ /[(\[{]/;
        $depth-- if $c =~ /[)\]}]/;
        if ($c eq ',' && $depth == 0) {
            push @parts, [$start, substr($s, $start, $i - $start)];
            $start = $i + 1;
        }
    }
    push @parts, [$start, substr($s, $start)];
    return @parts;
}

# A declaration statement (its text less the ';'): the type's length and
# each declarator {at, name, pointer, dims, init_at} (offsets in $s), or
# undef where it is not one read here.
sub declaration {
    my ($s) = @_;
    my $spec_re = qr/(?:(?:const|volatile|register)\s+)*(?:$builtin_type\s*)+(?:const\b\s*)?
                    |(?:(?:const|volatile)\s+)*(?:::\s*)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*
                     (?:\s*<[^<>;{}()]*(?:<[^<>;{}()]*>[^<>;{}()]*)*>)?(?:\s+const\b)?/x;
    return undef unless $s =~ /^($spec_re)(?:\s+(?=[*A-Za-z_])|\s*(?=\*))/;
    my $spec_len = length $1;
    my ($first) = $1 =~ /([A-Za-z_]\w*)/;
    return undef if $first =~ $keywords;
    my @declarators;
    for my $part (top_commas(substr($s, $spec_len))) {
        my ($at, $text) = @$part;
        $at += $spec_len;
        return undef unless $text =~ /^(\s*)((?:\*\s*(?:(?:const|volatile|__restrict__|__restrict)\b\s*)*)*)([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)(?:=(\s*)(.*))?$/s;
        my ($lead, $pointer, $name, $dims, $init_lead, $init) = ($1, $2, $3, $4, $5, $6);
        return undef if $name =~ $keywords;
        return undef if defined $init && $init =~ /^\{/;    # braced: not assigned later here
        push @declarators, { at => $at + length($lead), name => $name, pointer => flat($pointer), dims => flat($dims),
                             head_end => $at + length($lead) + length($pointer) + length($name) + length($dims),
                             init_at => defined $init ? $at + length($text) - length($init) : undef,
                             init_end => $at + length($text) };
    }
    return { spec_len => $spec_len, declarators => \@declarators };
}

# Whether text $t assigns NAME, steps it or takes its address.
sub changes {
    my ($t, $name) = @_;
    return $t =~ /\b\Q$name\E\s*(?:\.\s*\w+\s*(?:\[[^\]]*\]\s*)*)*(?:[-+*\/%&|^]|<<|>>)?=(?!=)|(?:\+\+|--)\s*\Q$name\E\b|\b\Q$name\E\s*(?:\+\+|--)|&\s*\Q$name\E\b/;
}

# edits(%args): the edits (in the source's positions) that make the kernel
# whose body is mask[body_start .. body_end] (braces included) its split
# form, apart from its name and first parameter; or (undef, why).
#   mask         the source with literals and line markers blanked
#   src          the source
#   params       the kernel's parameter names
#   origin       sub(position) -> (file, line)
#   sync         another form of __syncthreads() (a thread block's sync()), or undef
#   uniform      a statement that runs once a block (that block's declaration), or undef
sub edits {
    my (%a) = @_;
    my ($m, $src) = ($a{mask}, $a{src});
    my $body = substr($m, $a{body_start}, $a{body_end} - $a{body_start} + 1);
    return (undef, 'goto') if $body =~ /\bgoto\b/;
    my @changed = grep { changes($body, $_) } @{$a{params}};
    my $state = { edits => [], inserts => {}, count => 0, regions => 0, why => undef, m => $m, src => $src,
                  origin => $a{origin}, body_end => $a{body_end},
                  barrier => $a{sync} ? qr/$barrier_call|$a{sync}/ : $barrier_call,
                  any_barrier => $a{sync} ? qr/$any_barrier|$a{sync}/ : $any_barrier,
                  uniform => $a{uniform} // qr/(?!)/ };
    # A parameter the kernel changes is each thread's own: an array, each
    # element its value at the start (a block's threads share the call's copy).
    my @names;
    my $copies = '';
    for my $p (@changed) {
        my $storage = '__cudaemu_s' . ++$state->{count} . "_$p";
        $copies .= "auto *const $storage = __cudaemu_b.alloc<std::remove_cv_t<decltype($p)>>(); "
                 . "for (unsigned __cudaemu_p = 0; __cudaemu_p < __cudaemu_b.n; __cudaemu_p++) $storage\[__cudaemu_p] = $p; ";
        push @names, [$p, $storage, 0];
    }
    insert($state, $a{body_start} + 1, $copies) if $copies ne '';
    my $ok = block($state, $a{body_start} + 1, $a{body_end}, \@names, 0, 1, undef);
    return (undef, $state->{why}) unless $ok;
    push @{$state->{edits}}, map { [$_, $_, join('', @{$state->{inserts}{$_}})] } keys %{$state->{inserts}};
    return ($state->{edits});
}

# Text to insert at $pos, after what was asked to go there before.
sub insert { my ($state, $pos, $text) = @_; push @{$state->{inserts}{$pos}}, $text; }

sub refuse { my ($state, $why) = @_; $state->{why} //= $why; return 0; }

# The statements of one block (the kernel's body, or the body of a loop
# with barriers in it): its stretches become loops over the threads.
# $visible: the earlier locals that live in arrays, each [name, storage,
# whether every thread gives it the same value].
# $storage_at: where the arrays of its locals are made (before the loop
# it is the body of, so once a block), or undef: before each stretch.
sub block {
    my ($state, $from, $to, $visible, $in_loop, $top, $storage_at) = @_;
    my $m = $state->{m};
    my $stmts = statements($m, $from, $to) or return refuse($state, 'statements not read');
    my @kinds;
    for my $s (@$stmts) {
        my $t = flat(substr($m, $s->[0], $s->[1] - $s->[0]));
        my $kind;
        if ($t =~ /^(?:$state->{barrier})\s*;$/) {
            $kind = 'barrier';
        } elsif ($t =~ $state->{any_barrier}) {
            return refuse($state, 'a barrier outside the shape') unless $t =~ /^for\s*\(/ && $t =~ /\}$/;
            $kind = 'loop';
        } elsif ($t =~ /\b__shared__\b/ || $t =~ /^(?:constexpr|typedef|using|enum|static_assert)\b/ ||
                 $t =~ /^(?:const\s+)?(?:static\s+)?constexpr\b/ || $t =~ /^$state->{uniform}$/) {
            $kind = 'uniform';
        } else {
            $kind = 'code';
        }
        push @kinds, $kind;
    }
    # the stretches: runs of code statements
    my @runs;
    for (my $i = 0; $i < @$stmts; $i++) {
        next unless $kinds[$i] eq 'code';
        my $j = $i;
        $j++ while $j + 1 < @$stmts && $kinds[$j + 1] eq 'code';
        push @runs, [$i, $j];
        $i = $j;
    }
    my @names = @$visible;
    my $run_index = 0;
    for (my $i = 0; $i < @$stmts; $i++) {
        my ($s, $e) = @{$stmts->[$i]};
        if ($kinds[$i] eq 'barrier') {
            push @{$state->{edits}}, [$s, $e, '__cudaemu_b.barrier();'];
        } elsif ($kinds[$i] eq 'loop') {
            loop($state, $s, $e, \@names, $storage_at // $s) or return 0;
        } elsif ($kinds[$i] eq 'code') {
            my ($first, $last) = @{$runs[$run_index]};
            my $final = $top && $run_index == $#runs && !grep { $_ ne 'code' } @kinds[$last + 1 .. $#kinds];
            $run_index++;
            stretch($state, $stmts, $first, $last, $to, \@names, $in_loop, $final, $storage_at) or return 0;
            $i = $last;
        }
    }
    return 1;
}

# A for loop with barriers in its body: the same in every thread, or refused.
sub loop {
    my ($state, $s, $e, $names, $storage_at) = @_;
    my $m = $state->{m};
    my $open = index($m, '(', $s);
    my $close = closing($m, $open);
    my $header = substr($m, $open + 1, $close - $open - 1);
    my $brace = $close + 1;
    $brace++ while substr($m, $brace, 1) =~ /\s/;
    return refuse($state, 'a loop with barriers and no braces') unless substr($m, $brace, 1) eq '{' && closing($m, $brace) == $e - 1;
    my %per_thread = map { $_->[0] => $_ } @$names;
    my ($init) = split /;/, $header;
    my @loop_vars;
    if (my $d = declaration(flat($init))) {
        @loop_vars = map { $_->{name} } @{$d->{declarators}};
    }
    (my $h = $header) =~ s/((?:\.|->)\s*[A-Za-z_]\w*)/' ' x length($1)/ge;    # (members)
    while ($h =~ /\b([A-Za-z_]\w*)\b(\s*\()?/g) {
        my ($id, $call, $at) = ($1, $2, $open + 1 + $-[1]);
        return refuse($state, "the loop's header names threadIdx") if $id eq 'threadIdx';
        if (my $v = $per_thread{$id}) {
            # a local every thread gives the same value: the first thread's
            return refuse($state, "the loop's header names $id, a thread's own") unless $v->[2];
            push @{$state->{edits}}, [$at, $at + length($id), "$v->[1]\[0]"];
        }
        return refuse($state, "the loop's header calls $id") if $call && $id !~ $pure_call;
    }
    my $body = substr($m, $brace, $e - $brace);
    for my $v (@loop_vars) {
        return refuse($state, "the loop's variable $v changes in its body") if changes($body, $v);
    }
    return block($state, $brace + 1, $e - 1, $names, 1, 0, $storage_at);
}

# Whether an initializer gives every thread the same value: it names no
# thread's own (threadIdx, a local that is not uniform, one of this
# stretch's), reads no memory (another thread may write it meanwhile) and
# calls nothing but min, max and casts.
sub uniform {
    my ($init, $names, $thread_names) = @_;
    return 0 if $init =~ /\[|->|(?:^|[-+*\/%&|^!~<>=(,?:])\s*\*/;
    my %known = map { $_->[0] => $_->[2] } @$names;
    (my $t = $init) =~ s/((?:\.|->)\s*[A-Za-z_]\w*)/' ' x length($1)/ge;
    while ($t =~ /\b([A-Za-z_]\w*)\b(\s*\()?/g) {
        my ($id, $call) = ($1, $2);
        return 0 if $id eq 'threadIdx' || (exists $thread_names->{$id} && !$thread_names->{$id}) ||
                    (exists $known{$id} && !$known{$id});
        return 0 if $call && $id !~ $pure_call;
    }
    return 1;
}

# A stretch: statements $first..$last of $stmts, run by every thread in turn.
sub stretch {
    my ($state, $stmts, $first, $last, $scope_end, $names, $in_loop, $final, $storage_at) = @_;
    my ($m, $src) = ($state->{m}, $state->{src});
    my ($s, $e) = ($stmts->[$first][0], $stmts->[$last][1]);
    my $text = substr($m, $s, $e - $s);
    return refuse($state, 'return before the last barrier') if !$final && $text =~ /\breturn\b/;
    return refuse($state, 'break or continue in a loop with barriers') if $in_loop && $text =~ /\b(?:break|continue)\b/;
    my $region = ++$state->{regions};
    my $bindings = join("", map { "[[maybe_unused]] auto &$_->[0] = $_->[1]\[__cudaemu_x]; " } @$names);
    # the barrier the threads wait at after it, for a diagnosis
    my $wait = 'nullptr, 0';
    if (substr($m, $e, $state->{body_end} - $e) =~ $state->{any_barrier}) {
        my ($file, $line) = $state->{origin}->($e + $-[0]);
        $wait = "\"$file\", $line";
    }
    my $start = "__cudaemu_b.wait_at($wait); for (unsigned __cudaemu_p = 0; __cudaemu_p < __cudaemu_b.n; "
              . "__cudaemu_p++) { const unsigned __cudaemu_x = __cudaemu_b.enter(__cudaemu_p); $bindings\{ ";
    my $label = '';
    if ($final) {
        while ($text =~ /\breturn\b/g) {
            push @{$state->{edits}}, [$s + $-[0], $s + $+[0], "goto __cudaemu_end_$region"];
            $label = "__cudaemu_end_$region:; ";
        }
    }
    insert($state, $e, " } $label" . '__cudaemu_b.leave(__cudaemu_x); }');
    # its declarations of locals used after it: into arrays
    my $after = substr($m, $e, $scope_end - $e);
    my %thread_names;    # this stretch's locals so far (each thread's own, unless found uniform)
    my $thread_names = \%thread_names;
    for my $i ($first .. $last) {
        my ($ds, $de) = @{$stmts->[$i]};
        my $dtext = substr($m, $ds, $de - 1 - $ds);    # (less the ';')
        next unless substr($m, $de - 1, 1) eq ';';
        my $d = declaration($dtext) or next;
        for my $v (@{$d->{declarators}}) {
            $v->{uniform} = defined $v->{init_at} &&
                            uniform(substr($m, $ds + $v->{init_at}, $v->{init_end} - $v->{init_at}), $names, $thread_names) &&
                            !changes(substr($m, $de, $state->{body_end} - $de), $v->{name});
            $thread_names{$v->{name}} = $v->{uniform};
        }
        # (used after the stretch; or an array, or its address taken, which
        # a pointer may carry past the barrier)
        my $rest = substr($m, $de, $e - $de);
        next unless grep { $after =~ /\b\Q$_->{name}\E\b/ || $_->{dims} ne '' || $rest =~ /&\s*\Q$_->{name}\E\b/ }
                    @{$d->{declarators}};
        my $spec = substr($src, $ds, $d->{spec_len});
        return refuse($state, 'auto') if $spec =~ /\bauto\b/;
        push @{$state->{edits}}, [$ds, $ds + $d->{spec_len}, 'auto'];
        for my $v (@{$d->{declarators}}) {
            my $storage = '__cudaemu_s' . ++$state->{count} . "_$v->{name}";
            my $uniform = $v->{uniform};
            insert($state, $storage_at // $s,
                   "auto *const $storage = __cudaemu_b.alloc<std::remove_cv_t<" . flat($spec) . " $v->{pointer}>$v->{dims}>(); ");
            if (defined $v->{init_at}) {
                push @{$state->{edits}}, [$ds + $v->{at}, $ds + $v->{head_end}, "&$v->{name}"];
                push @{$state->{edits}}, [$ds + $v->{init_at}, $ds + $v->{init_at}, "($storage\[__cudaemu_x] = "];
                push @{$state->{edits}}, [$ds + $v->{init_end}, $ds + $v->{init_end}, ')'];
            } else {
                push @{$state->{edits}}, [$ds + $v->{at}, $ds + $v->{head_end}, "&$v->{name} = $storage\[__cudaemu_x]"];
            }
            push @$names, [$v->{name}, $storage, $uniform];
        }
    }
    insert($state, $s, $start);
    return 1;
}

1;
