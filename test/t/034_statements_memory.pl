# Reading walload_statements (PUBLIC's) holds memory bounded by the
# reader's work_mem and a chunk of the ring, not by walload.max_statements:
# the ring is read a chunk at a time into a sort that spills to disk
# beyond work_mem.  Counted in bytes (pg_backend_memory_contexts), with a
# cursor that has fetched the first row: the read is done then, and what
# it materialized is still held.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $statements = 60000;
my $node = PostgreSQL::Test::Cluster->new('walload_statements_memory');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
walload.calibration = off
walload.max_statements = 100000
autovacuum = off
});
$node->start;
$node->safe_psql('postgres', q{CREATE EXTENSION walload; CREATE TABLE t (i int)});

# the statements of a DO block, each recorded (walload.track = all)
$node->safe_psql('postgres', qq{
SET walload.track = 'all';
DO \$\$ BEGIN FOR i IN 1 .. $statements LOOP INSERT INTO t VALUES (i); END LOOP; END \$\$;
});
my $kept = $node->safe_psql('postgres', 'SELECT count(*) FROM walload_statements');
cmp_ok($kept, '>=', $statements, "the ring holds $kept statements");

# what one record takes: a copy of the ring would hold $kept of them
my $record = 615;
my $reader = q{
SET work_mem = '1MB';
SELECT sum(total_bytes) FROM pg_backend_memory_contexts;
BEGIN;
DECLARE c CURSOR FOR SELECT * FROM walload_statements;
FETCH 1 FROM c \gset
SELECT sum(total_bytes) FROM pg_backend_memory_contexts;
MOVE ALL IN c;
COMMIT;
};
my ($before, $during) = split /\n/, $node->safe_psql('postgres', $reader);
my $held = $during - $before;
note "held while reading: $held bytes (before: $before); a copy of the ring: "
  . ($kept * $record) . " bytes";
cmp_ok($held, '<', 4 * 1024 * 1024,
	'a read holds less than 4 MB at work_mem = 1MB (twice work_mem and a chunk)');
cmp_ok($held, '<', $kept * $record / 8, 'far less than a copy of the ring');

# and it reads every statement, ordered by transaction and statement
is( $node->safe_psql('postgres', q{
SET work_mem = '64kB';
SELECT count(*) || ' ' || count(*) FILTER (WHERE (xact_id, stmt_no) <= prev)
FROM (SELECT xact_id, stmt_no, lag((xact_id, stmt_no)) OVER () AS prev FROM walload_statements) s}),
	"$kept 0", 'every statement, in order, also where the sort spills (work_mem = 64kB)');
is( $node->safe_psql('postgres', q{
SELECT count(DISTINCT (xact_id, stmt_no)) = count(*) FROM walload_statements}),
	't', 'each once');

$node->stop;
done_testing();
