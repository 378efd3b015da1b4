import { apiError, type Answer, type Doc, type Index } from './api';

/**
 * Reading an index as Meilisearch would: the filters the engine sends, a naive search (every
 * query word must occur in one of the text fields) with its sort, page/hitsPerPage and facets
 * (facetDistribution over every match, at most faceting.maxValuesPerFacet values, of filterable
 * attributes only), and documents/fetch.
 */

export function parseFilter(filter: unknown): Array<(d: Doc) => boolean> {
  const parts = Array.isArray(filter) ? filter : filter ? [filter] : [];
  return parts.map((p: string) => {
    let m = /^collection_id = "(.*)"$/.exec(p);
    if (m) return (d: Doc) => d.collection_id === m![1];
    m = /^(NOT )?categories IN \[([0-9, ]*)\]$/.exec(p);
    if (m) {
      const not = !!m[1];
      const set = m[2]!
        .split(',')
        .filter((s) => s.trim() !== '')
        .map(Number);
      return (d: Doc) => ((d.categories as number[]) ?? []).some((c) => set.includes(c)) !== not;
    }
    m = /^score_regdate (>=|<=) ([0-9]+)$/.exec(p);
    if (m) {
      const n = Number(m[2]);
      return m[1] === '>='
        ? (d: Doc) => (d.score_regdate as number) >= n
        : (d: Doc) => (d.score_regdate as number) <= n;
    }
    throw new Error(`stub cannot parse filter ${p}`);
  });
}

function words(value: unknown): string[] {
  if (typeof value === 'string') return [value.toLowerCase()];
  if (value && typeof value === 'object') return Object.values(value).flatMap(words);
  return [];
}

export function naiveSearch(
  uid: string,
  i: Index | undefined,
  body: Record<string, unknown>,
): Answer {
  if (!i) return { status: 404, body: apiError('index_not_found', `Index \`${uid}\` not found.`) };
  const filters = parseFilter(body.filter);
  const terms = String((body.q as string | null | undefined) ?? '')
    .toLowerCase()
    .split(/\s+/)
    .filter((t) => t !== '');
  let hits = [...i.docs.values()].filter(
    (d) =>
      filters.every((f) => f(d)) && terms.every((t) => words(d.text).some((w) => w.includes(t))),
  );
  // like the engine's ranking rules: (sort=0: every word in the title first), then newest
  // score_regdate, then newest doc_seq
  const sort = body.sort as string[] | undefined;
  const inTitle = (d: Doc) =>
    terms.every((t) => words((d.text as { title: string }).title).some((w) => w.includes(t)))
      ? 0
      : 1;
  hits = hits.sort(
    (a, b) =>
      (sort ? 0 : inTitle(a) - inTitle(b)) ||
      (b.score_regdate as number) - (a.score_regdate as number) ||
      ((b.doc_seq as number) ?? 0) - ((a.doc_seq as number) ?? 0),
  );
  const facets = body.facets as string[] | undefined;
  const filterable = (i.settings.filterableAttributes as string[] | undefined) ?? [];
  const unfacetable = facets?.find((f) => !filterable.includes(f));
  if (unfacetable !== undefined) {
    return {
      status: 400,
      body: apiError('invalid_search_facets', `Attribute \`${unfacetable}\` is not filterable.`),
    };
  }
  const maxValues =
    (i.settings.faceting as { maxValuesPerFacet?: number } | undefined)?.maxValuesPerFacet ?? 100;
  const facetDistribution = facets && distribution(hits, facets, maxValues);
  const maxTotalHits = (i.settings.pagination as { maxTotalHits: number }).maxTotalHits;
  hits = hits.slice(0, maxTotalHits);
  const hitsPerPage = Number(body.hitsPerPage ?? 20);
  const page = Number(body.page ?? 1);
  const retrieve = body.attributesToRetrieve as string[] | undefined;
  const pageHits = hits.slice((page - 1) * hitsPerPage, page * hitsPerPage).map((d) => {
    const hit = retrieve ? Object.fromEntries(retrieve.map((k) => [k, d[k]])) : { ...d };
    if (body.attributesToHighlight) hit._formatted = formatted(d, body, terms);
    return hit;
  });
  return {
    status: 200,
    body: {
      hits: pageHits,
      query: body.q,
      processingTimeMs: 0,
      hitsPerPage,
      page,
      totalPages: hitsPerPage ? Math.ceil(hits.length / hitsPerPage) : 0,
      totalHits: hits.length,
      ...(facetDistribution ? { facetDistribution } : {}),
    },
  };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `_formatted` as Meilisearch gives it for the attributes the engine asks to highlight and crop
 * (text.title, text.body), naively: every occurrence of a query word is marked (any case, also
 * inside a longer word: the stub matches words by substring), and a cropped body is
 * `cropLength` words around the first one holding a match (or from the start).
 */
function formatted(d: Doc, body: Record<string, unknown>, terms: string[]) {
  const pre = (body.highlightPreTag as string | undefined) ?? '<em>';
  const post = (body.highlightPostTag as string | undefined) ?? '</em>';
  const highlighted = (body.attributesToHighlight as string[]) ?? [];
  const cropped = (body.attributesToCrop as string[] | undefined) ?? [];
  const any = terms.length ? new RegExp(terms.map(escapeRegExp).join('|'), 'gi') : null;
  const mark = (s: string) => (any ? s.replace(any, (m) => `${pre}${m}${post}`) : s);
  const crop = (s: string) => {
    const words = s.split(' ');
    const length = Number(body.cropLength ?? 10);
    const first = words.findIndex((w) => terms.some((t) => w.toLowerCase().includes(t)));
    const start = Math.max(0, Math.min(first - Math.floor(length / 2), words.length - length));
    return words.slice(start, start + length).join(' ');
  };
  const text = d.text as { title: string; body: string };
  const field = (name: 'title' | 'body') => {
    const attribute = `text.${name}`;
    const value = cropped.includes(attribute) ? crop(text[name]) : text[name];
    return highlighted.includes(attribute) ? mark(value) : value;
  };
  return { doc_id: d.doc_id, text: { title: field('title'), body: field('body') } };
}

/** facetDistribution: per facet, the documents per value (each value of an array once). */
function distribution(hits: Doc[], facets: string[], maxValues: number) {
  return Object.fromEntries(
    facets.map((facet) => {
      const counts = new Map<number, number>();
      for (const d of hits) {
        const values = d[facet];
        for (const v of new Set(Array.isArray(values) ? values : [values])) {
          if (typeof v === 'number') counts.set(v, (counts.get(v) ?? 0) + 1);
        }
      }
      const first = [...counts].sort((a, b) => a[0] - b[0]).slice(0, maxValues);
      return [facet, Object.fromEntries(first.map(([v, n]) => [String(v), n]))];
    }),
  );
}

/** POST /indexes/:uid/documents/fetch */
export function fetchDocuments(i: Index | undefined, request: unknown): Answer {
  if (!i) return { status: 404, body: apiError('index_not_found', 'not found') };
  const body = request as {
    filter?: string;
    fields?: string[];
    offset?: number;
    limit?: number;
  };
  const filters = parseFilter(body.filter);
  const all = [...i.docs.values()].filter((d) => filters.every((f) => f(d)));
  const offset = body.offset ?? 0;
  const limit = body.limit ?? 20;
  const results = all
    .slice(offset, offset + limit)
    .map((d) => (body.fields ? Object.fromEntries(body.fields.map((k) => [k, d[k]])) : d));
  return { status: 200, body: { results, offset, limit, total: all.length } };
}
