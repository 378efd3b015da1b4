import type pg from 'pg';
import { parseDoc } from '@hub/contracts';
import { createWorkerLoop, inTransaction, type Logger } from '@hub/service-kit';
import { ANALYSER_VERSION } from '../../analyser';
import { insertPending, unindex } from './change-store';
import { pendingTerms } from './pending-terms';
import {
  finishReanalysis,
  lockAnalyserState,
  lockDocuments,
  nextCollection,
  saveProgress,
} from './reanalyse-store';

/** Past every documents.id: the cursor after a collection that has none left. */
const LAST_DOC_ID = '9223372036854775807';

export interface ReanalysisOptions {
  pool: pg.Pool;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** documents per transaction; default 500 */
  batchSize?: number;
  /** the wait before trying again after a failed batch; default 5 s */
  retryMs?: number;
}

export interface Reanalysis {
  /** re-analyses in the background until done (nothing when the index is of this version) */
  start(): void;
  /** runs to the end now; resolves with the documents this call re-analysed */
  run(): Promise<number>;
  /** stops after the batch in flight */
  stop(): Promise<void>;
}

/**
 * Keeps the index's terms those of this analyser version: when the version recorded in
 * search_analyser is another, every stored document is re-analysed, in batches of one
 * transaction each, exactly like an update re-indexes it (its old entry leaves the index, its
 * new terms become pending, the folder folds them). So an upgrade of the analyser leaves no
 * document findable only by the old rules, and documents stay searchable throughout (by their
 * old terms until their batch commits). Instances cooperate through the locked state row:
 * each batch continues where the last one, of any instance, stopped.
 */
export function createReanalysis(opts: ReanalysisOptions): Reanalysis {
  const batchSize = opts.batchSize ?? 500;
  const retryMs = opts.retryMs ?? 5000;
  const asError = (e: unknown) => (e instanceof Error ? e : new Error(String(e)));
  /** One batch; resolves with the documents it re-analysed, or null when nothing is left. */
  async function batch(): Promise<number | null> {
    return inTransaction(opts.pool, asError, async (tx) => {
      const state = await lockAnalyserState(tx);
      if (state.version === ANALYSER_VERSION) return null;
      const resume = state.target === ANALYSER_VERSION;
      const afterCollection = resume ? state.doneCollection : '';
      const afterDoc = resume ? state.doneDoc : '0';
      const collectionId = await nextCollection(tx, afterCollection, afterDoc);
      if (collectionId === null) {
        await finishReanalysis(tx, ANALYSER_VERSION);
        opts.logger.info(
          { from: state.version, to: ANALYSER_VERSION },
          'search index re-analysed: every stored document has the terms of this analyser',
        );
        return null;
      }
      if (!resume)
        opts.logger.info(
          { from: state.version, to: ANALYSER_VERSION },
          'search index made by another analyser version: re-analysing every stored document',
        );
      const after = collectionId === afterCollection ? afterDoc : '0';
      const docs = await lockDocuments(tx, collectionId, after, batchSize);
      for (const stored of docs) {
        const parsed = parseDoc(stored.doc, 'update');
        if (!parsed.ok) {
          // it keeps the terms it has; reindexing skips such a document too
          opts.logger.warn(
            { collectionId, docId: stored.docId, error: parsed.error.text },
            'stored doc not indexable; not re-analysed',
          );
          continue;
        }
        await unindex(tx, collectionId, stored.docId);
        await insertPending(tx, stored.docId, pendingTerms(collectionId, parsed.value));
      }
      // none: the collection was deleted while the batch waited for it, on to the next one
      await saveProgress(tx, ANALYSER_VERSION, collectionId, docs.at(-1)?.docId ?? LAST_DOC_ID);
      return docs.length;
    });
  }

  async function run(): Promise<number> {
    let done = 0;
    for (;;) {
      const n = await batch();
      if (n === null) return done;
      done += n;
    }
  }

  /**
   * The background batches: the next at once after one that did work, retryMs after one that
   * failed (logged), none once every document is done.
   */
  const loop = createWorkerLoop({
    step: async () => ((await batch()) === null ? 'finished' : true),
    pollIntervalMs: retryMs,
    logger: opts.logger,
    failureMessage: 're-analysis batch failed; trying again',
  });

  return {
    start: () => loop.start(),
    run,
    stop: () => loop.stop(),
  };
}
