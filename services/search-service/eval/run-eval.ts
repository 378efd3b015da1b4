/**
 * `pnpm eval:search` (root) or `pnpm eval` (here): the Korean evaluation set through the
 * Postgres engine's analyser and ranking, bigram-only baseline against today's analyser:
 * recall@10, precision@10 and nDCG@10 per category and overall. `--details` also lists
 * every query whose answer differs between the two. No server or database is needed.
 */
import {
  CATEGORIES,
  CUTOFF,
  EVAL_DOCUMENTS,
  EVAL_QUERIES,
  runEval,
  summarise,
  type QueryOutcome,
} from './korean-eval';

const details = process.argv.includes('--details');
const old = runEval('bigram');
const now = runEval('particles');
const before = summarise(old);
const after = summarise(now);

const figure = (n: number) => n.toFixed(3);
const pad = (text: string, width: number) => text.padEnd(width);
const lines = [
  `Korean search evaluation: ${EVAL_QUERIES.length} queries over ${EVAL_DOCUMENTS.length} ` +
    `documents (eval/korean), first ${CUTOFF} results, relevance order`,
  `bigram = analyser version 1 (syllable bigrams only); particles = today's analyser`,
  '',
  `${pad('category', 10)}${pad('queries', 9)}${pad('recall@10', 18)}${pad('precision@10', 18)}nDCG@10`,
  `${pad('', 19)}${pad('bigram  particles', 18)}${pad('bigram  particles', 18)}bigram  particles`,
];
for (const key of [...CATEGORIES, 'all'] as const) {
  const b = before.get(key)!;
  const a = after.get(key)!;
  const pair = (x: number, y: number) => pad(`${figure(x)}   ${figure(y)}`, 18);
  lines.push(
    `${pad(key, 10)}${pad(String(a.queries), 9)}${pair(b.recall, a.recall)}` +
      `${pair(b.precision, a.precision)}${figure(b.ndcg)}   ${figure(a.ndcg)}`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);

if (details) {
  const shown = (o: QueryOutcome) =>
    o.returned.map((id) => (o.query.relevant.includes(id) ? id : `${id}(x)`)).join(' ') || '-';
  process.stdout.write('\nqueries answered differently (x: not judged relevant)\n');
  old.forEach((o, i) => {
    const n = now[i]!;
    if (o.returned.join() === n.returned.join()) return;
    process.stdout.write(
      `[${o.query.category}] ${o.query.q}  recall ${figure(o.recall)} → ${figure(n.recall)}, ` +
        `precision ${figure(o.precision)} → ${figure(n.precision)}\n` +
        `  bigram:    ${shown(o)}\n  particles: ${shown(n)}\n`,
    );
  });
}
