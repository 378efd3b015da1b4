// The bench's own model of a collection, to check numfound without the service's analyser:
// which documents are live (every add, replacement and delete the bench sent), and for each
// oracle query (ORACLE_WORDS of data.mjs, alone, in pairs, with ca / ex_ca / dates) how many
// live documents match, by the bench's tokenization (ASCII letters and digits, lower-cased;
// everything else separates). While writes are in flight the count is a range: `low` counts
// what is certainly committed, `high` what may be; a search watches the range of its query
// from its request to its answer, and its numfound must lie within (exact when no write ran).
import { ORACLE_WORDS } from '../data.mjs';

/** the ASCII words of a document's matched fields, by the bench's own tokenization */
export function asciiWords(docJson) {
  const d = JSON.parse(docJson);
  const text = Object.entries(d)
    .filter(([k, v]) => k.startsWith('icontents_') && typeof v === 'string')
    .map(([, v]) => v)
    .join(' ');
  return new Set(text.split(/[^A-Za-z0-9]+/).map((w) => w.toLowerCase()));
}

/** the oracle queries: [{ params, words, ca?, exCa?, from?, to? }] (q spelled in varied case) */
export function oracleQueries(now) {
  const list = [];
  ORACLE_WORDS.forEach((w, j) => {
    const next = ORACLE_WORDS[(j + 1) % ORACLE_WORDS.length];
    list.push({ params: { q: w }, words: [w] });
    list.push({ params: { q: `${w.toUpperCase()} ${next}` }, words: [w, next] });
    list.push({ params: { q: w, ca: `${1 + (j % 20)},7` }, words: [w], ca: [1 + (j % 20), 7] });
    list.push({ params: { q: w, ex_ca: '1,2,3,4,5' }, words: [w], exCa: [1, 2, 3, 4, 5] });
    const from = now - (60 + j * 20) * 86_400;
    const to = from + 90 * 86_400;
    list.push({ params: { q: w, startdate: from, enddate: to }, words: [w], from, to });
  });
  return list;
}

function matches(query, words, doc) {
  return (
    query.words.every((w) => words.has(w)) &&
    (!query.ca || doc.categories.some((c) => query.ca.includes(c))) &&
    (!query.exCa || !doc.categories.some((c) => query.exCa.includes(c))) &&
    (query.from === undefined || doc.score_regdate >= query.from) &&
    (query.to === undefined || doc.score_regdate <= query.to)
  );
}

/** a collection's model over the oracle queries (each given an `id`: its index) */
export function createModel(queries) {
  const low = new Int32Array(queries.length);
  const high = new Int32Array(queries.length);
  const watches = new Set();
  /** live dockey → the ids of the queries its document matches */
  const live = new Map();
  const keys = []; // the live dockeys, for choosing one at random
  const at = new Map(); // dockey → its place in keys
  const matched = (docJson) => {
    const words = asciiWords(docJson);
    const doc = JSON.parse(docJson);
    return queries.flatMap((q, id) => (matches(q, words, doc) ? [id] : []));
  };
  const move = (ids, counts, step) => {
    for (const id of ids) counts[id] += step;
    for (const w of watches) {
      for (const id of ids) {
        if (w.id !== id) continue;
        w.low = Math.min(w.low, low[id]);
        w.high = Math.max(w.high, high[id]);
      }
    }
  };
  const setLive = (dockey, ids) => {
    if (!at.has(dockey)) {
      at.set(dockey, keys.length);
      keys.push(dockey);
    }
    live.set(dockey, ids);
  };
  const dropLive = (dockey) => {
    const i = at.get(dockey);
    const last = keys.pop();
    if (last !== dockey) {
      keys[i] = last;
      at.set(last, i);
    }
    at.delete(dockey);
    live.delete(dockey);
  };
  /** a write that changes `from` (ids before) to `to` (ids after); returns ack(ok) */
  function write(from, to) {
    const gone = from.filter((id) => !to.includes(id));
    const come = to.filter((id) => !from.includes(id));
    move(gone, low, -1);
    move(come, high, +1);
    return (ok) => {
      if (ok) {
        move(gone, high, -1);
        move(come, low, +1);
      } else {
        move(gone, low, +1);
        move(come, high, -1);
      }
    };
  }
  return {
    size: () => live.size,
    /** a live dockey chosen by r() in [0, 1) */
    anyLive: (r) => keys[Math.floor(r() * keys.length)],
    /** starts an add (or a replacement) of dockey by docJson; returns ack(ok) */
    put(dockey, docJson) {
      const before = live.get(dockey) ?? [];
      const after = matched(docJson);
      const ack = write(before, after);
      return (ok) => {
        ack(ok);
        if (ok) setLive(dockey, after);
      };
    },
    /** starts a delete of dockey; returns ack(ok) */
    remove(dockey) {
      const ack = write(live.get(dockey) ?? [], []);
      return (ok) => {
        ack(ok);
        if (ok) dropLive(dockey);
      };
    },
    /** watches query id from now on; end() returns { low, high } over the whole time */
    watch(id) {
      const w = { id, low: low[id], high: high[id] };
      watches.add(w);
      return {
        end() {
          watches.delete(w);
          return { low: w.low, high: w.high };
        },
      };
    },
  };
}
