# Nothing on a statement's path beyond counting and timing it (issue 38,
# item 5): the seed load shape -- one transaction that creates 10 tables and
# copies 1000 rows into each of them 5 times, under wal_level = minimal --
# makes no more file system calls (open, lseek, close, ioctl, stat, ...) in
# its loading statements with walload recording them than with
# walload.track = none.  walload_activity still predicts the commit: how
# many files COMMIT WAL-logs and syncs, as the commit then records.
#
# The backend is traced with strace -p between BEGIN and COMMIT, once
# untracked and once tracked, after an untraced round that warms its caches.
# Every assertion is on counts of system calls and of files, never on a
# duration.  Skipped where strace is missing or may not trace the backend.
# cassert: no (file system calls counted with strace: the statement path of every other file)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;
use Cwd qw(abs_path);
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

my $strace = `command -v strace 2>/dev/null`;
chomp $strace;
plan skip_all => 'strace is not installed' if $strace eq '';

my $node = calibrated_node('walload_statement_syscalls', qq{
autovacuum = off
wal_level = minimal
max_wal_senders = 0
});

# the rows the COPYs read, from a file the server reads (the same calls in
# both rounds)
# absolute: the server reads it, from its own working directory (the test
# framework's base directory is relative on some versions)
my $csv = abs_path($node->basedir) . '/rows.csv';
open my $fh, '>', $csv or die "cannot write $csv: $!";
print $fh "$_,customer,1.50\n" for 1 .. 1000;
close $fh;
chmod 0644, $csv;

my $session = $node->background_psql('postgres');
my $pid = $session->query_safe('SELECT pg_backend_pid()');

# the system calls that size or look up files; strace's own names
my $calls = '%file,lseek,close,ioctl,fstat';

# strace attached to the backend until stopped; returns its handle, its
# output file and its stderr
sub trace_start
{
	my ($name) = @_;
	my $out = $node->basedir . "/strace_$name.txt";
	my $err = '';
	my $h = IPC::Run::start([ $strace, '-e', "trace=$calls", '-o', $out, '-p', $pid ],
		'<', \undef, '>', \my $ignored, '2>', \$err);
	my $deadline = time + $PostgreSQL::Test::Utils::timeout_default;
	until ($err =~ /attached/ || !$h->pumpable)
	{
		last if time > $deadline;
		$h->pump_nb;
		select(undef, undef, undef, 0.05);
	}
	return ($h, $out, \$err);
}

# stop tracing; returns the count of each call traced, and apart the calls
# on files of /proc (walload's look at which pages of the buffer headers
# this process has mapped, before a statement that may walk them: no file
# sizing, and once the pages are mapped no more)
sub trace_stop
{
	my ($h, $out) = @_;
	my (%n, %proc, %path_of);
	$h->signal('INT');
	$h->finish;
	for my $line (split /\n/, slurp_file($out))
	{
		next unless $line =~ /^(\w+)\((.*)\)\s+=\s+(-?\d+)/;
		my ($call, $args, $ret) = ($1, $2, $3);
		my $path = '';
		if ($args =~ /"([^"]*)"/)
		{
			$path = $1;
			$path_of{$ret} = $path if $call =~ /^open/ && $ret >= 0;
		}
		elsif ($args =~ /^(\d+)/)
		{
			$path = $path_of{$1} // '';
			delete $path_of{$1} if $call eq 'close';
		}
		if ($path =~ m{^/proc/}) { $proc{$call}++ }
		else { $n{$call}++ }
	}
	return (\%n, \%proc);
}

# may this user trace the backend?  (ptrace may be forbidden here)
{
	my ($h, $out, $err) = trace_start('probe');
	my $attached = $$err =~ /attached/;
	$h->signal('INT') if $h->pumpable;
	$h->finish;
	if (!$attached)
	{
		note $$err;
		$session->quit;
		$node->stop;
		plan skip_all => 'strace cannot trace the backend (ptrace not permitted?)';
	}
}

# the seed load shape's loading statements, tables named ${prefix}_1 ..
# ${prefix}_10, in a transaction left open; traced if asked: returns the
# count of each call they made
sub load
{
	my ($prefix, $traced) = @_;
	my ($h, $out);
	$session->query_safe('BEGIN');
	($h, $out) = trace_start($prefix) if $traced;
	$session->query_safe("CREATE TABLE ${prefix}_$_ (id int, name text, amount numeric)")
	  for 1 .. 10;
	for my $round (1 .. 5)
	{
		$session->query_safe("COPY ${prefix}_$_ FROM '$csv' WITH (FORMAT csv)") for 1 .. 10;
	}
	return $traced ? trace_stop($h, $out) : ();
}

# warm the backend's caches, once in each mode: the first round opens
# catalogs (and their files) the later ones find open, core's as well as
# the ones walload reads once per backend (pg_class for relpages); a first
# open is not a call per statement
$session->query_safe("SET walload.track = 'top'");
load('warm', 0);
$session->query_safe('ROLLBACK');
$session->query_safe("SET walload.track = 'none'");
load('warm', 0);
$session->query_safe('ROLLBACK');

my ($off, $off_proc) = load('off', 1);
$session->query_safe('COMMIT');
$session->query_safe("SET walload.track = 'top'");
my ($on, $on_proc) = load('on', 1);

my %names = map { $_ => 1 } keys %$off, keys %$on;
my $summary = join ', ',
  map { sprintf '%s %d/%d', $_, $off->{$_} // 0, $on->{$_} // 0 } sort keys %names;
note "calls of the loading statements, untracked/tracked: $summary";
note 'and on files of /proc, tracked: ',
  join(', ', map { "$_ $on_proc->{$_}" } sort keys %$on_proc) || 'none';
ok($off->{openat} > 0 && $off->{close} > 0,
	'strace saw the loading statements open and close files');
# a call made per statement would add at least 60 (the live prediction
# used to add about 5,000 openat and 1,700 lseek here); a few calls once per
# backend or transaction (a catalog's file first opened, on some versions
# inside the counted round) are not a statement's
for my $call (sort keys %names)
{
	cmp_ok(($on->{$call} // 0) - ($off->{$call} // 0), '<', 10,
		"$call: walload adds fewer than one call per six loading statements");
}

# the live prediction, and what COMMIT then did
my $seen = $node->safe_psql('postgres', qq{
SELECT concat_ws('|', pred_commit_ms IS NOT NULL, pred_wal_logged_rels, pred_synced_rels,
                 statements)
FROM walload_activity WHERE pid = $pid});
$session->query_safe('COMMIT');
my $done = $node->safe_psql('postgres', qq{
SELECT concat_ws('|', wal_logged_rels, synced_rels)
FROM walload_xacts
WHERE xact_id = (SELECT max(xact_id) FROM walload_statements WHERE query LIKE 'CREATE TABLE on_1 %')});
my ($has_pred, $pred_wal_logged, $pred_synced, $statements) = split /\|/, $seen;
is($has_pred, 't', 'walload_activity predicts the commit during the load');
is($statements, 60, 'of the 60 recorded statements');
is($done, "$pred_wal_logged|$pred_synced",
	'COMMIT WAL-logged and synced the files the live prediction counted');
is($done, '30|0',
	'the 10 tables, their TOAST tables and TOAST indexes, each below wal_skip_threshold: WAL-logged');

$session->quit;
$node->stop;
done_testing();
