import type { MeiliDocument } from '../mapping';

/** One pending row of search_outbox, as the relay reads it. */
export interface OutboxRow {
  id: string;
  op: 'upsert' | 'delete' | 'drop';
  collectionId: string;
  meiliId: string;
  /** documents.id, exact text */
  docId: string;
  /** documents.version, exact text */
  version: string;
  payload: MeiliDocument | null;
  force: boolean;
  isolate: boolean;
  attempts: number;
}

export interface AppliedVersion {
  docId: string;
  version: string;
  /** a delete: it ends its documents.id, so it orders after an upsert of the same version */
  deleted?: boolean;
}

/**
 * The order of changes to one Meilisearch document: by documents.id (new on re-add), then
 * version, then a delete after an upsert of the same version (the delete of a document carries
 * the version of its last upsert, and nothing follows a delete under that documents.id).
 */
export function compareVersions(a: AppliedVersion, b: AppliedVersion): number {
  const da = BigInt(a.docId);
  const db = BigInt(b.docId);
  if (da !== db) return da < db ? -1 : 1;
  const va = BigInt(a.version);
  const vb = BigInt(b.version);
  if (va !== vb) return va < vb ? -1 : 1;
  return Number(a.deleted ?? false) - Number(b.deleted ?? false);
}

function rowVersion(row: OutboxRow): AppliedVersion {
  return { docId: row.docId, version: row.version, deleted: row.op === 'delete' };
}

/** The change to send for one Meilisearch document, and the rows it settles. */
export interface PlannedChange {
  meiliId: string;
  winner: OutboxRow;
  /** every row of this document in the batch, the winner included */
  rows: OutboxRow[];
}

export interface BatchPlan {
  upserts: PlannedChange[];
  deletes: PlannedChange[];
  /** rows not worth sending: an equal or newer version is already in Meilisearch */
  stale: OutboxRow[];
}

/**
 * Coalesces a batch by Meilisearch id: only the newest change of each document is sent, and not
 * even that when Meilisearch already holds that version or a newer one (a forced reindex row is
 * sent again at an equal version, never at an older one).
 */
export function planBatch(
  rows: OutboxRow[],
  applied: ReadonlyMap<string, AppliedVersion>,
): BatchPlan {
  const byId = new Map<string, OutboxRow[]>();
  for (const row of rows) {
    if (row.op === 'drop') throw new Error('a drop row is planned on its own');
    const list = byId.get(row.meiliId);
    if (list) list.push(row);
    else byId.set(row.meiliId, [row]);
  }
  const plan: BatchPlan = { upserts: [], deletes: [], stale: [] };
  for (const [meiliId, list] of byId) {
    let winner = list[0]!;
    for (const row of list) {
      const c = compareVersions(rowVersion(row), rowVersion(winner));
      // equal versions: prefer a forced row, then the later row
      if (c > 0 || (c === 0 && (row.force || !winner.force))) winner = row;
    }
    const forced = list.some(
      (r) => r.force && compareVersions(rowVersion(r), rowVersion(winner)) === 0,
    );
    const current = applied.get(meiliId);
    if (current) {
      const c = compareVersions(current, rowVersion(winner));
      if (c > 0 || (c === 0 && !forced)) {
        plan.stale.push(...list);
        continue;
      }
    }
    if (winner.op === 'upsert' && winner.payload === null)
      throw new Error(`outbox row ${winner.id} has no payload`);
    (winner.op === 'upsert' ? plan.upserts : plan.deletes).push({ meiliId, winner, rows: list });
  }
  return plan;
}
