#!/usr/bin/perl
# rewrite.pl: turns a preprocessed CUDA translation unit into plain C++ for
# the cpu backend.  Usage: rewrite.pl IN.ii OUT.cpp
#
# The input is `g++ -E` output of the .cu file, so macros (kit.h's LAUNCH
# among them) are already expanded and line markers say which file and line
# every part came from.  Three things a C++ compiler cannot parse change:
#
#   k<<<grid, block, shmem, stream>>>(args)   a call to cudaemu::launch_kernel
#   __shared__ T v[N];                          a reference into the block's shared arena
#   extern __shared__ T v[];                    a pointer to the dynamic shared memory
#
# The forms read (tests/backend/rewrite/ has one program for each, and the
# messages for what is refused):
#   - a launch's kernel: k, ns::k, k<T, N> (template arguments may hold '>'
#     inside parentheses or nested templates); its configuration: any
#     expressions, braced ones too (dim3{1, 1, 1}, {32, 1, 1});
#   - __shared__ with __align__(N), alignas(N), __attribute__((aligned(N)));
#     a type defined in the declaration (__shared__ struct { ... } s;);
#   - line markers (a comment or #if block of more than 8 lines) between a
#     kernel's ')' and '{', or inside a __shared__ declaration;
#   - clock() calls become cudaemu_clock() (the cycle counter in a kernel).
# A '<<<' that is no launch read here stops with a message at its line.
#
# No line is added or removed, so the compiler's messages and __LINE__ still
# name the student's line.  Kernels defined in the file are also registered
# (name, static shared memory, parameter types) at its end, within their
# namespace, so that one name in two namespaces gives two kernels.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;

my ($after_pch, $no_twins, $split);
while (@ARGV && $ARGV[0] =~ /^--/) {
    my $option = shift @ARGV;
    if ($option eq '--after-pch') { $after_pch = 1 }
    elsif ($option eq '--no-twins') { $no_twins = 1 }
    elsif ($option eq '--split') { $split = 1 }
    else { die "rewrite.pl: unknown option $option\n" }
}
my ($in, $out) = @ARGV;
die "usage: rewrite.pl [--after-pch] [--no-twins] [--split] IN.ii OUT.cpp\n" unless defined $out && defined $in;
open(my $fh, '<', $in) or die "rewrite.pl: cannot read $in: $!\n";
my $src = do { local $/; <$fh> };
close $fh;

