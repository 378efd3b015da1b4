import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { MeiliDocument } from '../mapping';
import { asIs, inTransaction } from '@hub/service-kit';
import { planBatch, type AppliedVersion, type OutboxRow, type PlannedChange } from './coalesce';

/**
 * Step 1 of a relay batch, in one short transaction: choose the rows to send and claim them
 * (claimed_by = a token of this batch, claimed_until = now + lease), then COMMIT. The claim
 * stands in for the row locks the relay used to hold while it waited for Meilisearch: a
 * document with a live claim is left alone by the other relays, and a drop waits until no row
 * of its collection is claimed. A relay that dies after claiming loses its rows when the lease
 * runs out; they are sent again (writes are idempotent).
 */

export type Claim =
  | { kind: 'none'; selected: number; skipped: number; stale: number }
  | { kind: 'drop'; token: string; row: OutboxRow }
  | {
      kind: 'changes';
      token: string;
      selected: number;
      skipped: number;
      /** rows settled at once: an equal or newer version is already in Meilisearch */
      stale: number;
      upserts: PlannedChange[];
      deletes: PlannedChange[];
    };

export interface ClaimOptions {
  batchSize: number;
  leaseMs: number;
  ignoreBackoff: boolean;
}

const ADVISORY_CLASS = 0x5e01; // pg_advisory_xact_lock(int, int): (class, hashtext(meili_id))

const ROW_COLUMNS = `id::text, op, collection_id, meili_id, doc_id::text, version::text, payload, force, isolate, attempts,
  (claimed_until IS NOT NULL AND claimed_until > clock_timestamp()) AS claimed`;

const UNCLAIMED = `(o.claimed_until IS NULL OR o.claimed_until <= clock_timestamp())`;

// rows of a collection wait behind an earlier pending drop of that collection
const NO_EARLIER_DROP = `NOT EXISTS (
  SELECT 1 FROM search_outbox d
  WHERE d.done_at IS NULL AND d.op = 'drop' AND d.collection_id = o.collection_id AND d.id < o.id)`;

interface DbRow {
  id: string;
  op: OutboxRow['op'];
  collection_id: string;
  meili_id: string;
  doc_id: string;
  version: string;
  payload: MeiliDocument | null;
  force: boolean;
  isolate: boolean;
  attempts: number;
  claimed: boolean;
}

function toRow(r: DbRow): OutboxRow {
  return {
    id: r.id,
    op: r.op,
    collectionId: r.collection_id,
    meiliId: r.meili_id,
    docId: r.doc_id,
    version: r.version,
    payload: r.payload,
    force: r.force,
    isolate: r.isolate,
    attempts: r.attempts,
  };
}

export function claimBatch(pool: pg.Pool, opts: ClaimOptions): Promise<Claim> {
  return inTransaction(pool, asIs, (tx) => chooseAndClaim(tx, opts));
}

