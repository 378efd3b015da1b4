import path from 'node:path';
import pg from 'pg';
import { makeDoc } from '../data.mjs';
const dist = '/work/main/services/search-service/dist';
const { parseDoc } = await import('/work/main/packages/contracts/dist/index.js');
const { searchColumns } = await import(path.join(dist, 'index/postgres/postgres-index.js'));
const url = 'postgres://postgres@127.0.0.1:5432/exp_a';
const N = 4000;
const docs = Array.from({ length: N * 4 }, (_, i) => { const d = makeDoc(200000 + i); const p = parseDoc(d.doc).value; return { key: 'x' + d.dockey, json: p.json, col: searchColumns(p) }; });
const pool = new pg.Pool({ connectionString: url, max: 16 });
let offset = 0;
async function run(label) {
  let next = 0; const t = performance.now();
  await Promise.all(Array.from({ length: 16 }, async () => {
    const c = await pool.connect();
    while (next < N) {
      const d = docs[offset + next++];
      await c.query('BEGIN');
      const r = await c.query({ name: 'ins', text: 'INSERT INTO documents (collection_id, dockey, doc) VALUES ($1, $2, $3) RETURNING id', values: ['benchcol', d.key, d.json] });
      await c.query({ name: 'ds', text: 'INSERT INTO doc_search (doc_id, collection_id, regdate, categories, title_terms, terms) VALUES ($1, $2, $3, $4, array_to_tsvector($5::text[]), array_to_tsvector($6::text[]))', values: [r.rows[0].id, 'benchcol', d.col.regdate, d.col.categories, d.col.titleTerms, d.col.terms] });
      await c.query("SELECT take_document_slot('benchcol'); COMMIT");
    }
    c.release();
  }));
  offset += N;
  console.log(label.padEnd(30), Math.round(N / ((performance.now() - t) / 1000)), 'adds/s (SQL only, 16 sessions)');
}
await run('default (4MB pending list)');
await pool.query('ALTER INDEX doc_search_terms SET (gin_pending_list_limit = 32768)');
await run('32MB pending list');
await pool.query('ALTER INDEX doc_search_terms SET (fastupdate = off)');
await run('fastupdate off');
await pool.query('ALTER INDEX doc_search_terms SET (fastupdate = on, gin_pending_list_limit = 4096)');
await run('default again');
await pool.end();
