import {
  CATEGORIES,
  CUTOFF,
  EVAL_DOCUMENTS,
  EVAL_QUERIES,
  runEval,
  SPACING_KINDS,
  summarise,
} from '../eval/korean-eval';
import { createMemoryEngine } from '../eval/memory-engine';
import { ndcgAt, precisionAt, recallAt } from '../eval/metrics';
import { createPostgresIndex } from '../src/index/postgres/postgres-index';
import { appWithCollection, useSearchDatabase, type TestDatabase } from './helpers/harness';

/** The Korean evaluation set (eval/korean): its shape, its targets, and that it measures the engine. */

describe('Korean evaluation: the set', () => {
  test('When the set is read, it has at least 200 queries, each with judged documents that exist', () => {
    expect(EVAL_QUERIES.length).toBeGreaterThanOrEqual(200);
    const ids = new Set(EVAL_DOCUMENTS.map((d) => d.id));
    expect(ids.size).toBe(EVAL_DOCUMENTS.length);
    for (const query of EVAL_QUERIES) {
      expect(CATEGORIES).toContain(query.category);
      expect(query.relevant.length).toBeGreaterThan(0);
      expect(query.relevant.length).toBeLessThanOrEqual(CUTOFF);
      for (const id of query.relevant) expect(ids).toContain(id);
    }
    for (const category of CATEGORIES)
      expect(EVAL_QUERIES.some((q) => q.category === category)).toBe(true);
  });

  test('When scores are computed, they follow their definitions at the cutoff', () => {
    const relevant = new Set(['a', 'b']);
    expect(recallAt(2, ['a', 'x', 'b'], relevant)).toBe(0.5);
    expect(precisionAt(10, ['a', 'x'], relevant)).toBe(0.5);
    expect(precisionAt(10, [], relevant)).toBe(0);
    expect(ndcgAt(10, ['a', 'b'], relevant)).toBe(1);
    expect(ndcgAt(10, ['x', 'a'], relevant)).toBeCloseTo(1 / Math.log2(3) / (1 + 1 / Math.log2(3)));
  });
});

describe('Korean evaluation: targets', () => {
  const before = summarise(runEval('bigram'));
  const typed = summarise(runEval('particles'));
  const after = summarise(runEval('spacing'));

  test('When queries carry particles, recall@10 is at least 0.95', () => {
    expect(after.get('particle')!.recall).toBeGreaterThanOrEqual(0.95);
  });

  test.each(CATEGORIES.filter((c) => c !== 'particle'))(
    'When queries are %s, precision@10 is no lower than with bigrams alone',
    (category) => {
      expect(after.get(category)!.precision).toBeGreaterThanOrEqual(
        before.get(category)!.precision - 1e-9,
      );
    },
  );

  test.each(['joined', 'split'] as const)(
    'When spacing queries are %s, recall@10 is at least 0.9 with the derived forms',
    (kind) => {
      expect(after.get(kind)!.recall).toBeGreaterThanOrEqual(0.9);
    },
  );

  test.each(CATEGORIES)(
    'When queries are %s, the derived forms cost no precision@10 against q as typed',
    (category) => {
      expect(after.get(category)!.precision).toBeGreaterThanOrEqual(
        typed.get(category)!.precision - 1e-9,
      );
    },
  );

  test('When the set is read, every spacing query has a kind and only spacing queries have one', () => {
    for (const query of EVAL_QUERIES) {
      if (query.category === 'spacing') expect(SPACING_KINDS).toContain(query.kind);
      else expect(query.kind).toBeUndefined();
    }
    for (const kind of SPACING_KINDS) expect(after.get(kind)!.queries).toBeGreaterThan(0);
  });
});

describe('Korean evaluation: the Postgres engine answers as the evaluation computes', () => {
  let db: TestDatabase;
  useSearchDatabase((opened) => (db = opened));

  test('When the set is indexed by the engine, every query returns the documents the evaluation ranks, pending and folded', async () => {
    const index = createPostgresIndex(db.pool, { autoFold: false, foldMinBatch: 1 });
    const { api } = await appWithCollection(db, { max_documents: 10_000 }, { index });
    // one after another: documents.id then follows the order of the set, as the evaluation assumes
    for (const d of EVAL_DOCUMENTS) {
      const doc = { icontents_title: d.title, icontents_body: d.body, score_regdate: d.regdate };
      const res = await api.add(d.id, JSON.stringify(doc));
      expect(res.status).toBe(200);
    }
    const memory = createMemoryEngine(EVAL_DOCUMENTS, {});
    const engineAnswers = async () => {
      const out: string[][] = [];
      for (const query of EVAL_QUERIES) {
        const res = await api.search({ q: query.q, sort: 0, len: CUTOFF });
        expect(res.status).toBe(200);
        out.push(JSON.parse(res.text).docs.map((d: { dockey: string }) => d.dockey));
      }
      return out;
    };
    const expected = EVAL_QUERIES.map((query) => memory.search(query.q, CUTOFF));
    expect(await engineAnswers()).toEqual(expected);
    while ((await index.folder.round()).folded > 0);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM search_pending');
    expect(rows[0].n).toBe(0);
    expect(await engineAnswers()).toEqual(expected);
  }, 120_000);
});
