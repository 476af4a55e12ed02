# Every object of the extension binds only pg_catalog's functions and
# operators and its own, whatever a database's owner has planted, in every
# install and update path.
#
# A view binds its functions and operators when it is created, under the
# search_path CREATE EXTENSION and ALTER EXTENSION UPDATE set: pg_catalog,
# then the extension's schema (public here, where a database's owner may
# create objects since PostgreSQL 15).  A function there with the exact
# argument types of a call is a closer match than pg_catalog's (format's
# VARIADIC "any", or one that needs an implicit cast) and wins.  So:
#
#  1. the calls are read from the extension's own views, of every version
#     (their stored parse trees, pg_rewrite.ev_action): each function,
#     operator and aggregate with the argument types at the call, before
#     and after any implicit cast, and its declared signature;
#  2. the database's owner, not a superuser, plants a function or operator
#     of each name with each of those signatures, in the extension's schema
#     and in one earlier in the session's search_path; each raises an
#     error when run;
#  3. a view created the way 1.7 created walload_activity binds the planted
#     format(): the shadows are closer matches (the control);
#  4. a fresh CREATE EXTENSION, and each older version updated to the
#     default one, reference through pg_depend no function or operator
#     outside pg_catalog and the extension, give the same definitions as
#     the fresh install, pin search_path on every function not in C, and
#     read (views, walload_report(), walload_diagnose(), walload_activity
#     while a COPY runs, which formats its progress) under a search_path
#     with the planted schemas first, without running any planted object.
# matrix: once (the extension's SQL and its binding rules, the same on every version)
# cassert: no (the extension's SQL and its binding: no C path of its own)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walload_shadows');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'walload'
walload.calibration = off
});
$node->start;

# --- pg_node_tree, read as core's pg_strtok() reads it
sub tokens
{
	my ($s) = @_;
	my @t;
	while ($s =~ /\G\s*((?:[^\s(){}\\]|\\.)+|[(){}])/gcs)
	{
		my $tok = $1;
		$tok =~ s/\\(.)/$1/gs if length($tok) > 1;
		push @t, $tok;
	}
	return \@t;
}

sub parse_value
{
	my ($t, $i) = @_;
	return parse_node($t, $i) if $t->[$$i] eq '{';
	return parse_list($t, $i) if $t->[$$i] eq '(';
	return $t->[ $$i++ ];
}

sub parse_list
{
	my ($t, $i) = @_;
	my @items;
	$$i++;    # (
	push @items, parse_value($t, $i) while $t->[$$i] ne ')';
	$$i++;    # )
	return \@items;
}

sub parse_node
{
	my ($t, $i) = @_;
	$$i++;    # {
	my %n = (_type => $t->[ $$i++ ]);
	while ($t->[$$i] ne '}')
	{
		my $field = $t->[ $$i++ ];
		die "a field name expected, not '$field'" unless $field =~ /^:/;
		if ($t->[$$i] eq '{' || $t->[$$i] eq '(')
		{
			$n{$field} = parse_value($t, $i);
		}
		else
		{
			my @v;
			push @v, $t->[ $$i++ ] while $t->[$$i] ne '}' && $t->[$$i] !~ /^:/;
			$n{$field} = join(' ', @v);
		}
	}
	$$i++;    # }
	return \%n;
}

# the type an expression yields, by the node's own field (a node not
# listed stops the test: its calls could not be planted)
my %type_field = (
	VAR => ':vartype', CONST => ':consttype', PARAM => ':paramtype',
	FUNCEXPR => ':funcresulttype', OPEXPR => ':opresulttype', NULLIFEXPR => ':opresulttype',
	RELABELTYPE => ':resulttype', COERCEVIAIO => ':resulttype', ARRAYCOERCEEXPR => ':resulttype',
	FIELDSELECT => ':resulttype', COERCETODOMAIN => ':resulttype', CASEEXPR => ':casetype',
	COALESCEEXPR => ':coalescetype', MINMAXEXPR => ':minmaxtype', ARRAYEXPR => ':array_typeid',
	ROWEXPR => ':row_typeid', AGGREF => ':aggtype', WINDOWFUNC => ':wintype',
	SQLVALUEFUNCTION => ':type', CASETESTEXPR => ':typeId');
