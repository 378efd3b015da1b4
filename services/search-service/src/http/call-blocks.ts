import type pg from 'pg';

/**
 * The SQL of the API call limit: blocks of calls reserved in the counter row of a collection
 * and window (api_calls.reserved), and what an instance used of them (api_calls.calls).
 * Migration: 1732700000000_api-call-blocks.sql.
 */

/** A block is at most this share (1/n) of the calls left above the exact margin. */
export const BLOCK_SHARE = 8;

export interface Reservation {
  /** calls reserved for this instance (0: none left for now) */
  granted: number;
  /** calls admitted in the window by every instance, as settled so far */
  calls: number;
}

const TAKE = 'SELECT granted, calls, reserved FROM take_api_calls($1, $2, $3, $4, $5, $6, $7)';

/** Settles `used` calls and reserves a new block (one round trip, atomic). */
export async function reserveCalls(
  pool: pg.Pool,
  args: {
    collectionId: string;
    windowStart: number;
    used: number;
    maxCalls: number;
    block: number;
    margin: number;
  },
): Promise<Reservation> {
  const { rows } = await pool.query<{ granted: string; calls: string }>({
    name: 'api-calls-take-block',
    text: TAKE,
    values: [
      args.collectionId,
      args.windowStart,
      args.used,
      args.maxCalls,
      args.block,
      args.margin,
      BLOCK_SHARE,
    ],
  });
  return { granted: Number(rows[0]!.granted), calls: Number(rows[0]!.calls) };
}

// from the collection row, under a key share lock: a collection deleted meanwhile gets no row
const SETTLE = `INSERT INTO api_calls AS a (collection_id, window_start, calls)
  SELECT c.id, $2, $3::bigint FROM collections c WHERE c.id = $1 FOR KEY SHARE
  ON CONFLICT (collection_id, window_start) DO UPDATE
  SET calls = a.calls + EXCLUDED.calls,
      reserved = greatest(a.reserved - EXCLUDED.calls - $4::bigint, 0)
  RETURNING calls`;

/**
 * Adds `used` calls to the count and gives `returned` unused reserved calls back (both leave
 * the reservation). Returns the settled count (0 when the collection is gone: nothing counted).
 */
export async function settleCalls(
  pool: pg.Pool,
  args: { collectionId: string; windowStart: number; used: number; returned: number },
): Promise<number> {
  const { rows } = await pool.query<{ calls: string }>({
    name: 'api-calls-settle',
    text: SETTLE,
    values: [args.collectionId, args.windowStart, args.used, args.returned],
  });
  return Number(rows[0]?.calls ?? 0);
}
