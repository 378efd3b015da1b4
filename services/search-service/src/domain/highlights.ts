import { BODY_FIELD, TITLE_FIELD, type HighlightParams } from '@hub/contracts';
import { fragment } from '../index/highlight/fragment';
import { createHighlighter, type Highlighter } from '../index/highlight/highlighter';
import type { MarkedText } from '../index/highlight/marked-text';
import type { EngineHighlight } from '../index/search-index';

/**
 * hl=1 (beyond the spec): every document of the page gets highlight_title (its
 * icontents_title with each match between the tags) and highlight_body (a snippet of its
 * icontents_body), written as fragments (index/highlight/fragment.ts). The marks are the
 * engine's own when it made them (Meilisearch) and they are of the text as stored (the title
 * itself; a body window that is a piece of the body); otherwise — the Postgres engine, or a
 * document changed since the engine indexed it — the analyser's highlighter marks the stored
 * text. Only the page's documents are highlighted (len ≤ 100), each within bounded work.
 */

/** A document of the page: its stored doc JSON (UTF-8) and documents.id. */
export interface PageDocument {
  id: string;
  doc: Buffer;
}

export interface HighlightFields {
  /** highlight_title */
  title: string;
  /** highlight_body */
  body: string;
}

function storedText(doc: Record<string, unknown>, field: string): string {
  const value = doc[field];
  return typeof value === 'string' ? value : '';
}

/** The engine's marks when they are of this text (the whole title; a piece of the body). */
function ofStored(marked: MarkedText | null, stored: string, whole: boolean): MarkedText | null {
  if (!marked) return null;
  if (whole) return marked.text === stored ? marked : null;
  return stored.includes(marked.text) && (marked.text !== '' || stored === '') ? marked : null;
}

/** The highlight fields of each document, by documents.id. */
export function highlightPage(
  q: string,
  tags: HighlightParams,
  docs: readonly PageDocument[],
  engine: ReadonlyMap<string, EngineHighlight> | undefined,
  prefix = false,
): Map<string, HighlightFields> {
  let own: Highlighter | null = null;
  const out = new Map<string, HighlightFields>();
  for (const d of docs) {
    const stored = JSON.parse(d.doc.toString('utf8')) as Record<string, unknown>;
    const title = storedText(stored, TITLE_FIELD);
    const body = storedText(stored, BODY_FIELD);
    const theirs = engine?.get(d.id);
    let titleMarks = ofStored(theirs?.title ?? null, title, true);
    let bodyMarks = ofStored(theirs?.body ?? null, body, false);
    if (!titleMarks || !bodyMarks) {
      own ??= createHighlighter(q, undefined, prefix);
      const mine = own(title, body);
      titleMarks ??= mine.title;
      bodyMarks ??= mine.body;
    }
    out.set(d.id, { title: fragment(titleMarks, tags), body: fragment(bodyMarks, tags) });
  }
  return out;
}