my %bool_node = map { $_ => 1 } qw(DISTINCTEXPR SCALARARRAYOPEXPR BOOLEXPR NULLTEST BOOLEANTEST);

sub expr_type
{
	my ($n) = @_;
	die "not an expression: " . (ref $n ? 'a list' : $n) unless ref $n eq 'HASH';
	return 16 if $bool_node{ $n->{_type} };
	return expr_type($n->{':arg'}) if $n->{_type} eq 'COLLATEEXPR';
	my $f = $type_field{ $n->{_type} };
	die "no type known for a node $n->{_type}" unless defined $f;
	return $n->{$f};
}

# the types an argument may have at the call: as written, and before an
# implicit cast (which a closer match would not need)
sub arg_types
{
	my ($n) = @_;
	my @t = (expr_type($n));
	my $fmt = ($n->{_type} eq 'FUNCEXPR') ? $n->{':funcformat'}
	  : ($n->{_type} eq 'RELABELTYPE') ? $n->{':relabelformat'}
	  : ($n->{_type} =~ /^(COERCEVIAIO|ARRAYCOERCEEXPR)$/) ? $n->{':coerceformat'}
	  : undef;
	if (defined $fmt && $fmt eq '2')    # COERCE_IMPLICIT_CAST
	{
		my $inner = $n->{_type} eq 'FUNCEXPR' ? $n->{':args'}[0] : $n->{':arg'};
		push @t, arg_types($inner);
	}
	return @t;
}

sub combos
{
	my @lists = @_;
	return ([]) unless @lists;
	my $first = shift @lists;
	my %seen;
	my @rest = combos(@lists);
	return grep { !$seen{"@$_"}++ } map { my $a = $_; map { [ $a, @$_ ] } @rest } @$first;
}

# every call in a tree: [kind, object oid, result type, [arg types]]
sub calls
{
	my ($n, $out) = @_;
	if (ref $n eq 'ARRAY')
	{
		calls($_, $out) for @$n;
		return;
	}
	return unless ref $n eq 'HASH';
	my $type = $n->{_type};
	my @args = ref $n->{':args'} eq 'ARRAY' ? @{ $n->{':args'} } : ();
	# only what a call names: casts and SQL syntax (EXTRACT ...) bind no name
	if ($type eq 'FUNCEXPR' && $n->{':funcformat'} eq '0' && $n->{':funcvariadic'} eq 'false')
	{
		push @$out, [ 'f', $n->{':funcid'}, $n->{':funcresulttype'}, $_ ]
		  for combos(map { [ arg_types($_) ] } @args);
	}
	elsif ($type =~ /^(OPEXPR|DISTINCTEXPR|NULLIFEXPR)$/)
	{
		push @$out, [ 'o', $n->{':opno'}, expr_type($n), $_ ]
		  for combos(map { [ arg_types($_) ] } @args);
	}
	elsif ($type eq 'AGGREF' || $type eq 'WINDOWFUNC')
	{
		my $fn = $n->{':aggfnoid'} // $n->{':winfnoid'};
		my @a = map { $_->{_type} eq 'TARGETENTRY' ? $_->{':expr'} : $_ } @args;
		push @$out, [ 'f', $fn, expr_type($n), $_ ] for combos(map { [ arg_types($_) ] } @a);
	}
	elsif ($type eq 'SCALARARRAYOPEXPR' || $type eq 'SUBLINK')
	{
		die "a $type: this test does not plant its operator yet";
	}
	calls($n->{$_}, $out) for grep { /^:/ } keys %$n;
}

# --- 1. the calls in the views of every version
my $versions = $node->safe_psql('postgres', q{
SELECT string_agg(version, ' ' ORDER BY string_to_array(version, '.')::int[])
FROM pg_available_extension_versions WHERE name = 'walload'});
my @versions = split / /, $versions;
my $default = $node->safe_psql('postgres',
	q{SELECT default_version FROM pg_available_extensions WHERE name = 'walload'});
