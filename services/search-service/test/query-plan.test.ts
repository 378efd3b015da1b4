import { distinctTerms, queryTerms } from '../src/index/analyser';
import {
  MAX_SPACING_WORDS,
  PlanCounter,
  SPLIT_MAX_DF,
  firstRead,
  partsToRead,
  decidePlan,
  documentHas,
  markedPrefix,
  prefixMark,
  matchesPlan,
  matchesTyped,
  planCandidates,
  planQuery,
  planTier,
  tailFilter,
  typedTerms,
  type QueryPlan,
} from '../src/index/query-plan';

/** A dictionary: the document counts of these documents' terms. */
function dictionary(...docs: string[]) {
  const sets = docs.map((d) => new Set(distinctTerms([d])));
  const df = (term: string) => sets.filter((s) => s.has(term)).length;
  return { docs, sets, df };
}

/** The documents (of the dictionary's) that q's plan matches. */
function found(q: string, dict: ReturnType<typeof dictionary>, plan = planQuery(q, dict.df)) {
  return dict.docs.filter((_, i) => matchesPlan(plan, (t) => dict.sets[i]!.has(t)));
}

/** Korean text written spaced (서울 맛집, 경복궁 야경) in many documents, joined in few. */
const KOREAN = dictionary(
  '서울 맛집 추천',
  '서울의 맛집 지도',
  '서울 맛집 골목',
  '서울맛집 모음',
  '경복궁 야경이 아름답다',
  '경복궁 근처 맛집',
  '경복궁 관람',
  '야경 명소',
  '근처 카페',
  '아이스크림 가게',
  '아이스크림 할인',
  '아이 옷',
  '아이 장난감',
  '아이 책',
  '길고양이 돌보기',
  '고양이 사료',
);

describe('query plan: a word written joined finds it written spaced (split)', () => {
  test.each([
    ['서울맛집', ['서울 맛집 추천', '서울의 맛집 지도', '서울 맛집 골목', '서울맛집 모음']],
    ['서울맛집에서', ['서울 맛집 추천', '서울의 맛집 지도', '서울 맛집 골목', '서울맛집 모음']],
    ['경복궁야경', ['경복궁 야경이 아름답다']],
    ['경복궁근처맛집', ['경복궁 근처 맛집']],
  ])('When q is %s, it finds %j', (q, want) => {
    expect(found(q, KOREAN)).toEqual(want);
  });

  test('When a word is cut, the bigrams of its parts replace its bigrams, without the bridges', () => {
    expect(planQuery('경복궁근처맛집', KOREAN.df).clauses[0]!.derived).toEqual([
      ['경복', '복궁', '근처', '맛집'],
    ]);
  });

  test('When a compound is a word of its own in the collection (아이스크림), it is not cut', () => {
    const plan = planQuery('아이스크림', KOREAN.df);
    expect(plan.clauses[0]!.derived).toEqual([]);
    expect(found('아이스크림', KOREAN, plan)).toEqual(['아이스크림 가게', '아이스크림 할인']);
  });

  test('When a word has fewer than 4 syllables, it is not cut (a part would be one syllable)', () => {
    expect(planQuery('경복궁', KOREAN.df).clauses[0]!.derived).toEqual([]);
  });

  test('When the joined form is as frequent as its parts, the word is matched as typed', () => {
    const dict = dictionary('서울맛집', '서울맛집 지도', '서울 맛집');
    expect(planQuery('서울맛집', dict.df).clauses[0]!.derived).toEqual([]);
  });
});

