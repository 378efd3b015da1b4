import type * as MixModule from '../bench/lib/mix.mjs' with { 'resolution-mode': 'import' };
import type * as OracleModule from '../bench/lib/oracle.mjs' with { 'resolution-mode': 'import' };

/**
 * The search bench's oracle (bench/lib/oracle.mjs: the bench's own model of what is live and
 * which oracle queries each document matches, by its own tokenization) and its wide mix
 * (bench/lib/mix.mjs). Pure logic, no service: the bench trusts these to judge the service.
 */

let oracle: typeof OracleModule;
let mix: typeof MixModule;
beforeAll(async () => {
  oracle = await import('../bench/lib/oracle.mjs');
  mix = await import('../bench/lib/mix.mjs');
});

const doc = (body: string, categories = [1], regdate = 1_000) =>
  JSON.stringify({
    icontents_title: 'title',
    icontents_body: body,
    contents_url: 'https://example.com/qzzz',
    categories,
    score_regdate: regdate,
  });
const queries = (): OracleModule.OracleQuery[] => [
  { params: { q: 'qzai' }, words: ['qzai'] },
  { params: { q: 'qzai qzbi' }, words: ['qzai', 'qzbi'] },
  { params: { q: 'qzai', ca: '2' }, words: ['qzai'], ca: [2] },
];
const range = (m: OracleModule.Model, id: number) => m.watch(id).end();

test('The oracle tokenizes ASCII words itself: case, punctuation and Hangul separate, contents_ fields are not matched', () => {
  const words = oracle.asciiWords(doc('서울qzai에서 (QZBI) qzci, qz-di'));
  expect([...words].filter((w) => w.startsWith('qz')).sort()).toEqual([
    'qz',
    'qzai',
    'qzbi',
    'qzci',
  ]);
});

test('When an add is in flight, either count is accepted; once acknowledged, only the new one', () => {
  const m = oracle.createModel(queries());
  const ack = m.put('a', doc('qzai qzbi', [2]));
  expect([0, 1, 2].map((id) => range(m, id))).toEqual([
    { low: 0, high: 1 },
    { low: 0, high: 1 },
    { low: 0, high: 1 },
  ]);
  ack(true);
  expect(range(m, 0)).toEqual({ low: 1, high: 1 });
  expect(m.size()).toBe(1);
});

test('When a write fails, the counts go back to what they were', () => {
  const m = oracle.createModel(queries());
  m.put('a', doc('qzai'))(true);
  m.remove('a')(false);
  m.put('b', doc('qzai'))(false);
  expect(range(m, 0)).toEqual({ low: 1, high: 1 });
  expect(m.size()).toBe(1);
});

test('A replacement moves only the queries the old and the new document differ in; a delete removes its matches', () => {
  const m = oracle.createModel(queries());
  m.put('a', doc('qzai', [2]))(true);
  const ack = m.put('a', doc('qzai qzbi', [1]));
  expect(range(m, 0)).toEqual({ low: 1, high: 1 }); // matched before and after
  expect(range(m, 1)).toEqual({ low: 0, high: 1 }); // comes
  expect(range(m, 2)).toEqual({ low: 0, high: 1 }); // goes
  ack(true);
  expect([0, 1, 2].map((id) => range(m, id).low)).toEqual([1, 1, 0]);
  m.remove('a')(true);
  expect([0, 1, 2].map((id) => range(m, id).high)).toEqual([0, 0, 0]);
  expect(m.size()).toBe(0);
});

test('A search watching while a delete starts and an add ends accepts every count it may have seen in between', () => {
  const m = oracle.createModel(queries());
  m.put('a', doc('qzai'))(true);
  const addB = m.put('b', doc('qzai'));
  const watch = m.watch(0); // low 1, high 2
  const delA = m.remove('a'); // low 0
  addB(true); // low 1
  delA(true); // high 1
  expect(watch.end()).toEqual({ low: 0, high: 2 });
  expect(range(m, 0)).toEqual({ low: 1, high: 1 });
});

test('The wide mix has the distinct queries asked for, each sent twice, with filters, sorts, deep pages and every oracle query', () => {
  const words = (prefix: string) =>
    new Map(Array.from({ length: 500 }, (_, i) => [`${prefix}${i}`, 1 + i] as const));
  const qs = oracle.oracleQueries(1_700_000_000);
  const { distinct, sends } = mix.buildMix({
    df: { ko: words('가'), en: words('w') },
    oracle: qs,
    count: 2000,
  });
  expect(distinct).toBe(2000);
  expect(sends).toHaveLength(4000);
  const counts = new Map<string, number>();
  for (const s of sends)
    counts.set(JSON.stringify(s.params), (counts.get(JSON.stringify(s.params)) ?? 0) + 1);
  expect(new Set(counts.values())).toEqual(new Set([2]));
  const share = (f: (p: Record<string, string | number>) => boolean) =>
    sends.filter((s) => f(s.params)).length / sends.length;
  expect(share((p) => 'ca' in p || 'ex_ca' in p || 'startdate' in p)).toBeGreaterThan(0.3);
  expect(share((p) => p.sort === 1)).toBeGreaterThan(0.1);
  expect(share((p) => Number(p.start ?? 0) >= 100)).toBeGreaterThan(0.05);
  expect(sends.some((s) => s.params.start === 990)).toBe(true);
  expect(new Set(sends.flatMap((s) => (s.oracle === undefined ? [] : [s.oracle]))).size).toBe(
    qs.length,
  );
});