ok(@versions >= 10, "versions to install: @versions (default $default)");

my $members = q{
  SELECT d.classid, d.objid FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
  WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND e.extname = 'walload'};
my %calls;
for my $v (@versions)
{
	$node->safe_psql('postgres',
		"DROP EXTENSION IF EXISTS walload; CREATE EXTENSION walload VERSION '$v'");
	my @trees = split /\n/, $node->safe_psql('postgres', qq{
SELECT r.ev_action FROM pg_rewrite r JOIN ($members) m
  ON m.classid = 'pg_class'::regclass AND m.objid = r.ev_class});
	for my $tree (@trees)
	{
		my $t = tokens($tree);
		my $i = 0;
		my @out;
		calls(parse_value($t, \$i), \@out);
		$calls{ join(' ', $_->[0], $_->[1], $_->[2], @{ $_->[3] }) } = 1 for @out;
	}
}
$node->safe_psql('postgres', 'DROP EXTENSION walload');
my $values = join(",\n", map {
	my ($k, $oid, $res, @args) = split / /;
	"('$k', $oid, $res, '{" . join(',', @args) . "}')"
} sort keys %calls);
ok(scalar(keys %calls) > 10, scalar(keys %calls) . ' signatures called in the views');

# what to plant: each call's name with its argument types at the call, and
# the declared signature it binds (less pseudo-types, which only C takes)
my $wanted = qq{
WITH c(kind, obj, res, args) AS (VALUES $values),
calls AS (
  SELECT c.kind, coalesce(p.proname, o.oprname) AS name, c.res, c.args::oid[] AS args,
         coalesce(p.pronamespace, o.oprnamespace) AS nsp
  FROM c LEFT JOIN pg_proc p ON c.kind = 'f' AND p.oid = c.obj
         LEFT JOIN pg_operator o ON c.kind = 'o' AND o.oid = c.obj
  UNION
  SELECT c.kind, p.proname, p.prorettype, p.proargtypes::oid[], p.pronamespace
  FROM c JOIN pg_proc p ON c.kind = 'f' AND p.oid = c.obj
  UNION
  SELECT c.kind, o.oprname, o.oprresult,
         CASE WHEN o.oprleft = 0 THEN ARRAY[o.oprright] ELSE ARRAY[o.oprleft, o.oprright] END,
         o.oprnamespace
  FROM c JOIN pg_operator o ON c.kind = 'o' AND o.oid = c.obj
)
SELECT DISTINCT kind, name, res::regtype::text AS res,
       (SELECT array_agg(a::regtype::text ORDER BY n) FROM unnest(args) WITH ORDINALITY u(a, n)) AS args
FROM calls
WHERE nsp = 'pg_catalog'::regnamespace
  AND NOT EXISTS (SELECT FROM unnest(args) a JOIN pg_type t ON t.oid = a WHERE t.typtype = 'p')
  AND NOT EXISTS (SELECT FROM pg_type t WHERE t.oid = res AND t.typtype = 'p')
  AND NOT EXISTS (SELECT FROM pg_aggregate g WHERE g.aggfnoid::text = name)};
my $planted = $node->safe_psql('postgres', "SELECT count(*) FROM ($wanted) w");
my $names = $node->safe_psql('postgres', "SELECT string_agg(DISTINCT name, ' ') FROM ($wanted) w");
note "planting $planted signatures of: $names";
note $node->safe_psql('postgres', "SELECT string_agg(kind || ' ' || name || '(' || array_to_string(args, ', ') || ') -> ' || res, E'\\n' ORDER BY 1) FROM ($wanted) w");
like($names, qr/\bformat\b/, 'format() is among the names called');
like($names, qr/\|\|/, 'and the operator ||');