describe('query plan: words written spaced find them written joined (concatenation)', () => {
  test('When Hangul words of 2 syllables or more are spaced, their bigrams already find the joined form: no concatenation', () => {
    const plan = planQuery('서울 맛집', KOREAN.df);
    expect(plan.clauses.map((c) => c.derived)).toEqual([[], []]);
    expect(found('서울 맛집', KOREAN, plan)).toContain('서울맛집 모음');
  });

  test('When a one-syllable word is spaced from its neighbour (길 고양이), the concatenation is an alternative of both', () => {
    const plan = planQuery('길 고양이', KOREAN.df);
    expect(plan.clauses.map((c) => c.derived)).toEqual([
      [['길고', '고양', '양이']],
      [['길고', '고양', '양이']],
    ]);
    expect(found('길 고양이', KOREAN, plan)).toEqual(['길고양이 돌보기']);
  });

  const LATIN = dictionary(
    'database tuning',
    'a database backup',
    'data base',
    'email etiquette',
    'data science',
    'base camp',
    'data plans',
    'base rates',
  );

  test.each([
    ['data base', ['database tuning', 'a database backup', 'data base']],
    ['e mail', ['email etiquette']],
  ])('When q is %s, it also finds the concatenation', (q, want) => {
    expect(found(q, LATIN)).toEqual(want);
  });

  test('When the concatenation is no term of the collection, the words are matched as typed', () => {
    expect(planQuery('data plans', LATIN.df).clauses.map((c) => c.derived)).toEqual([[], []]);
  });

  test('When a Latin word is rare and its two parts are frequent terms, it is cut in two (database → data base)', () => {
    const dict = dictionary('data base', 'data science', 'base camp', 'data plans', 'base rates');
    const plan = planQuery('database', dict.df);
    expect(plan.clauses[0]!.derived).toEqual([['data', 'base']]);
    expect(found('database', dict, plan)).toEqual(['data base']);
  });

  test('When a Latin word is frequent, it is not cut', () => {
    expect(planQuery('database', LATIN.df).clauses[0]!.derived).toEqual([]);
  });

  test('When q has more than MAX_SPACING_WORDS words, nothing is derived', () => {
    const q = Array.from({ length: MAX_SPACING_WORDS + 1 }, () => 'data base').join(' ');
    expect(planQuery(q, LATIN.df).clauses.every((c) => c.derived.length === 0)).toBe(true);
  });
});

describe('query plan: parts of compounds and traps', () => {
  test('When q is the head of a Hangul compound (아이), its bigram finds the compound as it always did', () => {
    expect(found('아이', KOREAN)).toEqual([
      '아이스크림 가게',
      '아이스크림 할인',
      '아이 옷',
      '아이 장난감',
      '아이 책',
    ]);
  });

  test('When q is a part of a Latin compound (base), the compound is not found', () => {
    const dict = dictionary('database', 'base camp');
    expect(found('base', dict)).toEqual(['base camp']);
  });
});

describe('query plan: as typed', () => {
  test.each(['서울맛집에서', '경복궁 야경', 'data base', 'iPhone을 샀다', '2024년에'])(
    'When q is %s, the typed terms are queryTerms(q)',
    (q) => {
      expect(typedTerms(planQuery(q, KOREAN.df))).toEqual(queryTerms(q));
    },
  );

  test('When q has no word, the plan has no clause and matches nothing', () => {
    const plan = planQuery(' ,. ', KOREAN.df);
    expect(plan.clauses).toEqual([]);
    expect(matchesPlan(plan, () => true)).toBe(false);
  });

  test('When a document matches as typed, its tier is 0 with q in the title, else 1; a derived match is 2 or 3', () => {
    const plan: QueryPlan = { clauses: [{ typed: [['a', 'b']], derived: [['c']] }] };
    const has =
      (...terms: string[]) =>
      (t: string) =>
        terms.includes(t);
    expect(planTier(plan, has('a', 'b'), has('a', 'b'))).toBe(0);
    expect(planTier(plan, has('a', 'b', 'c'), has('c'))).toBe(1);
    expect(planTier(plan, has('c'), has('c'))).toBe(2);
    expect(planTier(plan, has('c'), has())).toBe(3);
    expect(matchesTyped(plan, has('c'))).toBe(false);
  });
});

describe('query plan: what the pending tail is filtered by before the dictionary', () => {
  test('When words can take derived forms, their terms are wanted but not required; the others are required', () => {
    const c = planCandidates('서울맛집 야경 data base');
    const { required, wanted } = tailFilter(c);
    expect(required).toEqual(['야경']);
    expect(wanted).toEqual(expect.arrayContaining(['서울', '울맛', '맛집', 'database', 'data']));
  });

  test('When any dictionary decides a plan, every document it matches passes the tail filter', () => {
    const docs = KOREAN.docs.concat(['data base camp', 'database camp']);
    for (const q of [
      '서울맛집 추천',
      '길 고양이',
      'data base',
      '경복궁근처맛집',
      'database camp',
    ]) {
      const { required, wanted } = tailFilter(planCandidates(q));
      for (const dict of [KOREAN, dictionary(...docs)]) {
        const plan = planQuery(q, dict.df);
        for (const doc of docs) {
          const terms = new Set(distinctTerms([doc]));
          if (!matchesPlan(plan, (t) => terms.has(t))) continue;
          expect(required.every((t) => terms.has(t))).toBe(true);
          expect(wanted.some((t) => terms.has(t))).toBe(true);
        }
      }
    }
  });
});

