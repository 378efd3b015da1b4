/**
 * `pnpm eval:search` (root) or `pnpm eval` (here): the Korean evaluation set through the
 * Postgres engine's analyser and ranking: the bigram-only baseline, today's analyser with q as
 * typed, and today's engine with the forms derived for spacing: recall@10, precision@10 and
 * nDCG@10 per category, per spacing kind and overall. `--details` also lists every query whose
 * answer differs between them. No server or database is needed.
 */
import {
  CATEGORIES,
  CUTOFF,
  EVAL_DOCUMENTS,
  EVAL_QUERIES,
  runEval,
  SPACING_KINDS,
  summarise,
  type Category,
  type QueryOutcome,
  type Scores,
  type SpacingKind,
} from './korean-eval';

const details = process.argv.includes('--details');
const names = ['bigram', 'particles', 'spacing'] as const;
const outcomes = names.map((name) => runEval(name));
const scores = outcomes.map((o) => summarise(o));

const figure = (n: number) => n.toFixed(3);
const pad = (text: string, width: number) => text.padEnd(width);
const columns = names.map((n) => pad(n, 10)).join('');
const row = (key: Category | SpacingKind | 'all', label: string) => {
  const of = scores.map((s) => s.get(key)!);
  const three = (pick: (s: Scores) => number) => of.map((s) => pad(figure(pick(s)), 10)).join('');
  return (
    `${pad(label, 12)}${pad(String(of[0]!.queries), 9)}` +
    `${three((s) => s.recall)}${three((s) => s.precision)}${three((s) => s.ndcg)}`.trimEnd()
  );
};
const lines = [
  `Korean search evaluation: ${EVAL_QUERIES.length} queries over ${EVAL_DOCUMENTS.length} ` +
    `documents (eval/korean), first ${CUTOFF} results, relevance order`,
  `bigram = analyser version 1 (syllable bigrams only); particles = today's analyser, q as ` +
    `typed; spacing = today's engine (forms derived for spacing)`,
  '',
  `${pad('category', 12)}${pad('queries', 9)}${pad('recall@10', 30)}${pad('precision@10', 30)}nDCG@10`,
  `${pad('', 21)}${columns}${columns}${columns}`.trimEnd(),
];
for (const key of [...CATEGORIES, 'all'] as const) lines.push(row(key, key));
lines.push('', 'spacing queries by kind');
for (const kind of SPACING_KINDS) lines.push(row(kind, `  ${kind}`));
process.stdout.write(`${lines.join('\n')}\n`);

if (details) {
  const shown = (o: QueryOutcome) =>
    o.returned.map((id) => (o.query.relevant.includes(id) ? id : `${id}(x)`)).join(' ') || '-';
  process.stdout.write('\nqueries answered differently (x: not judged relevant)\n');
  outcomes[0]!.forEach((o, i) => {
    const answers = outcomes.map((of) => of[i]!);
    if (answers.every((a) => a.returned.join() === o.returned.join())) return;
    process.stdout.write(
      `[${o.query.kind ?? o.query.category}] ${o.query.q}  recall ` +
        `${answers.map((a) => figure(a.recall)).join(' → ')}, precision ` +
        `${answers.map((a) => figure(a.precision)).join(' → ')}\n` +
        names.map((name, n) => `  ${pad(`${name}:`, 11)}${shown(answers[n]!)}\n`).join(''),
    );
  });
}
