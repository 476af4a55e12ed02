# pgbench -i -s 1 (a client program): creates the 4 tables in autocommit;
# then, in one transaction, TRUNCATEs them (new relfilenodes: the old files
# go at commit, 1 drop scan) and COPYs 100000 accounts (13 MB: under minimal
# 1 sync scan at that commit); VACUUM finds nothing to truncate; the primary
# key of pgbench_accounts (2.2 MB, above wal_skip_threshold) is built in its
# own transaction: under minimal 1 more sync scan.
# @needs: pgbench
# @expect minimal: flush_pending=2 drop_pending=1
# @expect replica: drop_pending=1
set -eu
case $1 in
  setup) ;;
  run) pgbench -i -s 1 -q "$ORACLE_DB" ;;
esac
