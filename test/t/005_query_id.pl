# Query ids.  Core computes them for every statement only when asked
# (compute_query_id = on, or auto with pg_stat_statements loaded).  Otherwise
# walload computes them itself, with core's JumbleQuery(), only for the
# statements it may record; the value must be the one core gives.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_query_id');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
autovacuum = off
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION walload;
CREATE SEQUENCE qs;
CREATE TABLE qa (id int PRIMARY KEY, v text);
CREATE TABLE qlog (round text, query_id bigint);
CREATE FUNCTION qa_load(n int) RETURNS int LANGUAGE plpgsql
  AS $$BEGIN INSERT INTO qa SELECT g + 1000, 'f' FROM generate_series(1, n) g; RETURN n; END$$;
CREATE PROCEDURE qa_proc() LANGUAGE plpgsql AS $$BEGIN UPDATE qa SET v = 'p' WHERE id = 1; END$$;
});

is($node->safe_psql('postgres', 'SHOW compute_query_id'), 'auto', 'compute_query_id is left at auto');

# every kind of statement walload records; the same text in every round, on
# the same tables (a query id depends on the OIDs of the relations it reads)
my $load = q{
TRUNCATE qa;
INSERT INTO qa SELECT g, 'x' FROM generate_series(1, 10) g;
UPDATE qa SET v = 'y' WHERE id = 3;
DELETE FROM qa WHERE id = 4;
MERGE INTO qa USING (SELECT 11 AS id) s ON qa.id = s.id WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'z');
COPY qa (id) FROM PROGRAM 'seq 100 110';
WITH d AS (DELETE FROM qa WHERE id = 5 RETURNING *) SELECT count(*) FROM d;
SELECT id FROM qa WHERE id = 1 FOR UPDATE;
SELECT qa_load(3);
CALL qa_proc();
PREPARE qa_ins AS INSERT INTO qa VALUES ($1, 'p');
EXECUTE qa_ins(200);
DEALLOCATE qa_ins;
CREATE TABLE qa2 AS SELECT * FROM qa;
CREATE INDEX qa2_id ON qa2 (id);
DROP TABLE qa2;
CREATE TABLE qb (id int UNIQUE);
DROP TABLE qb;
};

# round 1: walload computes the ids; round 2: core computes them
$node->safe_psql('postgres', "SELECT walload_reset(); $load");
$node->safe_psql('postgres', "SET compute_query_id = on; $load");

my $recorded = 'SELECT count(DISTINCT query) FROM walload_statements WHERE query NOT LIKE \'%walload_reset%\'';
# all but EXECUTE and DEALLOCATE, whose INSERT is recorded under the text
# of the PREPARE that holds it (as pg_stat_statements shows it)
my $statements = () = $load =~ /;\n/g;
is($node->safe_psql('postgres', $recorded), $statements - 2, 'every statement of the load is recorded');
is($node->safe_psql('postgres', q{
SELECT coalesce(string_agg(query, ' | '), 'none') FROM (
  SELECT query FROM walload_statements
  WHERE query NOT LIKE '%walload_reset%' AND query NOT LIKE 'SET %'
  GROUP BY query
  HAVING count(*) <> 2 OR count(DISTINCT queryid) <> 1 OR min(queryid) = 0) s}),
	'none', 'each has the query id core computes, not 0, the same in both rounds');

# 15 keeps the ids of the last four utility texts, found by the statement's
# bytes: a text met again (the second and third qd pair, the last one ended by
# the string, not by a semicolon) has core's id; another text (qe) its own
my $again = "CREATE TABLE qd (id int);\nDROP TABLE qd;\n" x 3 . "CREATE TABLE qe (id int); DROP TABLE qe; CREATE TABLE qd (id int); DROP TABLE qd";
$node->safe_psql('postgres', "SELECT walload_reset(); $again");
$node->safe_psql('postgres', "SET compute_query_id = on; $again");
is($node->safe_psql('postgres', q{
SELECT string_agg(query || ' ' || n || ':' || ids, ', ' ORDER BY query) FROM (
  SELECT query, count(*) AS n, count(DISTINCT queryid) AS ids FROM walload_statements
  WHERE query ~ '^(CREATE|DROP) TABLE q[de]' AND queryid <> 0 GROUP BY query) s}),
	'CREATE TABLE qd (id int) 8:1, CREATE TABLE qe (id int) 2:1, DROP TABLE qd 8:1, DROP TABLE qe 2:1',
	'a utility text met again has the id core computes');
