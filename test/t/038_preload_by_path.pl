# shared_preload_libraries may name walload by a path.  The calibration
# worker must then run in that file, the one whose _PG_init found the
# store's shared memory: registered by name, it loaded $libdir/walload.so,
# another copy of the library without the store, and died of SIGSEGV at its
# first look at it, which restarted the whole server every 10 seconds.
#
#   - preloaded by a path: the worker calibrates and idles, nothing dies;
#   - by a path longer than the worker's registration holds (15 and 16:
#     96 bytes): the worker says so once and is not restarted, nothing dies;
#     on 17 and later the path fits and it calibrates.
# matrix: once (the two lengths of bgw_library_name, 15's and 17's, run on the host and the last version)
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Copy;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WalloadTAP;

# absolute: from 17 on a test's directories may be relative
my $tmp = abs_path(PostgreSQL::Test::Utils::tempdir());

# a copy of the installed library at dir/walload.so
sub copy_library
{
	my ($node, $dir) = @_;
	my $libdir = $node->config_data('--pkglibdir');
	mkdir $dir or die "mkdir $dir: $!" unless -d $dir;
	copy("$libdir/walload.so", "$dir/walload.so") or die "copy: $!";
	chmod 0755, $dir, "$dir/walload.so";
	return "$dir/walload.so";
}

sub node_by_path
{
	my ($name, $dirname) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	my $path = copy_library($node, "$tmp/$dirname");
	$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = '$path'
autovacuum = off
});
	$node->start;
	return ($node, $path);
}

sub crashes
{
	my ($node) = @_;
	my $log = slurp_file($node->logfile);
	my @n = $log =~ /terminated by signal/g;
	return scalar @n;
}

my $warning = qr/walload's calibration worker is not in the library the server preloaded/;

my ($short) = node_by_path('walload_by_path', 'lib');
wait_calibration($short);
ok(calibration_idle($short), 'preloaded by a path: the calibration worker calibrated and idles');
is(crashes($short), 0, 'preloaded by a path: no process died of a signal');
unlike(slurp_file($short->logfile), $warning, 'preloaded by a path: no warning');
$short->stop;

# a directory name that makes the path longer than 96 bytes
my ($long, $path) = node_by_path('walload_by_long_path', 'l' . ('o' x 100) . 'ng');
ok(length($path) > 96, 'the long path is ' . length($path) . ' bytes');
my $deadline = time + $PostgreSQL::Test::Utils::timeout_default;
until (calibration_idle($long) || slurp_file($long->logfile) =~ $warning)
{
	die 'neither calibrated nor warned' if time > $deadline;
	select(undef, undef, undef, 0.2);
}
if ($long->pg_version >= 17)
{
	ok(calibration_idle($long), 'a long path (17+): the worker calibrated and idles');
}
else
{
	# the worker's restart time is 10 s: 12 s without a second warning
	sleep 12;
	my @w = slurp_file($long->logfile) =~ /$warning/g;
	is(scalar @w, 1, 'a long path (15, 16): the worker warned once and was not restarted');
}
is(crashes($long), 0, 'a long path: no process died of a signal');
$long->stop;

done_testing();