describe('query plan: the brute force the bench and the evaluation count with', () => {
  test('When documents are added one by one, PlanCounter counts what the plan decided by all of them matches', () => {
    const counter = new PlanCounter('서울맛집');
    for (const terms of KOREAN.sets) counter.add((t) => terms.has(t));
    expect(counter.plan()).toEqual(planQuery('서울맛집', KOREAN.df));
    expect(counter.count()).toBe(found('서울맛집', KOREAN).length);
    expect(counter.count()).toBe(4);
  });

  test('When many documents repeat the same terms, PlanCounter counts each one, as a brute force over the documents does', () => {
    // documents drawn with repeats from KOREAN's: the plan's counts and matches are per document
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % KOREAN.docs.length;
    const picked = Array.from({ length: 500 }, next);
    const docs = picked.map((i) => KOREAN.docs[i]!);
    const sets = picked.map((i) => KOREAN.sets[i]!);
    const dict = { docs, sets, df: (t: string) => sets.filter((s) => s.has(t)).length };
    for (const q of ['서울맛집', '서울 맛집', '경복궁 야경', '맛집']) {
      const counter = new PlanCounter(q);
      for (const terms of dict.sets) counter.add((t) => terms.has(t));
      expect(counter.plan()).toEqual(planQuery(q, dict.df));
      expect(counter.count()).toBe(found(q, dict).length);
    }
  });
});

describe('query plan: prefix=1 (search-as-you-type) as a mark in the last word', () => {
  test('When the last word is a prefix, it stands as its mark, takes no derived form and joins no concatenation', () => {
    const c = planCandidates('data ba', { prefix: true });
    expect(c.prefix).toBe('ba');
    expect(c.words[1]!.terms).toEqual([prefixMark('ba')]);
    expect(c.units[1]).toBeNull();
    expect(c.concatenations).toEqual([]);
    const { df } = dictionary('database', 'data base', 'barn');
    expect(decidePlan(c, df).clauses[1]).toEqual({ typed: [['ba*']], derived: [] });
  });

  test('When a prefix is asked, the words before it still take their derived forms', () => {
    const { df } = dictionary('data base barn', 'data base', 'database bar');
    const plan = decidePlan(planCandidates('database ba', { prefix: true }), df);
    expect(plan.clauses[0]!.derived).toEqual([['data', 'base']]);
    expect(plan.clauses[1]!.typed).toEqual([['ba*']]);
  });

  test('When prefix is off, or the rule leaves the last word whole, the plan has no mark', () => {
    expect(planCandidates('data ba').prefix).toBeNull();
    expect(planCandidates('data b', { prefix: true }).prefix).toBeNull(); // under 2 letters
    expect(planCandidates('data ba ', { prefix: true }).prefix).toBeNull(); // ended: q is trimmed first by contracts, a separator ends a word
  });

  test('A mark is never required of a pending row (the SQL matches its range), and a document has it by any term it starts', () => {
    const c = planCandidates('big ba', { prefix: true });
    expect(tailFilter(c).required).toEqual(['big']);
    expect(markedPrefix('ba*')).toBe('ba');
    expect(markedPrefix('ba')).toBeNull();
    const has = documentHas(new Set(['data', 'barn']));
    expect(has('ba*')).toBe(true);
    expect(has('da*')).toBe(true);
    expect(has('x*')).toBe(false);
    expect(has('ba')).toBe(false);
  });
});

describe('query plan: the parts of a whole-run word are read only when it is rare', () => {
  const dfOf = (counts: Record<string, number>) => (t: string) => counts[t] ?? 0;

  test('When more than SPLIT_MAX_DF documents have the word as typed, it is not cut, however frequent its parts', () => {
    const df = dfOf({ database: SPLIT_MAX_DF + 1, data: 1000, base: 1000 });
    expect(planQuery('database', df).clauses[0]!.derived).toEqual([]);
    expect(
      planQuery('database', dfOf({ database: SPLIT_MAX_DF, data: 1000, base: 1000 })).clauses[0]!
        .derived,
    ).toEqual([['data', 'base']]);
  });

  test('A search reads the word first, and its parts only when its count makes it rare', () => {
    const c = planCandidates('database x');
    expect(firstRead(c)).toContain('database');
    expect(firstRead(c)).not.toContain('data');
    expect(partsToRead(c, dfOf({ database: SPLIT_MAX_DF + 1 }))).toEqual([]);
    expect(partsToRead(c, dfOf({ database: 0 }))).toEqual(
      expect.arrayContaining(['data', 'base', 'da', 'tabase']),
    );
  });
});

test('When q repeats a word, the plan has one clause for it and matches the same documents', () => {
  const dict = dictionary('경복궁 가나', '가나 다라', '경복궁');
  const q = `경복궁${' 가나'.repeat(150)}`;
  const plan = planQuery(q, dict.df);
  expect(plan.clauses.map((c) => c.typed)).toEqual([[queryTerms('경복궁')], [['가나']]]);
  expect(found(q, dict, plan)).toEqual(found('경복궁 가나', dict));
});