# --- 2. the database's owner plants them, in public and earlier
$node->safe_psql('postgres', q{
CREATE ROLE db_owner LOGIN;
CREATE DATABASE hostile OWNER db_owner;
CREATE ROLE reader LOGIN;
GRANT pg_read_all_stats TO reader});
my $plant = qq{
SET search_path = pg_catalog;    -- what follows must not call what it plants
CREATE SCHEMA early;
GRANT USAGE ON SCHEMA early TO PUBLIC;
CREATE TABLE public.plan AS $wanted;
DO \$plant\$
DECLARE
  w record;
  s text;
  n int := 0;
BEGIN
  FOR s IN VALUES ('public'), ('early') LOOP
    FOR w IN SELECT * FROM public.plan LOOP
      n := n + 1;
      EXECUTE format(\$f\$CREATE FUNCTION %I.%I(%s) RETURNS %s LANGUAGE plpgsql AS
        \$b\$BEGIN RAISE EXCEPTION 'planted %s.%s(%s) ran as %%', current_user; END\$b\$\$f\$,
        s, CASE WHEN w.kind = 'f' THEN w.name ELSE 'planted_op_' || n END,
        array_to_string(w.args, ', '), w.res, s, w.name, array_to_string(w.args, ', '));
      IF w.kind = 'o' THEN
        EXECUTE format('CREATE OPERATOR %I.%s (%s FUNCTION = %I.%I)', s, w.name,
          CASE WHEN cardinality(w.args) = 1 THEN format('RIGHTARG = %s,', w.args[1])
               ELSE format('LEFTARG = %s, RIGHTARG = %s,', w.args[1], w.args[2]) END,
          s, 'planted_op_' || n);
      END IF;
    END LOOP;
  END LOOP;
END
\$plant\$;
SELECT count(*) FROM pg_proc WHERE pronamespace IN ('public'::regnamespace, 'early'::regnamespace)};
is($node->safe_psql('hostile', $plant, extra_params => [ '-U', 'db_owner' ]),
	2 * $planted, "the database's owner planted $planted signatures in public and in early");
is($node->safe_psql('hostile', q{SELECT count(*) FROM pg_operator WHERE oprnamespace = 'public'::regnamespace}),
	$node->safe_psql('hostile', q{SELECT count(*) FROM plan WHERE kind = 'o'}),
	'operators among them');

# --- 3. the control: 1.7's way of writing walload_activity binds a shadow
is( $node->safe_psql('hostile', q{
SET search_path = public;
CREATE VIEW probe AS
  SELECT format('%s: %s rows', c.command, c.tuples_processed) || '' AS progress
  FROM pg_stat_progress_copy c;
SELECT string_agg(DISTINCT p.pronamespace::regnamespace || '.' || p.oid::regprocedure::text, ' ')
FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid JOIN pg_proc p ON p.oid = d.refobjid
WHERE d.classid = 'pg_rewrite'::regclass AND r.ev_class = 'probe'::regclass
  AND p.pronamespace <> 'pg_catalog'::regnamespace}),
	'public.format(text,text,bigint)',
	'control: an unqualified format() of the same arguments binds the planted one');
$node->safe_psql('hostile', 'DROP VIEW probe');

# --- 4. every path to the default version
my $definitions = qq{
SELECT string_agg(pg_describe_object(m.classid, m.objid, 0) || ': ' ||
         coalesce(pg_get_viewdef(m.objid), '') || coalesce((
           SELECT pg_get_function_arguments(p.oid) || ' -> ' || pg_get_function_result(p.oid) ||
                  ' = ' || p.prosrc || ' ' || coalesce(p.proconfig::text, '')
           FROM pg_proc p WHERE m.classid = 'pg_proc'::regclass AND p.oid = m.objid), ''),
         E'\\n' ORDER BY 1)
FROM ($members) m};
my $foreign = qq{
SELECT coalesce(string_agg(DISTINCT pg_describe_object(d.refclassid, d.refobjid, 0), '; '), '')
FROM pg_depend d
WHERE d.refclassid IN ('pg_proc'::regclass, 'pg_operator'::regclass)
  AND ((d.classid, d.objid) IN (SELECT classid, objid FROM ($members) x)
       OR (d.classid = 'pg_rewrite'::regclass AND d.objid IN (
             SELECT r.oid FROM pg_rewrite r JOIN ($members) x
               ON x.classid = 'pg_class'::regclass AND x.objid = r.ev_class)))
  AND (d.refclassid, d.refobjid) NOT IN (SELECT classid, objid FROM ($members) x)
  AND (CASE WHEN d.refclassid = 'pg_proc'::regclass
            THEN (SELECT pronamespace FROM pg_proc WHERE oid = d.refobjid)
            ELSE (SELECT oprnamespace FROM pg_operator WHERE oid = d.refobjid) END)
      <> 'pg_catalog'::regnamespace};