# ---- with a precompiled cuda_runtime.h: its text left out ------------------------------
# g++ -E expands the cuda_runtime.h that the build includes first (with the
# C++ library it includes: most of the file); the compile step takes it from
# the precompiled header instead (cpu.mk), so its text is cut here.
if (defined $after_pch) {
    $src =~ s{^\#\s*1\s+"[^"\n]*cuda_runtime\.h"\s+1\n.*?^\#\s*\d+\s+"<command-line>"\s+2\n}{}ms
        or die "rewrite.pl: $in does not begin with the cuda_runtime.h the build includes first\n";
}

# ---- a mask of the source: string and character literals blanked --------------
# Same length as $src, so positions agree; regexes run on the mask.
my $mask = $src;
$mask =~ s{("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')}{ my $s = $1; substr($s, 1, -1) =~ s/[^\n]/ /g; $s }ge;
# Raw strings (R"(...)") are rare in kernels; blank them too.
$mask =~ s{(R"([^(\s]*)\(.*?\)\2")}{ (my $s = $1) =~ s/[^\n]/ /g; $s }gse;

# A launch written with spaces inside its brackets, k << <grid, block >> >(args)
# (as some editors' formatters write it; nvcc reads it): "<< <" is the same
# two tokens as "<<<" to C++ (and ">> >" as ">>>"), so the spaces move after
# the third bracket, in the source and the mask alike, and one form is read.
{
    my @spaced;
    while ($mask =~ /(<<|>>)(\s+)(?=([<>]))/g) {
        push @spaced, [$-[0], $1, $2] if substr($1, 0, 1) eq $3;
    }
    for my $at (@spaced) {
        my ($p, $pair, $space) = @$at;
        my $joined = $pair . substr($pair, 0, 1) . $space;
        substr($mask, $p, length $joined) = $joined;
        substr($src, $p, length $joined) = $joined;
    }
}

# The mask again with the line markers blanked: g++ -E puts one where a
# comment or an #if block of more than 8 lines was (between a kernel's ')'
# and its '{', say), and what looks across lines must see through it.
my $flat_mask = $mask;
$flat_mask =~ s{^(#[^\n]*)}{' ' x length($1)}mge;

# ---- where a position comes from (for our own error messages) -----------------
my @markers;    # [position after the marker line, line number, file]
while ($src =~ /^#\s*(\d+)\s+"([^"]*)"[^\n]*\n/mg) {
    push @markers, [pos($src), $1, $2];
}
sub origin {
    my ($p) = @_;
    my ($mp, $line, $file) = (0, 1, $in);
    for my $m (@markers) {
        last if $m->[0] > $p;
        ($mp, $line, $file) = @$m;
    }
    my $between = substr($src, $mp, $p - $mp);
    $line += ($between =~ tr/\n//);
    return ($file, $line);
}
sub fail_at {
    my ($p, $msg) = @_;
    my ($file, $line) = origin($p);
    print STDERR "$file:$line: error: $msg\n";
    exit 1;
}
sub newlines { my ($s) = @_; return ($s =~ tr/\n//); }
sub flat { my ($s) = @_; $s =~ s/\s+/ /g; $s =~ s/^ | $//g; return $s; }

# ---- the scopes: which braces are namespaces, which are code ---------------------
# For each '{': 'ns' (namespace NAME), 'anon', 'linkage' (extern "C"), 'code'
# (a function body or anything inside one), 'other' (class, enum, init list).
my @events;     # [position, kind, scope snapshot]
my @bodies;     # the '{' of each function body outside any other (the twins below read them)
{
    my @stack;
    while ($mask =~ /(\{|\}|\b__shared__\b|\b__global__\b)/g) {
        my ($tok, $p) = ($1, pos($mask) - length($1));
        if ($tok eq '{') {
            my $before = substr($flat_mask, $p > 2000 ? $p - 2000 : 0, $p > 2000 ? 2000 : $p);
            my $kind = 'other';
            my $name = '';
            if (grep { $_->[0] eq 'code' } @stack) {
                $kind = 'code';
            } elsif ($before =~ /\bnamespace\s+([A-Za-z_]\w*)\s*$/) {
                ($kind, $name) = ('ns', $1);
            } elsif ($before =~ /\bnamespace\s*$/) {
                $kind = 'anon';
            } elsif ($before =~ /\bextern\s+"\s*"\s*$/) {
                $kind = 'linkage';
            } elsif ($before =~ /\)\s*(?:(?:const|noexcept|mutable|override|final|volatile)\s*|->[^;{}()]*|__attribute__\s*\(\(.*?\)\)\s*)*$/s) {
                $kind = 'code';
                push @bodies, $p;
            }
            push @stack, [$kind, $name, $p];
        } elsif ($tok eq '}') {
            pop @stack;
        } else {
            push @events, [$p, $tok, [map { [@$_] } @stack]];
        }
    }
}

sub in_code { my ($scopes) = @_; return scalar grep { $_->[0] eq 'code' } @$scopes; }
sub namespace_path {
    my ($scopes) = @_;
    my @names;
    for my $s (@$scopes) {
        return undef if $s->[0] eq 'code' || $s->[0] eq 'other';
        push @names, $s->[1] if $s->[0] eq 'ns';
    }
    return join('', map { "$_\::" } @names);
}

# Position of the parenthesis/brace matching the opening one at $p.
sub matching {
    my ($p) = @_;
    my $open = substr($mask, $p, 1);
    my $close = $open eq '(' ? ')' : $open eq '{' ? '}' : $open eq '[' ? ']' : '>';
    my $depth = 0;
    for (my $i = $p; $i < length $mask; $i++) {
        my $c = substr($mask, $i, 1);
        $depth++ if $c eq $open;
        $depth-- if $c eq $close;
        return $i if $depth == 0;
    }
    return -1;
}

# Whether a parameter list (without its parentheses) gives a default: an '='
# outside any nested (), [] or {}, and not part of ==, <=, >= or !=.
sub has_default_argument {
    my ($params) = @_;
    1 while $params =~ s/\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}/ /g;
    return $params =~ /(?<![=!<>])=(?!=)/;
}

# ---- kernels defined here ----------------------------------------------------------
my @kernels;             # {name, ns, template, body_start, body_end, pos, shared => [types]}
my %template_kernel;     # kernel names that are templates
my %default_arguments;   # kernel names declared with a default argument
my %definitions;         # name -> how many definitions
for my $e (grep { $_->[1] eq '__global__' } @events) {
    my ($p, undef, $scopes) = @$e;
    my $head_start = $p;
    while ($head_start > 0 && substr($mask, $head_start - 1, 1) !~ /[;{}]/) { $head_start--; }
    my $head = substr($mask, $head_start, $p - $head_start);
    my $is_template = $head =~ /\btemplate\b/ ? 1 : 0;
    pos($mask) = $p;
    next unless $mask =~ /\G__global__[^;{(]*?((?:\b[A-Za-z_]\w*\s*::\s*)*)\b([A-Za-z_]\w*)\s*\(/g;
    my ($qualifier, $name, $name_pos) = (flat($1), $2, $-[2]);
    $qualifier =~ s/\s+//g;
    my $open = pos($mask) - 1;
    my $close = matching($open);
    next if $close < 0;
    $template_kernel{$name} = 1 if $is_template;
    # a prototype may carry the defaults, so look before asking for a body
    $default_arguments{$name} = 1 if has_default_argument(substr($mask, $open + 1, $close - $open - 1));
    my $after = substr($flat_mask, $close + 1, 4000);
    next unless $after =~ /^((?:\s|const\b|noexcept\b|__attribute__\s*\(\(.*?\)\))*)\{/s;
    my $body_start = $close + 1 + length($1);
    my $body_end = matching($body_start);
    my $ns = namespace_path($scopes);
    $ns .= $qualifier if defined $ns;
    # overloads (one name, one namespace) are not registered: &ns::k would be ambiguous
    $definitions{($ns // '') . $name}++;
    push @kernels, { name => $name, ns => $ns, scope_ns => namespace_path($scopes), head_start => $head_start,
                     template => $is_template, name_pos => $name_pos, qualifier => $qualifier,
                     body_start => $body_start, body_end => $body_end, pos => $p, shared => [] };
}
sub kernel_at {
    my ($p) = @_;
    for my $k (@kernels) { return $k if $p > $k->{body_start} && $p < $k->{body_end}; }
    return undef;
}


# ---- kernels that can run as coroutines (cudaemu/coroutine.h) ---------------------------
# A kernel whose only waits are __syncthreads() (and its _count, _and, _or
# forms) written in its own body gets a twin, a copy that is a coroutine:
# each such call a co_await, each return a co_return.  Not when anything
# else in it may wait: another wait of the backend (warp operations,
# cooperative groups, pipelines), a function of this file that waits or
# calls one that does, a __device__ function only declared here (its body
# is elsewhere), a lambda or a local class (a co_await cannot be in one),
# or a static local (the twin would have its own).  Then, and for a kernel
# defined twice or outside its namespace, the threads run on fibers.
my $barrier_re = qr/\b__syncthreads(?:_count|_and|_or)?\b/;
my $other_wait_re = qr/\b(?:__syncwarp|__shfl\w*|__ballot\w*|__any_sync|__all_sync|__any|__all|__activemask|__match_\w+|
    __reduce_\w+_sync|__pipeline\w*|cooperative_groups|cg|this_thread_block|this_grid|this_multi_grid|tiled_partition|
    coalesced_threads|thread_block\w*|thread_group|grid_group|memcpy_async|co_await|co_return|co_yield)\b|
    (?:\.|->)\s*(?:sync|wait|arrive\w*)\s*\(/x;
sub matching_back {
    my ($p) = @_;    # the '(' that matches the ')' at $p
    my $depth = 0;
    for (my $i = $p; $i >= 0; $i--) {
        my $c = substr($mask, $i, 1);
        $depth++ if $c eq ')';
        $depth-- if $c eq '(';
        return $i if $depth == 0;
    }
    return -1;
}
# With --split (cucc's builds), a block synced through cooperative groups
# counts as __syncthreads(): a thread_block made by this_thread_block(),
# used for nothing but its sync() (cta.sync(), cg::sync(cta),
# this_thread_block().sync()) and the questions that wait for nothing
# (thread_rank(), size(), ...).  Its syncs, its declaration, and the body
# with both blanked (for the checks below), or undef.
sub block_group_syncs {
    my ($body) = @_;
    my $decl = qr/\b(?:[A-Za-z_]\w*\s*::\s*)?thread_block\s+([A-Za-z_]\w*)\s*=\s*(?:[A-Za-z_]\w*\s*::\s*)?this_thread_block\s*\(\s*\)\s*;/;
    my @names;
    push @names, $1 while $body =~ /$decl/g;
    my $names = @names ? join('|', map { quotemeta } @names) : '(?!)';
    my $sync = qr/\b(?:$names)\s*\.\s*sync\s*\(\s*\)|(?:\b[A-Za-z_]\w*\s*::\s*)?\bsync\s*\(\s*(?:$names)\s*\)|
                  (?:\b[A-Za-z_]\w*\s*::\s*)?\bthis_thread_block\s*\(\s*\)\s*\.\s*sync\s*\(\s*\)/x;
    my $question = qr/\b(?:$names)\s*\.\s*(?:thread_rank|size|num_threads|group_index|thread_index|group_dim|dim_threads)\s*\(\s*\)/;
    return undef unless $body =~ $sync;
    (my $plain = $body) =~ s/((?:\b(?:[A-Za-z_]\w*\s*::\s*)?thread_block\s+(?:$names)\s*=\s*(?:[A-Za-z_]\w*\s*::\s*)?this_thread_block\s*\(\s*\)\s*;)|$sync|$question)/' ' x length($1)/ge;
    return undef if @names && $plain =~ /\b(?:$names)\b/;
    return { sync => $sync, decl => $decl, plain => $plain };
}

my %waits;    # names of this file's functions that may wait
if (grep { defined $_->{body_end} && $_->{body_end} > 0 &&
           substr($mask, $_->{body_start}, $_->{body_end} - $_->{body_start}) =~ ($split ? qr/$barrier_re|\bthis_thread_block\b/ : $barrier_re) } @kernels) {
    my @functions;    # [name, body text]
    for my $b (@bodies) {
        my $end = matching($b);
        next if $end < 0;
        my $from = $b > 4000 ? $b - 4000 : 0;
        my $before = substr($flat_mask, $from, $b - $from);
        next unless $before =~ /\)[^()]*$/;
        my $open = matching_back($from + $-[0]);
        next if $open < 0;
        $from = $open > 400 ? $open - 400 : 0;
        next unless substr($flat_mask, $from, $open - $from) =~ /([A-Za-z_]\w*)\s*(?:<[^;{}()]*>)?\s*$/;
        push @functions, [$1, substr($flat_mask, $b, $end - $b + 1)];
    }
    my %defined = map { $_->[0] => 1 } @functions;
    while ($flat_mask =~ /\b__device__\b[^;{}()]*?\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*;/g) {
        $waits{$1} = 1 unless $defined{$1};
    }
    for my $f (@functions) {
        $waits{$f->[0]} = 1 if $f->[1] =~ $barrier_re || $f->[1] =~ $other_wait_re;
    }
    for (my $more = 1; $more;) {
        $more = 0;
        for my $f (@functions) {
            next if $waits{$f->[0]};
            while ($f->[1] =~ /\b([A-Za-z_]\w*)\s*(?:<[^;{}()]*>)?\s*\(/g) {
                next unless $waits{$1};
                $waits{$f->[0]} = $more = 1;
                last;
            }
        }
    }
}
my %kernels_named;
$kernels_named{$_->{name}}++ for @kernels;
for my $k (@kernels) {
    next if $no_twins;
    next if !defined $k->{body_end} || $k->{body_end} < 0 || $k->{qualifier} ne '' || !defined $k->{scope_ns};
    next if $kernels_named{$k->{name}} > 1;
    my $body = substr($flat_mask, $k->{body_start}, $k->{body_end} - $k->{body_start} + 1);
    my $group = $split ? block_group_syncs($body) : undef;
    my $plain = $group ? $group->{plain} : $body;
    next unless $group || $body =~ $barrier_re;
    next if $plain =~ $other_wait_re;
    next if $body =~ /\]\s*(?:\([^()]*\)\s*)?(?:(?:mutable|constexpr|noexcept)\s*|->[^;{}]*)*\{/;   # a lambda
    next if $body =~ /\b(?:struct|class|union)\b[^;{}()]*\{/;                                         # a local class
    next if grep { !/\b__shared__\b/ } ($body =~ /\bstatic\b[^;]*;/g);                                 # a static local
    my $calls_waiting = 0;
    while ($plain =~ /\b([A-Za-z_]\w*)\s*(?:<[^;{}()]*>)?\s*\(/g) {
        $calls_waiting = 1 if $waits{$1} && $1 ne $k->{name} && $1 !~ /^__syncthreads/;
    }
    next if $calls_waiting;
    my $head = substr($mask, $k->{head_start}, $k->{name_pos} - $k->{head_start});
    next unless $head =~ /.*\bvoid\b/s;
    $k->{void_pos} = $k->{head_start} + $+[0] - 4;
    $k->{twin} = 1;
    $k->{block_group} = $group;
}
my %twin_of = map { $_->{name} => $_ } grep { $_->{twin} } @kernels;
# Any other kernel defined once here is named to its launches as a constant
# (cudaemu::inline_kernel<&k>), so that the loop starting a block's threads
# has its calls inlined (launch.h's thread_loop).
my %inline_of = map { $_->{name} => $_ }
                grep { !$_->{twin} && defined $_->{body_end} && $_->{body_end} > 0 && $kernels_named{$_->{name}} == 1 }
                @kernels;

my @edits;    # [start, end, replacement]

# ---- __shared__ declarations ---------------------------------------------------------
my $slot = 0;
for my $e (grep { $_->[1] eq '__shared__' } @events) {
    my ($p, undef, $scopes) = @$e;
    my $start = $p;
    while ($start > 0 && substr($mask, $start - 1, 1) !~ /[;{}]/) { $start--; }
    # do not swallow a line marker that sits between the previous statement and this one
    my $lead = substr($mask, $start, $p - $start);
    if ($lead =~ /.*\n#[^\n]*\n/s) { $start += $+[0]; $lead = substr($mask, $start, $p - $start); }
    $lead =~ /^\s*/;
    $start += $+[0];
    # the ';' that ends it, past the braces of a struct defined in it
    my ($end, $braces) = ($p, 0);
    for (; $end < length $mask; $end++) {
        my $c = substr($mask, $end, 1);
        $braces++ if $c eq '{';
        $braces-- if $c eq '}';
        last if $braces < 0 || ($c eq ';' && $braces == 0);
    }
    fail_at($p, "a __shared__ declaration without ';'") if $end >= length($mask) || $braces < 0;
    my $text = substr($src, $start, $end - $start);
    # what the replacement keeps: the line breaks, and the line markers of a
    # long comment or #if block inside the declaration
    (my $skeleton = $text) =~ s/^(?!#)[^\n]*//mg;
    (my $decl = $text) =~ s/^#[^\n]*//mg;
    $decl = flat($decl);
    # its alignment: __align__(N) (that is __attribute__((aligned(N)))) or alignas(N), anywhere in it
    my @aligns;
    my $attr_re = qr/__attribute__\s*\(\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)\)/;
    while ($decl =~ /$attr_re/g) {
        my $a = $1;
        while ($a =~ /\b(?:__)?aligned(?:__)?\b\s*(\((?:[^()]|\([^()]*\))*\))?/g) {
            push @aligns, defined $1 ? $1 : '(16)';
        }
    }
    $decl =~ s/$attr_re//g;
    while ($decl =~ s/\balignas\s*(\((?:[^()]|\([^()]*\))*\))//) { push @aligns, $1; }
    my $align = '';
    if (@aligns) {
        # the largest of them, as a constant expression
        $align = "(size_t)$aligns[0]";
        $align = "((size_t)$_ > $align ? (size_t)$_ : $align)" for @aligns[1 .. $#aligns];
    }
    my $extern = $decl =~ s/\bextern\b//g;
    $decl =~ s/\b(?:__shared__|static)\b//g;
    $decl = flat($decl);
    # a type defined in the declaration (__shared__ struct { int a; float b; } s;) gets a name
    my $defined_type = '';
    if ($decl =~ /^(.*?\{.*\})(.*)$/) {
        ($defined_type, $decl) = ($1, $2);
        fail_at($p, "a __shared__ variable's type is defined here but no variable is declared") if $decl =~ /^\s*$/;
        $decl = "cudaemu_shared_type_" . ($slot + 1) . " $decl";
    }
    fail_at($p, "a __shared__ variable cannot have an initializer in CUDA: declare it, then assign it in the kernel")
        if $decl =~ /=/ && $decl !~ /\[[^\]]*=/;
    # split the declarators at top-level commas
    my (@parts, $depth, $cur);
    ($depth, $cur) = (0, '');
    for my $c (split //, $decl) {
        $depth++ if $c =~ /[\[(<]/;
        $depth-- if $c =~ /[\])>]/;
        if ($c eq ',' && $depth == 0) { push @parts, $cur; $cur = ''; } else { $cur .= $c; }
    }
    push @parts, $cur;
    my $first = shift @parts;
    $first =~ /^(.+?)\s*(\**)\s*\b([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)$/
        or fail_at($p, "cannot read this __shared__ declaration (\"$decl\"); write it as: __shared__ TYPE NAME[SIZE];");
    my ($type, @decls) = ($1, [$2, $3, $4]);
    for my $d (@parts) {
        $d =~ /^\s*(\**)\s*([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)$/
            or fail_at($p, "cannot read the declarator \"$d\" of this __shared__ declaration");
        push @decls, [$1, $2, $3];
    }
    my $code = in_code($scopes);
    my @out;
    my $k = $code ? kernel_at($p) : undef;
    if ($defined_type ne '') {
        my $typedef = "typedef $defined_type cudaemu_shared_type_" . ($slot + 1) . ";";
        if ($k && !$k->{template} && $defined_type =~ /^(?:struct|class|union)\s*\{/) {
            # an unnamed type in a plain kernel: defined before the kernel, on
            # the kernel's first line, so that its registration can size it
            push @edits, [$k->{head_start}, $k->{head_start}, "$typedef "];
        } else {
            # named (the kernel may name it) or in a template: where it was;
            # the kernel's first launch measures its shared memory
            push @out, $typedef;
            $k->{unsized_shared} = 1 if $k;
            $k = undef;
        }
    }
    for my $d (@decls) {
        my ($ptr, $name, $dims) = @$d;
        $dims = flat($dims);
        if ($extern) {
            fail_at($p, "extern __shared__ $name must be an array of unknown size, as in: extern __shared__ $type $name\[];")
                unless $dims eq '[]' && $ptr eq '';
            push @out, $code ? "$type *$name = ($type *)::cudaemu::dynamic_shared();"
                             : "static ::cudaemu::dynamic_shared_array<$type> $name;";
        } else {
            fail_at($p, "__shared__ $name needs a size known at compile time; use extern __shared__ for a size chosen at launch")
                if $dims =~ /\[\s*\]/;
            my $t = flat("$type $ptr$dims");
            my $targs = $align eq '' ? $t : "$t, $align";
            if ($code) {
                $slot++;
                push @out, "static ::cudaemu::shared_slot cudaemu_shared_slot_$slot; "
                         . "auto &$name = ::cudaemu::shared_var<$targs>(&cudaemu_shared_slot_$slot, __FILE__, __LINE__);";
                push @{$k->{shared}}, [$t, $align] if $k;
            } else {
                $slot++;
                push @out, "static ::cudaemu::static_shared_var<$targs> $name;";
            }
        }
    }
    # the replacement covers the ';' too
    push @edits, [$start, $end + 1, join(' ', @out) . $skeleton];
}

# ---- the split form of a twinned kernel (SplitKernel.pm, with --split) -------------------
# The kernel's parameter names (for SplitKernel's check that none changes).
sub parameter_names {
    my ($k) = @_;
    pos($mask) = $k->{name_pos} + length($k->{name});
    $mask =~ /\G\s*\(/g or return undef;
    my $open = pos($mask) - 1;
    my $close = matching($open);
    my $list = substr($flat_mask, $open + 1, $close - $open - 1);
    my @names;
    for my $p (SplitKernel::top_commas($list)) {
        my $t = $p->[1];
        next if $t =~ /^\s*(?:void)?\s*$/;
        $t =~ s/=.*//s;
        return undef unless $t =~ /([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*$/;
        push @names, $1;
    }
    return { open => $open, close => $close, names => \@names };
}
# The split copy of kernel $k (source $from .. $to), or undef.
sub split_copy {
    my ($k, $from, $to) = @_;
    my @mine = grep { $_->[0] >= $from && $_->[1] <= $to && !($_->[0] == $from && $_->[1] == $from) } @edits;
    push @mine, @{$k->{split}};
    push @mine, [$k->{name_pos}, $k->{name_pos} + length($k->{name}), "__cudaemu_split_$k->{name}"];
    my $p = $k->{parameters};
    if ($p->{names} && @{$p->{names}}) {
        push @mine, [$p->{open} + 1, $p->{open} + 1, '::cudaemu::split_block &__cudaemu_b, '];
    } else {
        push @mine, [$p->{open} + 1, $p->{close}, '::cudaemu::split_block &__cudaemu_b'];
    }
    my $copy = substr($src, $from, $to - $from);
    my $last_edit = $to + 1;
    # (an insertion goes before a replacement that starts where it is)
    for my $ed (sort { $b->[0] <=> $a->[0] || $b->[1] <=> $a->[1] } @mine) {
        my ($s, $e, $r) = @$ed;
        return undef if $e > $last_edit;
        substr($copy, $s - $from, $e - $s) = $r;
        $last_edit = $s;
    }
    return $copy;
}
if ($split) {
    require SplitKernel;
    for my $k (grep { $_->{twin} } @kernels) {
        my $parameters = parameter_names($k) or next;
        my $group = $k->{block_group};
        my ($edits, $why) = SplitKernel::edits(mask => $flat_mask, src => $src, params => $parameters->{names},
                                               body_start => $k->{body_start}, body_end => $k->{body_end},
                                               origin => \&origin, sync => $group && $group->{sync},
                                               uniform => $group && $group->{decl});
        print STDERR "rewrite.pl: $k->{name} is not split: $why\n" if !$edits && $ENV{CUDAEMU_SPLIT_WHY};
        next unless $edits;
        $k->{split} = $edits;
        $k->{parameters} = $parameters;
    }
}

# ---- kernel launches -------------------------------------------------------------------
# The pattern is tried only from the start of each statement that holds a
# '<<<' (the preprocessed file is mostly the C++ library's headers, and
# trying it at every name there took most of the build's time).
my %launch_starts;    # statement start -> the last '<<<' in that statement
pos($mask) = undef;
while ($mask =~ /<<</g) {
    my $q = pos($mask) - 3;
    my $start = $q;
    $start-- while $start > 0 && substr($mask, $start - 1, 1) !~ /[;{}]/;
    $launch_starts{$start} = $q;
}
my %launch_seen;
for my $start (sort { $a <=> $b } keys %launch_starts) {
    pos($mask) = $start;
    while ($mask =~ m{
            (?<name>(?:::\s*)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)
            (?<targs>\s*(?!<<<)(?<tp><(?:[^<>;{}()]++|(?<tpp>\((?:[^()]++|(?&tpp))*\))|(?&tp))*>))?
            \s*<<<(?<cfg>(?:(?!>>>)(?:[^;{}]|(?<br>\{(?:[^{}]++|(?&br))*\})))*)>>>\s*
            (?<args>\((?:[^()]++|(?&args))*\))
        }gx) {
        # groups: 1 name, 2 targs, 3 tp, 4 tpp, 5 cfg, 6 br, 7 args
        my ($s, $e, $cfg_s, $cfg_e, $args_s, $args_e) = ($-[0], $+[0], $-[5], $+[5], $-[7], $+[7]);
        last if $s > $launch_starts{$start};
        next if $launch_seen{$s}++;
        my ($name, $targs) = (flat($+{name}), defined $+{targs} ? flat($+{targs}) : '');
        my $cfg_text = substr($src, $cfg_s, $cfg_e - $cfg_s);
        my $args_text = substr($src, $args_s, $args_e - $args_s);
        (my $short = $name) =~ s/.*:://;
        my $all = substr($src, $s, $e - $s);
        my $lost = newlines($all) - newlines($cfg_text) - newlines($args_text);
        my $call;
        if (($template_kernel{$short} && $targs eq '') || $default_arguments{$short}) {
            # template arguments deduced from the call: let C++ do it per thread.
            # Default arguments too: decltype(k) has no defaults, so the launch
            # cannot list every parameter's value; each thread calls k with the
            # arguments given (evaluated once, on the host) and C++ adds the
            # defaults, the same values unless a default reads changing state.
            my $kernel = $template_kernel{$short} && $targs eq '' ? 'nullptr' : "(const void *)$name$targs";
            $call = "::cudaemu::launch_kernel(__FILE__, __LINE__, \"$name$targs\", $kernel, ::cudaemu::config($cfg_text), "
                  . "[&](auto &&cudaemu_sink) { cudaemu_sink$args_text; }, "
                  . "[&](auto &&...cudaemu_args) { $name$targs(cudaemu_args...); })";
        } else {
            my $twin = '';
            if (my $k = $twin_of{$short}) {
                # defined above this launch, so that the twin's name is known here
                (my $twin_name = $name) =~ s/(\w+)$/__cudaemu_co_$1/;
                (my $split_name = $name) =~ s/(\w+)$/__cudaemu_split_$1/;
                $twin = $k->{split} ? ", ::cudaemu::split_kernel($twin_name$targs, $split_name$targs)" : ", $twin_name$targs"
                    if $s > $k->{body_end};
            } elsif ($k = $inline_of{$short}) {
                $twin = ", ::cudaemu::inline_kernel<&$name$targs>()" if $s > $k->{body_end};
            }
            $call = "::cudaemu::launch_typed(__FILE__, __LINE__, \"$name$targs\", $name$targs, ::cudaemu::config($cfg_text), "
                  . "::cudaemu::kernel_args<decltype($name$targs)>$args_text$twin)";
        }
        $call .= "\n" x $lost;
        push @edits, [$s, $e, $call];
    }
}

# A <<< that no launch above took in: say which forms are read rather than
# leave g++ to report "expected primary-expression before '<' token".
{
    my @launches = map { [$_->[0], $_->[1]] } @edits;
    pos($mask) = undef;
    while ($mask =~ /<<</g) {
        my $p = pos($mask) - 3;
        next if substr($mask, 0, $p) =~ /\boperator\s*$/;
        next if grep { $p >= $_->[0] && $p < $_->[1] } @launches;
        fail_at($p, "cannot read this kernel launch; the cpu backend reads KERNEL<<<GRID, BLOCK>>>(ARGS), "
                    . "with an optional shared memory size and stream after BLOCK, where KERNEL is the kernel's "
                    . "name, qualified or with template arguments (k, ns::k, k<T, 4>), not an expression such as "
                    . "(k) or a function pointer");
    }
}

# ---- clock(): device.h makes it a macro for cudaemu_clock() (the cycle counter
# in a kernel, the C library's on the host), but <ctime> and the headers that
# include it #undef clock.  So calls left as clock() become cudaemu_clock()
# here; not a member's (t.clock()) or a declaration's (clock_t clock()).
{
    my @taken = map { [$_->[0], $_->[1]] } @edits;
    pos($mask) = undef;
    while ($mask =~ /\bclock\s*\(\s*\)/g) {
        my ($s, $e) = ($-[0], $+[0]);
        next if grep { $s >= $_->[0] && $s < $_->[1] } @taken;
        my $before = substr($flat_mask, $s > 200 ? $s - 200 : 0, $s > 200 ? 200 : $s);
        $before =~ s/(?:::\s*)$//;                       # ::clock(), std::clock()
        $before =~ s/\bstd\s*$//;
        next if $before =~ /(?:\.|->|\b(?!return\b|case\b)[A-Za-z_]\w*)\s*$/;
        push @edits, [$s, $s + 5, 'cudaemu_clock'];
    }
}

# ---- cudaLaunch(Cooperative)Kernel((void *)k, ...): keep k's type ----------------------
pos($mask) = undef;
while ($mask =~ /\bcudaLaunch(?:Cooperative)?Kernel\s*\(\s*(\(\s*(?:const\s+)?void\s*\*\s*\))/g) {
    push @edits, [$-[1], $+[1], ' ' x ($+[1] - $-[1])];
}

# ---- the twins: each a copy of its kernel (its edits above included) as a coroutine --------
# After the kernel's last line, between line markers that give the copy the
# kernel's own lines (the compiler's messages and __LINE__ name them) and
# give the lines after it theirs back.
for my $k (grep { $_->{twin} } @kernels) {
    my ($from, $to) = ($k->{head_start}, $k->{body_end} + 1);
    # not from before an #include's end (a line marker with flags): the copy would end it twice
    $from += $+[0] if substr($src, $from, $k->{name_pos} - $from) =~ /.*^#\s*\d+\s+"[^"\n]*"[ \d]+\n/ms;
    my @mine = grep { $_->[0] >= $from && $_->[1] <= $to && !($_->[0] == $from && $_->[1] == $from) } @edits;
    push @mine, [$k->{name_pos}, $k->{name_pos} + length($k->{name}), "__cudaemu_co_$k->{name}"];
    push @mine, [$k->{void_pos}, $k->{void_pos} + 4, '::cudaemu::co_thread'];
    my $body = substr($mask, $k->{body_start}, $to - $k->{body_start});
    while ($body =~ /\b(__syncthreads(?:_count|_and|_or)?)\b/g) {
        my ($at, $call) = ($k->{body_start} + $-[1], $1);
        (my $co = $call) =~ s/^__syncthreads/::cudaemu::co_syncthreads/;
        push @mine, [$at, $at + length($call), "co_await $co"];
    }
    while ($body =~ /\breturn\b/g) {
        my $at = $k->{body_start} + $-[0];
        push @mine, [$at, $at + 6, 'co_return'];
    }
    if (my $group = $k->{block_group}) {
        my $flat_body = substr($flat_mask, $k->{body_start}, $to - $k->{body_start});
        while ($flat_body =~ /$group->{sync}/g) {
            push @mine, [$k->{body_start} + $-[0], $k->{body_start} + $+[0], 'co_await ::cudaemu::co_syncthreads()'];
        }
    }
    my $copy = substr($src, $from, $to - $from);
    my $last_edit = $to + 1;
    for my $ed (sort { $b->[0] <=> $a->[0] } @mine) {
        my ($s, $e, $r) = @$ed;
        fail_at($s, "cannot rewrite overlapping CUDA constructs here") if $e > $last_edit;
        substr($copy, $s - $from, $e - $s) = $r;
        $last_edit = $s;
    }
    my ($file, $line) = origin($from);
    # (the file the kernel ends in: $from may lie before the line marker
    # that begins the .cu, where origin() names "<command-line>")
    my ($end_file, $end_line) = origin($k->{body_end});
    my $copies = "\n# $line \"$file\"\n$copy\n# $end_line \"$end_file\"\n";
    if (my $split_copy = $k->{split} && split_copy($k, $from, $to)) {
        $copies .= "# $line \"$file\"\n$split_copy\n# $end_line \"$end_file\"\n";
    }
    push @edits, [$to, $to, $copies];
}

# ---- apply, from the end so that positions stay valid ------------------------------------
my $last = length($src) + 1;
for my $ed (sort { $b->[0] <=> $a->[0] } @edits) {
    my ($s, $e, $r) = @$ed;
    fail_at($s, "cannot rewrite overlapping CUDA constructs here") if $e > $last;
    substr($src, $s, $e - $s) = $r;
    $last = $s;
}

# ---- registration of the kernels defined here ----------------------------------------------
my $registrations = '';
my $n = 0;
for my $k (@kernels) {
    next if $k->{template} || !defined $k->{ns} || $definitions{$k->{ns} . $k->{name}} > 1;
    my ($file, $line) = origin($k->{pos});
    # {size, alignment} of each __shared__ variable, their types named as in the kernel's namespace
    my $shared = join(', ', map {
        my ($t, $align) = @$_;
        $align eq '' ? "{sizeof($t), alignof($t)}"
                     : "{sizeof($t), $align > alignof($t) ? $align : alignof($t)}"
    } @{$k->{shared}});
    my @ns = split /::/, $k->{ns};
    $n++;
    $registrations .= "#line $line \"$file\"\n"
                    . join('', map { "namespace $_ { " } @ns)
                    . "static ::cudaemu::kernel_registration cudaemu_kernel_registration_$n(&$k->{name}, "
                    . "\"$k->{name}\", {$shared});" . (' }' x @ns) . "\n";
}

open(my $oh, '>', $out) or die "rewrite.pl: cannot write $out: $!\n";
print $oh "#define __global__\n#define __device__\n#define __host__\n#define __constant__\n#define __managed__\n";
print $oh $src;
print $oh "\n", $registrations;
close $oh;
