import type { AnalyserOptions } from '../src/index/analyser';
import documents from './korean/documents.json';
import queries from './korean/queries.json';
import { createMemoryEngine, type EvalDocument } from './memory-engine';
import { ndcgAt, precisionAt, recallAt } from './metrics';

/**
 * The Korean evaluation set (eval/korean/*.json, judged by hand: see eval/README.md) run
 * through the Postgres engine's analyser and ranking: the bigram-only baseline of version 1,
 * today's analyser with q matched as typed, and today's engine with the forms derived for
 * spacing.
 */

export const CUTOFF = 10;

export type Category = 'particle' | 'spacing' | 'compound' | 'mixed' | 'plain';
export const CATEGORIES: readonly Category[] = [
  'particle',
  'spacing',
  'compound',
  'mixed',
  'plain',
];

/**
 * How a spacing query is written: `joined` (a word the documents may space: 서울맛집),
 * `split` (words the documents may join: 길 고양이), `parts` (a part of compounds: 공원 for
 * 한강공원), `trap` (a word whose compounds mean something else: 아이 and 아이스크림).
 */
export type SpacingKind = 'joined' | 'split' | 'parts' | 'trap';
export const SPACING_KINDS: readonly SpacingKind[] = ['joined', 'split', 'parts', 'trap'];

export interface EvalQuery {
  q: string;
  category: Category;
  /** spacing queries only */
  kind?: SpacingKind;
  /** ids of the documents judged relevant */
  relevant: string[];
  /** why a judgement may surprise */
  note?: string;
}

export const EVAL_DOCUMENTS: readonly EvalDocument[] = documents;
export const EVAL_QUERIES: readonly EvalQuery[] = queries as EvalQuery[];

/**
 * What is compared: the analyser of version 1 (bigrams only), today's analyser matching q as
 * typed (particles), and today's engine, with the forms derived for spacing (spacing).
 */
export const ANALYSERS = {
  bigram: { analyser: { bigramOnly: true }, spacing: false },
  particles: { analyser: {}, spacing: false },
  spacing: { analyser: {}, spacing: true },
} satisfies Record<string, { analyser: AnalyserOptions; spacing: boolean }>;
export type AnalyserName = keyof typeof ANALYSERS;

export interface QueryOutcome {
  query: EvalQuery;
  /** ids returned, first CUTOFF */
  returned: string[];
  recall: number;
  precision: number;
  ndcg: number;
}

export interface Scores {
  queries: number;
  recall: number;
  precision: number;
  ndcg: number;
}

/** Every query of the set run with one analyser. */
export function runEval(analyser: AnalyserName): QueryOutcome[] {
  const { analyser: options, spacing } = ANALYSERS[analyser];
  const engine = createMemoryEngine(EVAL_DOCUMENTS, options, spacing);
  return EVAL_QUERIES.map((query) => {
    const returned = engine.search(query.q, CUTOFF);
    const relevant = new Set(query.relevant);
    return {
      query,
      returned,
      recall: recallAt(CUTOFF, returned, relevant),
      precision: precisionAt(CUTOFF, returned, relevant),
      ndcg: ndcgAt(CUTOFF, returned, relevant),
    };
  });
}

/** Mean scores per category, per spacing kind and over all queries (key 'all'). */
export function summarise(
  outcomes: readonly QueryOutcome[],
): Map<Category | SpacingKind | 'all', Scores> {
  const out = new Map<Category | SpacingKind | 'all', Scores>();
  for (const key of [...CATEGORIES, ...SPACING_KINDS, 'all'] as const) {
    const of = outcomes.filter(
      (o) => key === 'all' || o.query.category === key || o.query.kind === key,
    );
    const mean = (pick: (o: QueryOutcome) => number) =>
      of.length === 0 ? 0 : of.reduce((sum, o) => sum + pick(o), 0) / of.length;
    out.set(key, {
      queries: of.length,
      recall: mean((o) => o.recall),
      precision: mean((o) => o.precision),
      ndcg: mean((o) => o.ndcg),
    });
  }
  return out;
}
