// The query kinds: words chosen by document frequency in the generated corpus (data.mjs), and
// each kind's numfound counted by brute force, to check the service's answers against.
import { NOW } from '../data.mjs';
import { DOCS } from './settings.mjs';

/** [{ kind, params }]; df: the word counts of the documents (data.mjs newDf, makeDoc) */
export function chooseQueryKinds(df) {
  const byDf = (stats) => [...stats.entries()].sort((a, b) => b[1] - a[1]);
  const ko = byDf(df.ko);
  const en = byDf(df.en);
  const closest = (list, share) =>
    list.reduce((best, e) =>
      Math.abs(e[1] - share * DOCS) < Math.abs(best[1] - share * DOCS) ? e : best,
    )[0];
  const common = ko[0][0];
  const mid = closest(ko, 0.38);
  const month = { startdate: NOW - 60 * 86_400, enddate: NOW - 30 * 86_400 };
  const longQuery = (word) => {
    let q = word;
    while (Buffer.byteLength(`${q} 가나`) <= 1024) q += ' 가나';
    return q;
  };
  const particle = ko.find(([w]) => w.length >= 3)[0];
  const koWord = closest(
    ko.filter(([w]) => w.length >= 3),
    0.05,
  );
  const enWord = closest(
    en.filter(([w]) => w.length >= 4),
    0.05,
  );
  return [
    { kind: 'common word (ko)', params: { q: common } },
    { kind: 'mid word (ko)', params: { q: mid } },
    { kind: 'rare word (ko)', params: { q: closest(ko, 0.0005) } },
    { kind: 'common word (en)', params: { q: closest(en, 0.2) } },
    { kind: 'two words', params: { q: `${closest(ko, 0.03)} ${closest(ko, 0.02)}` } },
    { kind: 'word + particle', params: { q: `${particle}에서` } },
    { kind: 'common + ca', params: { q: common, ca: '3,7' } },
    { kind: 'common + ex_ca 5', params: { q: closest(en, 0.2), ex_ca: '1,2,3,4,5' } },
    { kind: 'common + ex_ca 10', params: { q: common, ex_ca: '1,2,3,4,5,6,7,8,9,10' } },
    { kind: 'common, one month', params: { q: common, ...month } },
    { kind: 'common, since', params: { q: common, startdate: NOW - 400 * 86_400 } },
    { kind: 'common, sort=1', params: { q: common, sort: 1 } },
    { kind: 'common, start=990', params: { q: common, start: 990 } },
    { kind: 'sort=1, start=990', params: { q: mid, sort: 1, start: 990 } },
    { kind: 'mid, len=100', params: { q: mid, len: 100 } },
    { kind: 'punctuation only', params: { q: '!!! ... ???' } },
    { kind: '1,024-byte q', params: { q: longQuery(common) } },
    // each option beyond the spec on: highlights, facets on a word in ~70 % of the documents,
    // and search-as-you-type on prefixes of 1, 2 and 3 characters (index/prefix-expansion.ts:
    // one Latin letter is under the minimum and a Hangul prefix of 2 or more syllables is
    // searched by its bigrams, so those rows show what the rule leaves as before)
    { kind: 'common, hl=1', params: { q: common, hl: 1 } },
    { kind: '~70 % word, facet', params: { q: closest(ko, 0.7), facet: 'categories' } },
    ...[1, 2, 3].flatMap((n) => [
      { kind: `prefix ${n} char (ko)`, params: { q: koWord.slice(0, n), prefix: 1 } },
      { kind: `prefix ${n} char (en)`, params: { q: enWord.slice(0, n), prefix: 1 } },
    ]),
    ...spacingKinds(ko, closest),
  ];
}

/**
 * The spacing kind (issue 26): two words of two syllables the documents write spaced, asked
 * joined (`서울맛집` for `서울 맛집`), so the engine cuts the word where the dictionary says; its
 * expected count is the plan's own brute force (countSpacing).
 */
function spacingKinds(ko, closest) {
  const two = ko.filter(([w]) => w.length === 2);
  // frequent enough to be found together in some documents at 5,000 (their bridge is then
  // rarer than they are, and the word is cut: 57 matches at 5,000, 138 at 20,000)
  const first = closest(two, 0.1);
  const second = closest(
    two.filter(([w]) => w !== first),
    0.05,
  );
  return [{ kind: 'two words joined', params: { q: first + second }, spacing: true }];
}

/**
 * The counts of the spacing kinds, by the engine's query plan (query-plan.js PlanCounter,
 * decided by the corpus' own counts): `add` each document's terms (countExpected's onDoc), then
 * `finish` sets their `expected`. A kind that is no spacing kind must take no derived form
 * (countExpected counts q as typed): finish throws if one does.
 */
export function countSpacing(kinds, { PlanCounter, hasDerived, documentHas }) {
  const counters = kinds.map((k) => new PlanCounter(k.params.q, { prefix: k.params.prefix === 1 }));
  return {
    add(terms) {
      const has = documentHas(terms);
      for (const c of counters) c.add(has);
    },
    finish() {
      kinds.forEach((k, i) => {
        if (k.spacing) k.expected = counters[i].count();
        else if (hasDerived(counters[i].plan()))
          throw new Error(`${k.kind}: q takes derived forms countExpected does not count`);
      });
    },
  };
}

/**
 * Sets each kind's `expected` numfound over corpus (an iterable of { doc }), with the
 * service's analyser and prefix rule; `onDoc` gets each document's terms (countSpacing)
 * ({ distinctTerms, queryTerms } of the built index/analyser.js, { prefixQuery,
 * documentMatches } of index/prefix-expansion.js).
 */
export function countExpected(
  kinds,
  corpus,
  { distinctTerms, queryTerms, prefixQuery, documentMatches },
  onDoc = () => {},
) {
  const plans = kinds.map((k) => ({
    terms: queryTerms(k.params.q),
    prefix: k.params.prefix === 1 ? prefixQuery(k.params.q, true) : null,
    ca: k.params.ca?.split(',').map(Number),
    exCa: k.params.ex_ca?.split(',').map(Number),
    from: k.params.startdate,
    to: k.params.enddate,
  }));
  for (const k of kinds) k.expected = 0;
  for (const d of corpus) {
    const doc = JSON.parse(d.doc);
    const terms = new Set(distinctTerms([doc.icontents_title, doc.icontents_body]));
    onDoc(terms);
    plans.forEach((p, i) => {
      if (
        (p.prefix
          ? documentMatches(terms, p.prefix)
          : p.terms.length > 0 && p.terms.every((t) => terms.has(t))) &&
        (!p.ca || doc.categories.some((c) => p.ca.includes(c))) &&
        (!p.exCa || !doc.categories.some((c) => p.exCa.includes(c))) &&
        (p.from === undefined || doc.score_regdate >= p.from) &&
        (p.to === undefined || doc.score_regdate <= p.to)
      )
        kinds[i].expected++;
    });
  }
}