async function chooseAndClaim(client: pg.PoolClient, opts: ClaimOptions): Promise<Claim> {
  const due = opts.ignoreBackoff ? 'true' : 'o.next_attempt_at <= clock_timestamp()';
  const selected = (
    await client.query<DbRow>(
      `SELECT ${ROW_COLUMNS} FROM search_outbox o
        WHERE o.done_at IS NULL AND ${due} AND ${UNCLAIMED} AND ${NO_EARLIER_DROP}
        ORDER BY o.id LIMIT $1
        FOR UPDATE OF o SKIP LOCKED`,
      [opts.batchSize],
    )
  ).rows.map(toRow);
  if (selected.length === 0) return { kind: 'none', selected: 0, skipped: 0, stale: 0 };
  const token = randomUUID();
  if (selected[0]!.op === 'drop') return claimDrop(client, selected[0]!, token, opts.leaseMs);

  // the batch stops before a drop
  const batch: OutboxRow[] = [];
  for (const row of selected) {
    if (row.op === 'drop') break;
    batch.push(row);
  }

  // one claim transaction at a time per document
  const ids = [...new Set(batch.map((r) => r.meiliId))];
  const locked = (
    await client.query<{ m: string }>(
      `SELECT m FROM unnest($1::text[]) AS m WHERE pg_try_advisory_xact_lock($2::int, hashtext(m))`,
      [ids, ADVISORY_CLASS],
    )
  ).rows.map((r) => r.m);
  if (locked.length === 0)
    return { kind: 'none', selected: selected.length, skipped: batch.length, stale: 0 };

  // every pending row of the locked documents (also ones waiting for a retry): the newest
  // wins. A document is only sent when all its pending rows are ours and none is claimed by a
  // batch in flight. Reading without locks first, then locking with SKIP LOCKED, never waits
  // for another relay (no deadlock) and misses nothing.
  const all = await client.query<{ id: string; meili_id: string }>(
    `SELECT o.id::text, o.meili_id FROM search_outbox o
      WHERE o.done_at IS NULL AND o.meili_id = ANY($1::text[]) AND o.op <> 'drop' AND ${NO_EARLIER_DROP}`,
    [locked],
  );
  const mineRows = (
    await client.query<DbRow>(
      `SELECT ${ROW_COLUMNS} FROM search_outbox o
        WHERE o.done_at IS NULL AND o.meili_id = ANY($1::text[]) AND o.op <> 'drop' AND ${NO_EARLIER_DROP}
        ORDER BY o.id
        FOR UPDATE OF o SKIP LOCKED`,
      [locked],
    )
  ).rows;
  const mineIds = new Set(mineRows.map((r) => r.id));
  const blocked = new Set([
    ...all.rows.filter((r) => !mineIds.has(r.id)).map((r) => r.meili_id),
    ...mineRows.filter((r) => r.claimed).map((r) => r.meili_id),
  ]);
  const rows = mineRows.map(toRow).filter((r) => !blocked.has(r.meiliId));
  const lockedSet = new Set(locked);
  const skipped = batch.filter((r) => !lockedSet.has(r.meiliId) || blocked.has(r.meiliId)).length;
  if (rows.length === 0) return { kind: 'none', selected: selected.length, skipped, stale: 0 };

  const plan = planBatch(rows, await appliedVersions(client, locked));
  await settleStale(
    client,
    plan.stale.map((r) => r.id),
  );
  const claimed = [...plan.upserts, ...plan.deletes].flatMap((c) => c.rows.map((r) => r.id));
  await claimRows(client, claimed, token, opts.leaseMs);
  return {
    kind: 'changes',
    token,
    selected: selected.length,
    skipped,
    stale: plan.stale.length,
    upserts: plan.upserts,
    deletes: plan.deletes,
  };
}

/** A drop is claimed only when no earlier row of its collection is claimed (in flight). */
async function claimDrop(
  client: pg.PoolClient,
  row: OutboxRow,
  token: string,
  leaseMs: number,
): Promise<Claim> {
  const inFlight = await client.query(
    `SELECT 1 FROM search_outbox c
      WHERE c.collection_id = $1 AND c.id < $2 AND c.claimed_until > clock_timestamp() LIMIT 1`,
    [row.collectionId, row.id],
  );
  if (inFlight.rowCount) return { kind: 'none', selected: 1, skipped: 1, stale: 0 };
  await claimRows(client, [row.id], token, leaseMs);
  return { kind: 'drop', token, row };
}

async function claimRows(
  client: pg.PoolClient,
  ids: string[],
  token: string,
  leaseMs: number,
): Promise<void> {
  if (ids.length === 0) return;
  await client.query(
    `UPDATE search_outbox
        SET claimed_by = $2, claimed_until = clock_timestamp() + make_interval(secs => $3::float8 / 1000)
      WHERE id = ANY($1::bigint[])`,
    [ids, token, leaseMs],
  );
}

async function appliedVersions(
  client: pg.PoolClient,
  meiliIds: string[],
): Promise<Map<string, AppliedVersion>> {
  const applied = new Map<string, AppliedVersion>();
  const r = await client.query<{
    meili_id: string;
    doc_id: string;
    version: string;
    deleted: boolean;
  }>(
    `SELECT meili_id, doc_id::text, version::text, deleted
       FROM search_applied_versions WHERE meili_id = ANY($1::text[])`,
    [meiliIds],
  );
  for (const row of r.rows) {
    applied.set(row.meili_id, { docId: row.doc_id, version: row.version, deleted: row.deleted });
  }
  return applied;
}

async function settleStale(client: pg.PoolClient, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await client.query(
    `UPDATE search_outbox SET done_at = clock_timestamp(), last_error = NULL
      WHERE id = ANY($1::bigint[])`,
    [ids],
  );
}
