import type { IndexSink } from '../gateway';
import type { PlannedChange } from './coalesce';
import type { SentGroup } from './record-outcomes';

/** changes sent one per task in a batch (after Meilisearch rejected a batch they were in) */
const MAX_ISOLATED_PER_BATCH = 20;

interface SendGroup {
  changes: PlannedChange[];
  send(): Promise<void>;
}

/**
 * Step 2 of a relay batch, with no transaction open: the claimed changes go to Meilisearch,
 * the ordinary ones in one addDocuments and one deleteDocuments task, each change that
 * Meilisearch rejected before in a task of its own (so one bad document fails alone), all
 * enqueued at once. Every group's outcome is returned for recording.
 */
export async function sendChanges(
  sink: IndexSink,
  upserts: PlannedChange[],
  deletes: PlannedChange[],
): Promise<SentGroup[]> {
  const groups = [
    ...groupsOf(upserts, (changes) => sink.upsert(changes.map((c) => c.winner.payload!))),
    ...groupsOf(deletes, (changes) => sink.remove(changes.map((c) => c.meiliId))),
  ];
  const outcomes = await Promise.allSettled(groups.map((g) => g.send()));
  return groups.map((g, i) => {
    const outcome = outcomes[i]!;
    return outcome.status === 'fulfilled'
      ? { changes: g.changes }
      : { changes: g.changes, error: outcome.reason as unknown };
  });
}

function groupsOf(
  list: PlannedChange[],
  write: (changes: PlannedChange[]) => Promise<void>,
): SendGroup[] {
  const isolated = (c: PlannedChange) => c.rows.some((r) => r.isolate);
  const groups: SendGroup[] = [];
  const together = list.filter((c) => !isolated(c));
  if (together.length > 0) groups.push({ changes: together, send: () => write(together) });
  for (const c of list.filter(isolated).slice(0, MAX_ISOLATED_PER_BATCH))
    groups.push({ changes: [c], send: () => write([c]) });
  return groups;
}
