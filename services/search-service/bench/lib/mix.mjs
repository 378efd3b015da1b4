// The wide mix: distinct queries as users send them, drawn from the whole vocabulary of the
// generated corpus (every word that occurs, rare ones as often as common ones, so posting
// lists are read cold), 1–3 words, Korean words sometimes with a particle; a third with a
// filter (ca, ex_ca, a date range), about one in six sorted by date, one in six paged deep
// (start up to 990); and the oracle queries (oracle.mjs), whose numfound is checked. Each
// distinct query is sent twice, in a shuffled order.
import { NOW } from '../data.mjs';

/** a small seeded generator (mulberry32), independent of the corpus's */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x100000000;
  };
}

const PARTICLES = ['에서', '을', '의', '는'];

/**
 * [{ params, oracle? (the id of an oracle query) }], each twice, shuffled;
 * df: the corpus's word counts (data.mjs newDf), oracle: oracleQueries(), count: distinct.
 */
export function buildMix({ df, oracle, count }) {
  const r = random(0x5eed);
  const pick = (a) => a[Math.floor(r() * a.length)];
  const ko = [...df.ko.keys()];
  const en = [...df.en.keys()];
  const seen = new Set();
  const distinct = [];
  const add = (params, id) => {
    const key = JSON.stringify(params);
    if (seen.has(key)) return;
    seen.add(key);
    distinct.push({ params, oracle: id });
  };
  const paging = (params) => {
    const x = r();
    if (x < 1 / 6) params.sort = 1;
    else if (x < 2 / 6) params.start = pick([990, 10 * Math.floor(r() * 100)]);
    return params;
  };
  // the oracle queries, each as it is and once sorted or paged (numfound does not change)
  oracle.forEach((q, id) => {
    add({ ...q.params }, id);
    add({ ...q.params, ...(id % 2 ? { sort: 1 } : { start: 10 * (id % 100) }) }, id);
  });
  while (distinct.length < count) {
    const korean = r() < 0.7;
    const words = Array.from({ length: 1 + Math.floor(r() * r() * 3) }, () =>
      korean ? pick(ko) + (r() < 0.2 ? pick(PARTICLES) : '') : pick(en),
    );
    const params = { q: words.join(' ') };
    const f = r();
    if (f < 1 / 9) params.ca = [1 + Math.floor(r() * 20), 1 + Math.floor(r() * 20)].join(',');
    else if (f < 2 / 9)
      params.ex_ca = Array.from({ length: 1 + Math.floor(r() * 10) }, (_, i) => i + 1).join(',');
    else if (f < 3 / 9) {
      params.startdate = NOW - Math.floor(r() * 700) * 86_400;
      if (r() < 0.7) params.enddate = params.startdate + (7 + Math.floor(r() * 90)) * 86_400;
    }
    add(paging(params));
  }
  const sends = [...distinct, ...distinct];
  for (let i = sends.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [sends[i], sends[j]] = [sends[j], sends[i]];
  }
  return { distinct: distinct.length, sends };
}
