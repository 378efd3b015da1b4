import path from 'node:path';
import pg from 'pg';
import { makeDoc, df } from '../data.mjs';
const dist = '/work/main/services/search-service/dist';
const kit = await import('@hub/service-kit');
const { parseDoc } = await import('/work/main/packages/contracts/dist/index.js');
const { searchColumns } = await import(path.join(dist, 'index/postgres/postgres-index.js'));
const url = process.env.URL;
const POS = process.env.POS === '1';
const lit = (terms) => terms.map((t, i) => `'${t.replace(/\\/g, '\\\\').replace(/'/g, "''")}'` + (POS ? `:${Math.min(i + 1, 16383)}` : '')).join(' ');
await kit.runMigrations({ databaseUrl: url, dir: '/work/main/services/search-service/migrations', table: 'search_migrations' });
const pool = new pg.Pool({ connectionString: url, max: 4 });
await pool.query(`INSERT INTO collections (id, apikey_hash, max_documents, max_api_calls) VALUES ('benchcol', decode(repeat('00',32),'hex'), 1000000, 1000000) ON CONFLICT DO NOTHING`);
const N = Number(process.env.N ?? 100000);
const B = 500;
for (let i = 0; i < N; i += B) {
  const rows = [];
  for (let j = i; j < Math.min(N, i + B); j++) { const d = makeDoc(j); const p = parseDoc(d.doc).value; rows.push({ dockey: d.dockey, json: p.json, c: searchColumns(p) }); }
  const ids = await pool.query(`INSERT INTO documents (collection_id, dockey, doc) SELECT 'benchcol', k, d FROM unnest($1::text[], $2::text[]) AS u(k, d) RETURNING id, dockey`, [rows.map(r => r.dockey), rows.map(r => r.json)]);
  const idOf = new Map(ids.rows.map(r => [r.dockey, r.id]));
  await pool.query(`INSERT INTO doc_search (doc_id, collection_id, regdate, categories, title_terms, terms)
    SELECT id, 'benchcol', rd, string_to_array(cats, ',')::int[], array_to_tsvector(string_to_array(tt, ' ')), t::tsvector
    FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[]) AS u(id, rd, cats, tt, t)`,
    [rows.map(r => idOf.get(r.dockey)), rows.map(r => r.c.regdate), rows.map(r => r.c.categories.join(',')), rows.map(r => r.c.titleTerms.join(' ')), rows.map(r => lit(r.c.terms))]);
  if (i % 10000 === 0) console.log(i);
}
await pool.query('UPDATE collections SET document_count = (SELECT count(*) FROM documents)');
await pool.query('VACUUM ANALYZE doc_search'); await pool.query('VACUUM ANALYZE documents');
const top = (m) => [...m.entries()].sort((a, b) => b[1] - a[1]);
const ko = top(df.ko), en = top(df.en);
const closest = (list, share) => list.reduce((best, e) => (Math.abs(e[1] - share * N) < Math.abs(best[1] - share * N) ? e : best));
console.log('ko top', ko.slice(0, 5), 'mid', closest(ko, 0.38), 'rare', closest(ko, 0.0005), 'en', closest(en, 0.2), 'two', closest(ko, 0.03), closest(ko, 0.02));
await pool.end();
