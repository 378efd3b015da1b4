import { prefixQuery } from '../prefix-expansion';
import { planCandidates } from '../query-plan';
import { findMatches, type MarkedText } from './marked-text';
import { snippet, SNIPPET_CHARS } from './snippet';

/**
 * The highlights of a result document, made by the analyser that matched it: the query's
 * terms (queryTerms: a Korean word by its stem) are looked for among the terms the analyser
 * makes of the document's text (termSpans: bigrams, words, one-syllable stems), and the part
 * of the text each matching term came from is marked. So what the index matched is what is
 * marked: q=경복궁 marks 경복궁 in 경복궁에서 (its bigrams 경복 and 복궁), q=책을 marks 책 in
 * 책이, q=fox does not mark foxes. The concatenations of q's words (query-plan.ts) are looked
 * for too: q=data base marks database. A word found split is marked by its parts where they
 * are among q's terms (q=서울맛집 marks 서울 and 맛집 in 서울 맛집; a Hangul split's terms are
 * the word's own bigrams); a Latin word's parts are not (q=database does not mark data base).
 *
 * With prefix=1 the last word's prefix (prefix-expansion.ts) marks the part of each term it
 * starts: q=sea marks `sea` of searching, q=서 marks `서` of 서울.
 *
 * - title: the whole icontents_title, marked;
 * - body: a snippet of icontents_body (snippet.ts) around its densest matches.
 * Only the first EXAMINED_UNITS of a field are analysed (marked-text.ts).
 */

export interface DocumentHighlight {
  readonly title: MarkedText;
  readonly body: MarkedText;
}

export type Highlighter = (title: string, body: string) => DocumentHighlight;

export function createHighlighter(
  q: string,
  snippetChars = SNIPPET_CHARS,
  asPrefix = false,
): Highlighter {
  const { terms, prefix } = prefixQuery(q, asPrefix);
  const joined = planCandidates(q, { prefix: asPrefix }).concatenations.flatMap((c) => c.terms);
  const wanted = new Set([...terms, ...joined]);
  const matches = (text: string) => findMatches(text, wanted, undefined, prefix);
  return (title, body) => ({
    title: { text: title, marks: matches(title).map((m) => [m.start, m.end]) },
    body: snippet(body, matches(body), snippetChars),
  });
}
