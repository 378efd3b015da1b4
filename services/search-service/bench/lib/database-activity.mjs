// What PostgreSQL did besides the requests while something was measured: checkpoints,
// vacuums and the WAL written. Polled from the load generator's process on a connection of its own.
import { performance } from 'node:perf_hooks';
import pg from 'pg';

/** how often pg_stat_activity and the checkpoint counters are read */
const POLL_MS = 100;

/**
 * A measurement's share of the database's background work, as a line of the report: how many
 * buffers checkpoints wrote and for how long a checkpoint was under way, and every VACUUM or
 * ANALYZE seen running (autovacuum's, the folder's VACUUM of its queue tables, the bench's own)
 * with the time it was seen. Why: a checkpoint started by a load's WAL goes on writing for
 * tens of seconds after it, and autovacuum visits the index tables when their changes cross
 * its thresholds; both take a core from the measurement that falls under them, which a run
 * showed only as a slower part with no cause (on 2026-11-27, an autovacuum of search_postings
 * in one of the four parts of the adds to B, 0.59× where the next run read 0.86×).
 * Times are counted by polls (every POLL_MS): a statement shorter than that may be missed.
 */
export function createDatabaseActivity(databaseUrl) {
  let client = null;
  /** the checkpoint counters' query of this server's version (set by connect) */
  let checkpointSql = '';
  /** pg_stat_wal (PostgreSQL 14 and later; set by connect) */
  let walStats = false;
  let polling = null;
  let stopRequested = false;

  async function connect() {
    if (client) return client;
    client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-activity' });
    client.on('error', () => {}); // a connection the bench's database drop cut
    await client.connect();
    const version = Number(
      (await client.query('SHOW server_version_num')).rows[0].server_version_num,
    );
    // PostgreSQL 17 moved the checkpointer's counters out of pg_stat_bgwriter
    checkpointSql =
      version >= 170000
        ? 'SELECT buffers_written::float8 AS buffers FROM pg_stat_checkpointer'
        : 'SELECT buffers_checkpoint::float8 AS buffers FROM pg_stat_bgwriter';
    walStats = version >= 140000;
    return client;
  }

  async function buffersWritten(c) {
    return (await c.query(checkpointSql)).rows[0].buffers;
  }

  /**
   * { bytes, fpi } of WAL written so far (null before 14). Full-page images are what a page's
   * first change after a checkpoint costs, hint bits too when the cluster has data checksums
   * (PostgreSQL 18's initdb default): the first reads of rows a load just wrote write WAL.
   */
  async function walWritten(c) {
    if (!walStats) return null;
    const { rows } = await c.query(
      'SELECT wal_bytes::float8 AS bytes, wal_fpi::float8 AS fpi FROM pg_stat_wal',
    );
    return rows[0];
  }

  /** one poll: { checkpointing, vacuums: [what] } */
  async function poll(c) {
    const { rows } = await c.query(
      `SELECT backend_type, wait_event, query FROM pg_stat_activity
       WHERE pid <> pg_backend_pid()
         AND (backend_type IN ('autovacuum worker', 'checkpointer')
              OR (state = 'active' AND query ~* '^\\s*(vacuum|analyze)'))`,
    );
    const vacuums = [];
    let checkpointing = false;
    for (const r of rows) {
      if (r.backend_type === 'checkpointer') checkpointing ||= r.wait_event !== 'CheckpointerMain';
      else if (r.query) vacuums.push(vacuumName(r));
    }
    return { checkpointing, vacuums };
  }

  return {
    /** starts watching (resolves once the first reading is taken) */
    async start() {
      const c = await connect();
      const seen = {
        buffers0: await buffersWritten(c),
        wal0: await walWritten(c),
        checkpointMs: 0,
        vacuumMs: new Map(),
      };
      stopRequested = false;
      polling = (async () => {
        let last = performance.now();
        while (!stopRequested) {
          const p = await poll(c);
          const now = performance.now();
          const dt = now - last;
          last = now;
          if (p.checkpointing) seen.checkpointMs += dt;
          for (const v of new Set(p.vacuums))
            seen.vacuumMs.set(v, (seen.vacuumMs.get(v) ?? 0) + dt);
          await new Promise((r) => setTimeout(r, POLL_MS));
        }
        return seen;
      })();
    },
    /** stops watching; the report line ("PostgreSQL meanwhile: …") */
    async stop() {
      stopRequested = true;
      const seen = await polling;
      const buffers = (await buffersWritten(client)) - seen.buffers0;
      const wal = await walWritten(client);
      const parts = [
        buffers > 0 || seen.checkpointMs > 0
          ? `checkpoint under way ${(seen.checkpointMs / 1000).toFixed(1)} s, ${Math.round(buffers)} buffers written (${Math.round((buffers * 8) / 1024)} MB)`
          : 'no checkpoint',
        seen.vacuumMs.size
          ? [...seen.vacuumMs].map(([v, ms]) => `${v} ${(ms / 1000).toFixed(1)} s`).join(', ')
          : 'no vacuum or analyze',
        ...(wal && seen.wal0
          ? [
              `WAL ${Math.round((wal.bytes - seen.wal0.bytes) / 2 ** 20)} MB written (${Math.round(wal.fpi - seen.wal0.fpi)} full-page images)`,
            ]
          : []),
      ];
      return `PostgreSQL meanwhile: ${parts.join('; ')}`;
    },
    async close() {
      await client?.end().catch(() => {});
    },
  };
}

/** "autovacuum: VACUUM ANALYZE public.search_postings" → as is; a client's → "VACUUM … (a client)" */
function vacuumName(r) {
  const text = r.query.replace(/\s+/g, ' ').trim();
  if (r.backend_type === 'autovacuum worker') return text.slice(0, 80);
  return `${text.slice(0, 60)} (a client)`;
}