my $function_refs = qq{
SELECT count(DISTINCT d.refobjid) FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid
WHERE d.classid = 'pg_rewrite'::regclass AND d.refclassid IN ('pg_proc'::regclass, 'pg_operator'::regclass)
  AND r.ev_class IN (SELECT objid FROM ($members) x WHERE classid = 'pg_class'::regclass)};
my $unpinned = qq{
SELECT coalesce(string_agg(p.oid::regprocedure::text, ' '), '') FROM pg_proc p
WHERE (p.tableoid, p.oid) IN (SELECT classid, objid FROM ($members) x)
  AND p.prolang <> (SELECT oid FROM pg_language WHERE lanname = 'c')
  AND NOT coalesce('search_path=pg_catalog, pg_temp' = ANY (p.proconfig), false)};
my $reads = q{
SET search_path = early, public;
SELECT count(*) >= 0 FROM walload_activity, walload_info;
SELECT count(*) >= 0 FROM walload_xacts;
SELECT count(*) >= 0 FROM walload_statements;
SELECT count(*) >= 0 FROM walload_stats;
SELECT count(*) >= 0 FROM walload_minutes;
SELECT count(*) >= 0 FROM walload_report();
SELECT count(*) >= 0 FROM walload_report(since => now() - interval '1 hour', until => now());
SELECT count(*) > 0 FROM walload_diagnose();
SELECT count(*) >= 0 FROM walload_diagnose_backend(pg_backend_pid());
-- a COPY running: walload_activity formats its progress
BEGIN;
CREATE TEMP TABLE running (i int);
COPY (SELECT progress FROM walload_activity WHERE pid = pg_backend_pid()) TO STDOUT;
ROLLBACK};

my $fresh;
for my $from ('fresh', grep { $_ ne $default } @versions)
{
	my $install = $from eq 'fresh' ? 'CREATE EXTENSION walload SCHEMA public'
	  : "CREATE EXTENSION walload SCHEMA public VERSION '$from'; ALTER EXTENSION walload UPDATE";
	my $path = $from eq 'fresh' ? 'a fresh install' : "$from updated to $default";
	# a superuser installs, with the planted schema first in its own path
	$node->safe_psql('hostile', "SET search_path = early, public; $install");
	is($node->safe_psql('hostile', q{SELECT extversion FROM pg_extension WHERE extname = 'walload'}),
		$default, "$path: at $default");
	is($node->safe_psql('hostile', $foreign), '',
		"$path: no function or operator outside pg_catalog and the extension is referenced");
	# pg_catalog's objects are pinned, pg_depend records no reference to
	# them: the check sees the views' references to the extension's own
	cmp_ok($node->safe_psql('hostile', $function_refs), '>', 5,
		"$path: the views' references to functions are seen");
	is($node->safe_psql('hostile', $unpinned), '',
		"$path: every function not in C pins search_path");
	my $defs = $node->safe_psql('hostile', $definitions);
	$fresh //= $defs;
	is($defs, $fresh, "$path: the same definitions as a fresh install");
	# a superuser and a reader of the stats, the planted schemas first
	for my $role ('postgres', 'reader')
	{
		my ($rc, $out, $err) = $node->psql('hostile', $reads,
			extra_params => [ '-U', $role, '-v', 'ON_ERROR_STOP=1' ]);
		is("$rc $err", '0 ', "$path: $role reads everything, nothing planted runs");
		like($out, qr/^COPY TO: 0 rows$/m, "$path: $role read the progress of its COPY");
	}
	$node->safe_psql('hostile', 'DROP EXTENSION walload');
}

$node->stop;
done_testing();
