import { SEARCH_ERRORS } from '@hub/contracts';
import type { SearchApp } from '../src/app';
import { newCollection, useSearchApp } from './helpers/harness';
import { client, docJson, type TestCollection } from './helpers/requests';

/** Parallel writes can never push a collection past its maximum or store a dockey twice. */

let app: SearchApp;
const db = useSearchApp((t) => ({ app } = t), { poolSize: 30 });

async function counts(c: TestCollection) {
  const { rows } = await db.pool.query(
    `SELECT collection_document_count($1) AS counted,
            (SELECT count(*)::int FROM documents WHERE collection_id = $1) AS stored,
            (SELECT count(*)::int FROM search_pending WHERE collection_id = $1)
              + (SELECT count(*)::int FROM search_docnos WHERE collection_id = $1) AS indexed`,
    [c.cid],
  );
  return rows[0] as { counted: number; stored: number; indexed: number };
}

test('When 80 different documents are added at once to a collection with room for 25, exactly 25 are stored', async () => {
  const c = await newCollection(app, { max_documents: 25 });
  const api = client(app, c);
  const answers = await Promise.all(
    Array.from({ length: 80 }, (_, i) =>
      api.add(`doc-${i}`, docJson({ icontents_title: `t${i}` })),
    ),
  );
  const ok = answers.filter((r) => r.status === 200).length;
  const full = answers.filter((r) => r.text === SEARCH_ERRORS.add.indexMaxReached.text).length;
  expect({ ok, full }).toEqual({ ok: 25, full: 55 });
  expect(await counts(c)).toEqual({ counted: 25, stored: 25, indexed: 25 });
});

test('When the same dockey is added 40 times at once, it is stored once and the others answer already exists', async () => {
  const c = await newCollection(app);
  const api = client(app, c);
  const answers = await Promise.all(Array.from({ length: 40 }, () => api.add('same', docJson())));
  expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
  expect(answers.filter((r) => r.text === SEARCH_ERRORS.add.alreadyExists.text)).toHaveLength(39);
  expect(await counts(c)).toEqual({ counted: 1, stored: 1, indexed: 1 });
});

test('When a full collection gets 40 force=1 adds at once, all succeed and the count stays at the maximum', async () => {
  const c = await newCollection(app, { max_documents: 10 });
  const api = client(app, c);
  for (let i = 0; i < 10; i++) expect((await api.add(`old-${i}`, docJson())).status).toBe(200);
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) => api.add(`new-${i}`, docJson(), 1)),
  );
  expect(answers.map((r) => r.status)).toEqual(Array(40).fill(200));
  expect(await counts(c)).toEqual({ counted: 10, stored: 10, indexed: 10 });
  const { rows } = await db.pool.query(
    'SELECT count(*)::int AS n FROM documents WHERE collection_id = $1 AND dockey LIKE $2',
    [c.cid, 'old-%'],
  );
  expect(rows[0].n).toBe(0);
});

test('When adds, force adds, deletes and duplicate adds race, the count always equals the stored documents', async () => {
  const c = await newCollection(app, { max_documents: 15 });
  const api = client(app, c);
  for (let i = 0; i < 15; i++) await api.add(`k-${i}`, docJson());
  const work = [];
  for (let i = 0; i < 60; i++) {
    if (i % 4 === 0) work.push(api.delete(`k-${i % 15}`));
    else if (i % 4 === 1) work.push(api.add(`k-${i % 20}`, docJson(), 1));
    else if (i % 4 === 2) work.push(api.add(`x-${i}`, docJson()));
    else work.push(api.add(`y-${i}`, docJson(), 1));
  }
  const answers = await Promise.all(work);
  expect(answers.every((r) => r.status === 200 || r.status === 404 || r.status === 406)).toBe(true);
  const n = await counts(c);
  expect(n.counted).toBe(n.stored);
  expect(n.indexed).toBe(n.stored);
  expect(n.stored).toBeLessThanOrEqual(15);
});

test('When updates and field updates of one document race, every one succeeds and the last version is stored whole', async () => {
  const c = await newCollection(app);
  const api = client(app, c);
  await api.add('hot', docJson());
  const answers = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      i % 2
        ? api.updateField('hot', 'score_n', String(i))
        : api.update('hot', docJson({ icontents_title: `v${i}` })),
    ),
  );
  expect(answers.map((r) => r.status)).toEqual(Array(30).fill(200));
  const { rows } = await db.pool.query(
    'SELECT version, doc FROM documents WHERE collection_id = $1',
    [c.cid],
  );
  expect(rows[0].version).toBe('31');
  expect(JSON.parse(rows[0].doc)).toHaveProperty('icontents_body', 'a body');
});
