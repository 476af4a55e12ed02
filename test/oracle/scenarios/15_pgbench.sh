pgbench -i -s 1 -q "$ORACLE_DB" >/dev/null 2>&1
psql -X -q -d "$ORACLE_DB" -c "DROP TABLE pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers"