is($node->safe_psql('postgres', q{
SELECT count(DISTINCT queryid) FROM walload_statements WHERE query ~ '^CREATE TABLE q[de]'}),
	'2', 'must not: another text gets the kept id');

# walload.track = all: statements inside functions are recorded, with ids
$node->safe_psql('postgres', q{SELECT walload_reset(); SET walload.track = 'all'; TRUNCATE qa; SELECT qa_load(1)});
$node->safe_psql('postgres', q{SET walload.track = 'all'; SET compute_query_id = on; TRUNCATE qa; SELECT qa_load(1)});
is($node->safe_psql('postgres', q{
SELECT count(*) || ':' || count(DISTINCT queryid) || ':' || bool_and(queryid <> 0)
FROM walload_statements WHERE NOT toplevel AND command = 'INSERT'}),
	'2:1:true', 'walload.track = all: a nested INSERT has the id core computes');

# pg_stat_activity shows the id walload computed, as it would core's
$node->safe_psql('postgres', q{
SELECT walload_reset();
INSERT INTO qlog SELECT 'walload', query_id FROM pg_stat_activity WHERE pid = pg_backend_pid();
});
is($node->safe_psql('postgres', q{
SELECT l.query_id = s.queryid FROM qlog l, walload_statements s
WHERE l.round = 'walload' AND s.command = 'INSERT'}),
	't', 'pg_stat_activity.query_id is the recorded one');

# must not: a statement walload does not record gets no id from walload
is($node->safe_psql('postgres', 'SELECT query_id IS NULL FROM pg_stat_activity WHERE pid = pg_backend_pid()'),
	't', 'a plain SELECT: no query id (core computes none, walload does not)');
is($node->safe_psql('postgres', 'SET compute_query_id = on; SELECT query_id IS NOT NULL FROM pg_stat_activity WHERE pid = pg_backend_pid()'),
	't', 'the same SELECT with compute_query_id = on: core gives it one');

# must not: statements walload records but no id is wanted
sub insert_id
{
	my ($set) = @_;
	my @out = split /\n/, $node->safe_psql('postgres', qq{SELECT walload_reset();
$set;
INSERT INTO qlog VALUES ('x', 0);
SELECT queryid FROM walload_statements WHERE command = 'INSERT'});
	return $out[-1];
}
is(insert_id('SET compute_query_id = off'), '0', 'compute_query_id = off: none, as the user asked');
is(insert_id('SET walload.compute_query_id = off'), '0', 'walload.compute_query_id = off: none');
isnt(insert_id('SET walload.compute_query_id = on'), '0', 'walload.compute_query_id = on: one');

# the documented limit: a SELECT that writes through built-in functions only
# is recorded, with no id (walload cannot know before it runs)
$node->safe_psql('postgres', q{SELECT walload_reset(); SELECT nextval('qs')});
is($node->safe_psql('postgres', q{
SELECT count(*) || ':' || min(queryid) FROM walload_statements WHERE command = 'SELECT'}),
	'1:0', 'SELECT nextval() wrote WAL: recorded, query id 0');

# with walload.track = none nothing is computed
is($node->safe_psql('postgres', q{SET walload.track = none;
SELECT query_id IS NULL FROM pg_stat_activity WHERE pid = pg_backend_pid();
}), 't', 'walload.track = none: no query id');
$node->safe_psql('postgres', q{SET walload.track = none; INSERT INTO qlog SELECT 'none', query_id FROM pg_stat_activity WHERE pid = pg_backend_pid()});
is($node->safe_psql('postgres', q{SELECT query_id IS NULL FROM qlog WHERE round = 'none'}), 't',
	'walload.track = none: an INSERT gets none either');

$node->stop;
done_testing();
