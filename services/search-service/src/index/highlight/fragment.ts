import { wholeCharacterMarks, type MarkedText } from './marked-text';

/**
 * A highlight as the client gets it: an HTML fragment in which the document's text is text
 * (`& < > " '` escaped as `&amp; &lt; &gt; &quot; &#39;`) and the client's tags, inserted as
 * given, are the only markup. Removing the tags and unescaping gives back the text exactly
 * (unambiguously when the tags hold `<` or `&`, as the default `<em>` `</em>` do: escaped
 * text never does). A tag never splits a surrogate pair, so never a UTF-8 character either.
 */

export interface HighlightTags {
  readonly pre: string;
  readonly post: string;
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** The fragment of a marked text: escaped text, each mark between the tags. */
export function fragment(marked: MarkedText, tags: HighlightTags): string {
  const { text } = marked;
  let out = '';
  let at = 0;
  for (const [start, end] of wholeCharacterMarks(text, marked.marks)) {
    out += `${escapeHtml(text.slice(at, start))}${tags.pre}${escapeHtml(text.slice(start, end))}${tags.post}`;
    at = end;
  }
  return out + escapeHtml(text.slice(at));
}

/**
 * A text with marks written between `tags` (an engine's own highlight, with tags chosen so
 * that documents do not hold them), read back as a MarkedText; null when the tags do not
 * pair up (a tag inside a mark, a mark left open, a closing tag alone).
 */
export function readTagged(tagged: string, tags: HighlightTags): MarkedText | null {
  let text = '';
  const marks: Array<[number, number]> = [];
  let at = 0;
  for (;;) {
    const open = tagged.indexOf(tags.pre, at);
    const strayClose = tagged.indexOf(tags.post, at);
    if (open < 0) {
      if (strayClose >= 0) return null;
      text += tagged.slice(at);
      return { text, marks: wholeCharacterMarks(text, marks) };
    }
    if (strayClose >= 0 && strayClose < open) return null;
    text += tagged.slice(at, open);
    const start = text.length;
    const close = tagged.indexOf(tags.post, open + tags.pre.length);
    if (close < 0) return null;
    const inside = tagged.slice(open + tags.pre.length, close);
    if (inside.includes(tags.pre)) return null;
    text += inside;
    marks.push([start, text.length]);
    at = close + tags.post.length;
  }
}
