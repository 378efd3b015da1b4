import path from 'node:path';
import pg from 'pg';
import { makeDoc } from '../data.mjs';
const dist = '/work/main/services/search-service/dist';
const { parseDoc } = await import('/work/main/packages/contracts/dist/index.js');
const { searchColumns } = await import(path.join(dist, 'index/postgres/postgres-index.js'));
const url = 'postgres://postgres@127.0.0.1:5432/exp2';
const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' }); await admin.connect();
await admin.query('DROP DATABASE IF EXISTS exp2'); await admin.query('CREATE DATABASE exp2'); await admin.end();
const c = new pg.Client({ connectionString: url }); await c.connect();
const N = 3000;
const docs = Array.from({ length: N * 6 }, (_, i) => { const d = makeDoc(i); const p = parseDoc(d.doc).value; return { key: d.dockey, json: p.json, col: searchColumns(p) }; });
const variants = {
  'documents only': `CREATE TABLE documents (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, collection_id text NOT NULL, dockey text NOT NULL, version bigint NOT NULL DEFAULT 1, doc text NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now(), UNIQUE (collection_id, dockey)); CREATE INDEX ON documents (collection_id, id);`,
  'search no GIN': `CREATE TABLE doc_search (doc_id bigint PRIMARY KEY, collection_id text NOT NULL, regdate bigint NOT NULL, categories integer[] NOT NULL DEFAULT '{}', title_terms tsvector NOT NULL, terms tsvector NOT NULL) WITH (toast_tuple_target = 128); ALTER TABLE doc_search ALTER COLUMN title_terms SET STORAGE MAIN, ALTER COLUMN categories SET STORAGE MAIN, ALTER COLUMN terms SET STORAGE EXTERNAL; CREATE INDEX ON doc_search (collection_id, regdate DESC, doc_id DESC);`,
  '+ title GIN': `CREATE INDEX ON doc_search USING gin (title_terms);`,
  '+ terms GIN fastupdate': `CREATE INDEX ds_terms ON doc_search USING gin (terms);`,
  'terms GIN no fastupdate': `ALTER INDEX ds_terms SET (fastupdate = off);`,
  'fastupdate, 32MB pending': `ALTER INDEX ds_terms SET (fastupdate = on, gin_pending_list_limit = 32768);`,
};
let offset = 0;
for (const [name, ddl] of Object.entries(variants)) {
  await c.query(ddl);
  const hasSearch = name !== 'documents only';
  const t = performance.now();
  for (let i = 0; i < N; i++) {
    const d = docs[offset + i];
    await c.query('BEGIN');
    const r = await c.query({ name: 'ins', text: 'INSERT INTO documents (collection_id, dockey, doc) VALUES ($1, $2, $3) RETURNING id', values: ['benchcol', d.key, d.json] });
    if (hasSearch) await c.query({ name: 'ds', text: 'INSERT INTO doc_search (doc_id, collection_id, regdate, categories, title_terms, terms) VALUES ($1, $2, $3, $4, array_to_tsvector($5::text[]), array_to_tsvector($6::text[]))', values: [r.rows[0].id, 'benchcol', d.col.regdate, d.col.categories, d.col.titleTerms, d.col.terms] });
    await c.query('COMMIT');
  }
  offset += N;
  console.log(name.padEnd(28), ((performance.now() - t) / N).toFixed(3), 'ms/add (sequential, one session)');
}
await c.end();
