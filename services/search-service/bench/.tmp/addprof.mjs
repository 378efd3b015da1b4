// measures the add transaction's statements directly, 16 concurrent writers
import path from 'node:path';
import pg from 'pg';
const dist = '/work/main/services/search-service/dist';
const kit = await import('@hub/service-kit');
const { parseDoc } = await import('/work/main/packages/contracts/dist/index.js');
const { createPostgresIndex } = await import(path.join(dist, 'index/postgres/postgres-index.js'));
const { createCollection } = await import(path.join(dist, 'store/collections.js'));
const { insertDocument } = await import(path.join(dist, 'store/documents.js'));
const url = process.env.URL;
await kit.runMigrations({ databaseUrl: url, dir: '/work/main/services/search-service/migrations', table: 'search_migrations' });
const pool = kit.createPool(url, 20);
const index = createPostgresIndex(pool);
const { collection } = await createCollection(pool, { maxDocuments: 1e9, maxApiCalls: 1e9, thumbnailSize: '130X130' });
const syl = Array.from('가나다라마바사아자차카타파하서울부산맛집여행커피학교회사사람시간문제경제정치문화사회기술과학');
let s = 1; const r = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
const words = Array.from({length: 4000}, () => syl[Math.floor(r()*syl.length)] + syl[Math.floor(r()*syl.length)] + (r()<0.5? syl[Math.floor(r()*syl.length)]:''));
const N = Number(process.env.N ?? 5000);
const docs = Array.from({length: N}, () => { let b=''; while (Buffer.byteLength(b) < 1500) b += words[Math.floor(r()*r()*4000)] + '을 '; return parseDoc(JSON.stringify({icontents_title: 'x', icontents_body: b, score_regdate: 1700000000 + Math.floor(r()*1e7)})).value; });
const mode = process.env.MODE ?? 'full';
const times = { insert: 0, slot: 0, index: 0, commit: 0 };
let next = 0;
const t0 = performance.now();
await Promise.all(Array.from({length: 16}, async () => {
  while (next < N) {
    const i = next++;
    const tx = await pool.connect();
    await tx.query('BEGIN');
    let t = performance.now();
    const ref = await insertDocument(tx, collection.id, 'k' + i, docs[i].json);
    times.insert += performance.now() - t; t = performance.now();
    if (mode !== 'noindex') await index.recordChange(tx, { op: 'upsert', collectionId: collection.id, dockey: 'k'+i, docId: ref.id, version: ref.version, doc: docs[i] });
    times.index += performance.now() - t; t = performance.now();
    if (mode !== 'noslot') await tx.query({ name: 'slot', text: 'UPDATE collections SET document_count = document_count + 1 WHERE id = $1 AND document_count < max_documents', values: [collection.id] });
    times.slot += performance.now() - t; t = performance.now();
    await tx.query('COMMIT');
    times.commit += performance.now() - t;
    tx.release();
  }
}));
const sec = (performance.now() - t0) / 1000;
console.log(mode, 'docs/s', Math.round(N / sec), Object.fromEntries(Object.entries(times).map(([k, v]) => [k, (v / N).toFixed(2)])));
await pool.end();
