import type pg from 'pg';
import type { ParsedDoc } from '@hub/contracts';
import { distinctTerms, queryTerms } from '../analyser';
import type { DocumentChange, SearchHits, SearchIndex, SearchQuery } from '../search-index';

/**
 * tsvector holds at most 1 MB; the terms of one document are cut off (in text order) well
 * before that. Each lexeme costs its UTF-8 bytes and a 4-byte entry (no positions are kept).
 */
export const MAX_TERM_BYTES = 900_000;

function withinBudget(terms: string[]): string[] {
  let bytes = 0;
  for (let i = 0; i < terms.length; i++) {
    bytes += Buffer.byteLength(terms[i]!, 'utf8') + 4;
    if (bytes > MAX_TERM_BYTES) return terms.slice(0, i);
  }
  return terms;
}

function quote(term: string): string {
  return `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** The search columns of one document: analysed title, analysed icontents, date, categories. */
export function searchColumns(doc: ParsedDoc) {
  return {
    regdate: doc.regdate,
    categories: doc.categories ?? [],
    titleTerms: withinBudget(distinctTerms([doc.title])),
    terms: withinBudget(distinctTerms(Object.values(doc.icontents))),
  };
}

/** The tsquery text requiring every term; each term quoted (quotes and backslashes escaped). */
export function tsquery(terms: readonly string[]): string {
  return terms.map(quote).join(' & ');
}

/**
 * The Postgres engine: doc_search rows written in the document's own transaction (so search
 * sees a change as soon as it commits), searched through a GIN index by search_doc_ids().
 */
export class PostgresSearchIndex implements SearchIndex {
  readonly engine = 'postgres' as const;

  constructor(private readonly pool: pg.Pool) {}

  async recordChange(tx: pg.PoolClient, change: DocumentChange): Promise<void> {
    if (change.op === 'delete' || !change.doc) {
      await tx.query({
        name: 'doc-search-delete',
        text: 'DELETE FROM doc_search WHERE doc_id = $1',
        values: [change.docId],
      });
      return;
    }
    const c = searchColumns(change.doc);
    await tx.query({
      name: 'doc-search-upsert',
      text: `INSERT INTO doc_search (doc_id, collection_id, regdate, categories, title_terms, terms)
             VALUES ($1, $2, $3, $4, array_to_tsvector($5::text[]), array_to_tsvector($6::text[]))
             ON CONFLICT (doc_id) DO UPDATE SET regdate = EXCLUDED.regdate,
               categories = EXCLUDED.categories, title_terms = EXCLUDED.title_terms,
               terms = EXCLUDED.terms`,
      values: [change.docId, change.collectionId, c.regdate, c.categories, c.titleTerms, c.terms],
    });
  }

  async dropCollection(tx: pg.PoolClient, collectionId: string): Promise<void> {
    await tx.query('DELETE FROM doc_search WHERE collection_id = $1', [collectionId]);
  }

  async search(query: SearchQuery): Promise<SearchHits> {
    const terms = queryTerms(query.q);
    if (terms.length === 0) return { numfound: 0, docIds: [] };
    const { rows } = await this.pool.query<{ numfound: string; doc_ids: string[] }>({
      name: 'search-doc-ids',
      text: `SELECT numfound, doc_ids::text[] AS doc_ids
             FROM search_doc_ids($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      values: [
        query.collectionId,
        tsquery(terms),
        query.ca,
        query.exCa,
        query.startdate,
        query.enddate,
        query.sort,
        query.start,
        query.len,
      ],
    });
    const row = rows[0]!;
    return { numfound: Number(row.numfound), docIds: row.doc_ids };
  }

  /** Postgres answers searches whenever it answers at all: always searchable. */
  async status(): Promise<{ searchable: boolean; reason?: string }> {
    return { searchable: true };
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }
}

export function createPostgresIndex(pool: pg.Pool): SearchIndex {
  return new PostgresSearchIndex(pool);
}
