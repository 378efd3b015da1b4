import type { Queryable } from '@hub/service-kit';
import { addInOneStatement, type DocumentRef, type NewDocument } from './documents';

export interface GroupedAddsOptions {
  db: Queryable;
  /** the most add statements of one collection in PostgreSQL at once */
  statementsPerCollection: number;
  /** the most documents in one add statement (1 sends every add on its own) */
  maxGroup: number;
}

/**
 * The adds of a collection reach PostgreSQL in groups: the adds that arrive while the
 * collection's earlier add statements are under way go together in one statement (one round
 * trip, one transaction, one commit: addInOneStatement), as a database groups its commits.
 *  - An add is sent at once when fewer than `statementsPerCollection` statements of its
 *    collection are under way: a lone add waits for nothing (no timer, no delay). Otherwise it
 *    waits for one of them to end, and the adds waiting then (at most `maxGroup`, in the order
 *    they came) go in the next statement.
 *  - Each add answers as if it had been sent alone: its document (DocumentRef), null when its
 *    dockey is already in the collection, or the error of its own statement (NoDocumentSlot,
 *    AddStatementFailed). A group is all or nothing, so when it fails (a full collection, one
 *    document a listener's rows refuse …) each of its adds is sent again alone, one after the
 *    other in their order, and answers its own outcome: with k slots left, the first k succeed.
 *  - Two adds of the same dockey are never in one group: the later one waits for the next, so
 *    it sees the first one's outcome (406 document is already exists) as it would alone.
 *  - Groups never mix collections: one collection's failing adds (full, deleted) cost only its
 *    own adds a second round trip, and its queue never holds up another's.
 * Commits stay per statement: an add is answered only once its own statement has committed.
 */
export interface GroupedAdds {
  /** Adds a brand-new document to the collection (see addInOneStatement); null: dockey there. */
  add(collectionId: string, doc: NewDocument): Promise<DocumentRef | null>;
}

interface WaitingAdd {
  doc: NewDocument;
  resolve(ref: DocumentRef | null): void;
  reject(e: unknown): void;
}

interface CollectionAdds {
  waiting: WaitingAdd[];
  statements: number;
}

export function createGroupedAdds(opts: GroupedAddsOptions): GroupedAdds {
  const { db } = opts;
  const perCollection = Math.max(1, opts.statementsPerCollection);
  const maxGroup = Math.max(1, opts.maxGroup);
  const collections = new Map<string, CollectionAdds>();

  /** Sends the collection's waiting adds while it has fewer statements under way than allowed. */
  function sendWaiting(collectionId: string, adds: CollectionAdds): void {
    while (adds.statements < perCollection && adds.waiting.length > 0) {
      const group = takeGroup(adds.waiting, maxGroup);
      adds.statements++;
      void outcomesOf(collectionId, group).then((answer) => {
        // the statement is over before its adds are answered: an add sent by an answered
        // client finds its collection's statements as they are now
        adds.statements--;
        if (adds.statements === 0 && adds.waiting.length === 0) collections.delete(collectionId);
        else sendWaiting(collectionId, adds);
        answer();
      });
    }
  }

  /** Sends a group; resolves to what answers its adds (never rejects). */
  async function outcomesOf(collectionId: string, group: WaitingAdd[]): Promise<() => void> {
    if (group.length > 1) {
      try {
        const refs = await addInOneStatement(
          db,
          collectionId,
          group.map((a) => a.doc),
        );
        return () => group.forEach((a, i) => a.resolve(refs[i]!));
      } catch {
        // all or nothing: each add again alone, to answer its own outcome
      }
    }
    const answers: Array<() => void> = [];
    for (const add of group) {
      try {
        const [ref] = await addInOneStatement(db, collectionId, [add.doc]);
        answers.push(() => add.resolve(ref!));
      } catch (e) {
        answers.push(() => add.reject(e));
      }
    }
    return () => answers.forEach((answer) => answer());
  }

  return {
    add(collectionId, doc) {
      return new Promise<DocumentRef | null>((resolve, reject) => {
        let adds = collections.get(collectionId);
        if (!adds) collections.set(collectionId, (adds = { waiting: [], statements: 0 }));
        adds.waiting.push({ doc, resolve, reject });
        sendWaiting(collectionId, adds);
      });
    },
  };
}

/**
 * Takes the next group off the front of the queue: at most `max` adds in their order, skipping
 * (and leaving in place) an add whose dockey is already in the group.
 */
export function takeGroup<T extends { doc: { dockey: string } }>(queue: T[], max: number): T[] {
  const group: T[] = [];
  const dockeys = new Set<string>();
  let kept = 0;
  for (let i = 0; i < queue.length; i++) {
    const add = queue[i]!;
    if (group.length < max && !dockeys.has(add.doc.dockey)) {
      dockeys.add(add.doc.dockey);
      group.push(add);
    } else {
      queue[kept++] = add;
    }
  }
  queue.length = kept;
  return group;
}
