// Where PostgreSQL's time goes (BENCH_PG_STATEMENTS=1, embedded PostgreSQL only): the
// statements of a phase from pg_stat_statements, top-level ones apart from the statements
// they run inside (functions, CTEs' triggers), with their time per operation of the phase.
import { STATEMENT_STATS } from './settings.mjs';
import { report } from './worker-link.mjs';

/** sql: a pg pool on the bench's database; a no-op without BENCH_PG_STATEMENTS */
export function createStatementStats(sql) {
  return {
    async reset() {
      if (!STATEMENT_STATS) return;
      await sql.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await sql.query('SELECT pg_stat_statements_reset()');
    },
    /** prints the statements run since reset(), most time first, per each of n operations */
    async print(label, n, rows = 12) {
      if (!STATEMENT_STATS) return;
      const { rows: stats } = await sql.query(
        `SELECT toplevel, calls::float8 AS calls, total_exec_time AS exec_ms,
                total_plan_time AS plan_ms, rows::float8 AS rows,
                regexp_replace(left(query, 110), '\\s+', ' ', 'g') AS query
         FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'
         ORDER BY total_exec_time DESC LIMIT $1`,
        [rows],
      );
      const perOp = (ms) => ((ms * 1000) / n).toFixed(0).padStart(5);
      report(
        `PostgreSQL statements during ${label} (µs per operation of ${n}; "in" = run inside another statement):`,
      );
      for (const s of stats)
        report(
          `  ${perOp(s.exec_ms)} µs exec ${perOp(s.plan_ms)} µs plan ${String(Math.round(s.calls)).padStart(8)} calls ${s.toplevel ? '  ' : 'in'} ${s.query}`,
        );
    },
  };
}
