import type pg from 'pg';
import type { ParsedDoc, SearchFacet, SearchParams } from '@hub/contracts';
import type { AddedDocumentRows } from '../store/documents';
import type { StoredDocumentWithThumbnail } from '../store/result-documents';
import type { MarkedText } from './highlight/marked-text';

export type { AddedDocumentRows };

/**
 * A committed change to one document, handed to every ChangeListener inside the same
 * transaction that writes the document (so an outbox row commits with the document).
 */
export interface DocumentChange {
  op: 'upsert' | 'delete';
  collectionId: string;
  dockey: string;
  /** documents.id (bigint as text): stable for the life of the document, new on re-add */
  docId: string;
  /** monotonically increasing per document (documents.version); older never overwrites newer */
  version: string;
  /** the full document after the change (field updates give the merged document); null on delete */
  doc: ParsedDoc | null;
}

/** A brand-new document, before it has a documents.id (see ChangeListener.addedDocumentSql). */
export interface AddedDocument {
  collectionId: string;
  dockey: string;
  doc: ParsedDoc;
}

export interface ChangeListener {
  recordChange(tx: pg.PoolClient, change: DocumentChange): Promise<void>;
  /**
   * Optional: this listener's rows of a brand-new document, written inside the add's one
   * statement (one round trip, its own transaction; the store composes it: see
   * addInOneStatement). [] when it has nothing to record; null (or no method) when the add must
   * go through recordChange.
   */
  addedDocumentSql?(added: AddedDocument): AddedDocumentRows[] | null;
  /**
   * The whole collection is about to be deleted (admin API), first thing in the delete's
   * transaction: waits for the listener's own work on it under way and holds new work off
   * until the transaction ends.
   */
  holdCollection?(tx: pg.PoolClient, collectionId: string): Promise<void>;
  /**
   * The whole collection is being deleted (admin API): called in the delete's transaction after
   * the collection row and its documents went, so every transaction that wrote a document of
   * it has ended and none can start; what the listener keeps of the collection goes now.
   */
  dropCollection?(tx: pg.PoolClient, collectionId: string): Promise<void>;
}

/** The checked search parameters, for one collection. */
export interface SearchQuery extends SearchParams {
  collectionId: string;
  /** facet=categories (beyond the spec): also count the matches per category */
  facet?: SearchFacet | null;
  /** hl=1: an engine that marks matches itself returns its marks (SearchHits.highlights) */
  highlight?: boolean;
  /** prefix=1 (beyond the spec): q's last word also matches every term it starts (prefix-expansion.ts) */
  prefix?: boolean;
}

/** An engine's own marks of a hit's title and body snippet (null: none for that field). */
export interface EngineHighlight {
  title: MarkedText | null;
  body: MarkedText | null;
}

export interface SearchHits {
  /** exact number of matches */
  numfound: number;
  /** documents.id of the requested page, in result order */
  docIds: string[];
  /** with query.highlight, by documents.id: the engine's marks, when it makes its own */
  highlights?: ReadonlyMap<string, EngineHighlight>;
  /**
   * Only when the query asks facet=categories: the exact number of matches per category (only
   * categories with at least one), over every match after q, ex_ca, the dates and deletions
   * but not ca; a document counts once in each of its categories.
   */
  categoryCounts?: Map<number, number>;
  /**
   * Documents of the page, by documents.id, as stored, that the engine read with its own reads
   * (the Postgres engine: with its snapshot, when it expected the page, remembered-pages.ts).
   * The caller reads the page's other documents.
   */
  documents?: ReadonlyMap<string, StoredDocumentWithThumbnail>;
}

/** The answer of a query that matches nothing (with empty counts when it asks for facets). */
export function noMatches(query: SearchQuery): SearchHits {
  return { numfound: 0, docIds: [], ...(query.facet ? { categoryCounts: new Map() } : {}) };
}

/** The search engine behind the routes: Postgres (embedded default) or Meilisearch. */
export interface SearchIndex extends ChangeListener {
  readonly engine: 'postgres' | 'meilisearch';
  search(query: SearchQuery): Promise<SearchHits>;
  /** searchable=false makes search_status "false"; reason is logged and shown on /readyz */
  status(collectionId: string): Promise<{ searchable: boolean; reason?: string }>;
  /** readiness probe for /readyz (throws when the engine is unreachable) */
  ping(): Promise<void>;
  start?(): void;
  stop?(): Promise<void>;
}
