// Deterministic generated documents for the search benchmark: 70 % Korean, 30 % English,
// words drawn from a Zipf-like distribution (so some words are in most documents and some in
// very few), bodies of 1–2 KB, 1–3 of 20 categories, dates spread over two years before NOW.
// makeDoc(i) is a function of i alone (its own seed), so any document can be made again (a
// 1,000,000-document corpus is never held in memory); makeDoc(i, df) also counts in how many
// documents each word occurs, to choose query words. Each document also carries some of the
// ORACLE_WORDS (ASCII words outside the vocabulary, word j with probability 0.6 × 0.75^j) as
// tokens of their own at fixed places of the body, in varied spellings (`qzab`, `QZAB`,
// `(qzab)`, `qzab,`): the oracle (lib/oracle.mjs) counts their matches by its own tokenization.
let seed = 0x2545f491;
function rand() {
  // xorshift32
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 0x100000000;
}
const pick = (a) => a[Math.floor(rand() * a.length)];

const HANGUL_SYLLABLES = Array.from(
  '가나다라마바사아자차카타파하서울부산맛집여행커피학교회사사람시간문제경제정치문화사회기술과학컴퓨터데이터검색서비스개발자모바일게임음악영화사진뉴스날씨건강운동요리책공부대학교수학생선생님친구가족사랑행복마음생각세계나라도시시장가격주식은행',
);
const PARTICLES = [
  '',
  '',
  '',
  '을',
  '를',
  '에서',
  '은',
  '는',
  '이',
  '가',
  '의',
  '로',
  '에',
  '와',
  '과',
  '도',
];
const LATIN_SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ter',
  'sun',
  'ra',
  'ven',
  'to',
  'el',
  'dor',
  'pa',
  'quin',
  'sa',
  'bel',
  'cor',
  'ni',
  'vu',
  'an',
  'tis',
  'mo',
];

function makeWords(n, make) {
  const set = new Set();
  while (set.size < n) set.add(make());
  return [...set];
}
const KOREAN = makeWords(4000, () => {
  const len = 2 + Math.floor(rand() * 2);
  let w = '';
  for (let i = 0; i < len; i++) w += pick(HANGUL_SYLLABLES);
  return w;
});
const ENGLISH = makeWords(4000, () => {
  const len = 2 + Math.floor(rand() * 2);
  let w = '';
  for (let i = 0; i < len; i++) w += pick(LATIN_SYLLABLES);
  return w;
});

/** Zipf-like rank sampler over n words (s ≈ 1). */
function zipf(n) {
  const cdf = [];
  let sum = 0;
  for (let i = 1; i <= n; i++) {
    sum += 1 / i ** 1.05;
    cdf.push(sum);
  }
  return () => {
    const x = rand() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}
const sampleRank = zipf(4000);

export const VOCABULARY = { ko: KOREAN, en: ENGLISH };
export const NOW = 1_700_000_000;
const TWO_YEARS = 2 * 365 * 86_400;

export const ORACLE_WORDS = Array.from(
  { length: 24 },
  (_, j) => `qz${'abcfghkmnoprtuvwx'[j % 17]}${'ijl'[Math.floor(j / 17)]}`,
);
const SPELLINGS = [(w) => w, (w) => w.toUpperCase(), (w) => `(${w})`, (w) => `${w},`];

/** a new df accumulator for makeDoc: word → number of documents containing it */
export const newDf = () => ({ ko: new Map(), en: new Map() });

/** document i: { dockey, doc (JSON text) }; counts its words into df when given */
export function makeDoc(i, df) {
  seed = (Math.imul(i + 1, 0x9e3779b1) ^ 0x5bd1e995) >>> 0 || 1;
  const korean = rand() < 0.7;
  const words = korean ? KOREAN : ENGLISH;
  const stats = df ? (korean ? df.ko : df.en) : new Map();
  const seen = new Set();
  const text = (bytes) => {
    const parts = [];
    let size = 0;
    while (size < bytes) {
      const w = words[sampleRank()];
      seen.add(w);
      const token = korean
        ? w + pick(PARTICLES)
        : rand() < 0.1
          ? w[0].toUpperCase() + w.slice(1)
          : w;
      parts.push(token);
      size += Buffer.byteLength(token) + 1;
    }
    return parts.join(' ');
  };
  const title = text(30 + Math.floor(rand() * 30));
  const bodyParts = text(1000 + Math.floor(rand() * 1000)).split(' ');
  ORACLE_WORDS.forEach((w, j) => {
    if (rand() < 0.6 * 0.75 ** j)
      bodyParts.splice((j * 13) % bodyParts.length, 0, pick(SPELLINGS)(w));
  });
  const body = bodyParts.join(' ');
  for (const w of seen) stats.set(w, (stats.get(w) ?? 0) + 1);
  const categories = [
    ...new Set(
      Array.from({ length: 1 + Math.floor(rand() * 3) }, () => 1 + Math.floor(rand() * 20)),
    ),
  ];
  const regdate = NOW - Math.floor(rand() * TWO_YEARS);
  return {
    dockey: `doc-${i}`,
    doc: `{"icontents_title":${JSON.stringify(title)},"icontents_body":${JSON.stringify(body)},"score_regdate":${regdate},"score_view":${Math.floor(rand() * 1e6)},"categories":[${categories.join(',')}],"contents_url":"https://example.com/${i}"}`,
  };
}
