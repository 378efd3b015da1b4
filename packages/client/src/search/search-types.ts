/** A score (int64) value: a bigint keeps every digit; a number must be a safe integer. */
export type ScoreValue = number | bigint;

/**
 * A document (`doc`): the reserved fields plus `contents_*`, `icontents_*` (indexed) and
 * `score_*` (int64) fields, at most 35 in all.
 */
export interface SearchDoc {
  readonly icontents_title: string;
  readonly icontents_body: string;
  /** UNIX time in seconds */
  readonly score_regdate: ScoreValue;
  readonly contents_url?: string;
  readonly contents_image?: string;
  readonly categories?: readonly number[];
  readonly [field: `contents_${string}`]: string | undefined;
  readonly [field: `icontents_${string}`]: string | undefined;
  readonly [field: `score_${string}`]: ScoreValue | undefined;
}

export interface AddOptions {
  readonly dockey: string;
  /** the document, or its JSON text as is */
  readonly doc: SearchDoc | string;
  /** at the maximum document count: true deletes the oldest document, false (default) refuses */
  readonly force?: boolean;
}

export interface UpdateOptions {
  readonly dockey: string;
  /** the whole document: fields left out are removed */
  readonly doc: SearchDoc | string;
}

export interface UpdateFieldOptions {
  readonly dockey: string;
  /** a `score_*` field */
  readonly fieldname: `score_${string}`;
  readonly fieldvalue: ScoreValue;
}

export interface DeleteOptions {
  readonly dockey: string;
}

/** The search parameters of the spec. */
export interface SearchOptions {
  /** the search text (≤ 1024 UTF-8 bytes) */
  readonly q: string;
  /** position of the first document, 0..990 (default 0) */
  readonly start?: number;
  /** documents per page, 10..100 (default 10; 10 when start is 990) */
  readonly len?: number;
  /** only documents with one of these categories */
  readonly ca?: readonly number[];
  /** no documents with these categories (at most 10) */
  readonly ex_ca?: readonly number[];
  /** 0 relevance (default), 1 newest first by score_regdate */
  readonly sort?: 0 | 1;
  /** score_regdate from (UNIX seconds, or a Date) */
  readonly startdate?: number | Date;
  /** score_regdate until (UNIX seconds, or a Date) */
  readonly enddate?: number | Date;
  /**
   * Beyond the spec: true (`hl=1`) adds `highlight_title` and `highlight_body` to every
   * document. Not sent when left out.
   */
  readonly hl?: boolean;
  /** with hl: the tag before each match (default `<em>`; at most 32 UTF-8 bytes) */
  readonly hl_pre?: string;
  /** with hl: the tag after each match (default `</em>`; at most 32 UTF-8 bytes) */
  readonly hl_post?: string;
  /**
   * Beyond the spec: `'categories'` adds `facets` to the result, the number of matches per
   * category over every match (not only the page), with every filter but `ca`.
   */
  readonly facet?: 'categories';
  /**
   * Beyond the spec, search-as-you-type: true (`prefix=1`) also matches every word that starts
   * with the last word of `q` (Latin and other words from 2 characters; Hangul by whole
   * syllables, a one-syllable last word). The Meilisearch engine answers it with whole words.
   */
  readonly prefix?: boolean;
}

/**
 * A result document: `dockey`, the stored fields in the order they were sent, `categories`,
 * and the thumbnail fields. Every `score_*` value is a bigint (int64, exact), always, also
 * when small, so its type is one; `categories` are numbers (0..2147483647).
 */
export interface SearchResultDoc {
  readonly dockey: string;
  readonly categories: readonly number[];
  readonly [field: `score_${string}`]: bigint;
  readonly [field: `contents_${string}`]: string;
  readonly [field: `icontents_${string}`]: string;
  readonly [field: `archive_${string}`]: string;
  /**
   * With `hl: true`: the title, and a snippet of the body (at most 160 characters around the
   * best match), as HTML fragments: the text escaped (`&amp; &lt; &gt; &quot; &#39;`), each
   * match between hl_pre and hl_post.
   */
  readonly highlight_title?: string;
  readonly highlight_body?: string;
}

export interface SearchResult {
  /** milliseconds spent on the search */
  readonly querytime: number;
  readonly start: number;
  /** all matching documents */
  readonly numfound: number;
  readonly docs: readonly SearchResultDoc[];
  /** only when the search was asked `facet: 'categories'` */
  readonly facets?: SearchFacets;
}

/** The counts of `facet: 'categories'`: matches by category number (as text), none when 0. */
export interface SearchFacets {
  readonly categories: Readonly<Record<string, number>>;
}

export interface SearchStatus {
  /** whether searching is possible (a string, as the spec types it) */
  readonly search_status: 'true' | 'false';
  readonly document_count: number;
}

/**
 * Opt-in retries of a request refused with 429 too many requests (a TooManyRequestsError):
 * nothing was done, so any operation may be sent again. Each retry waits the answer's
 * `Retry-After` (SEARCH_RETRY_AFTER_SECONDS when it has none); the last refusal is thrown.
 */
export interface SearchRetryOptions {
  /** attempts in all, the first included (2: at most one retry); an integer, at least 1 */
  readonly maxAttempts: number;
  /** the longest wait of one request, all its retries together, in ms: a retry that would wait
   * beyond it is not made (its 429 is thrown at once) */
  readonly maxWaitMs: number;
  /** how to wait `ms` milliseconds; default setTimeout (tests give their own) */
  readonly sleep?: (ms: number) => Promise<void>;
}
