import { SEARCH_HTTP_ERRORS, type HttpAnswer } from './http-errors';
import { failure, success, type Result } from './result';
import { hasNulOrLoneSurrogate, utf8ByteLength } from './text';

/**
 * Highlights, beyond the spec: with hl=1 every result document also carries highlight_title
 * and highlight_body, the matches of q wrapped in hl_pre / hl_post. A request without hl=1 is
 * answered exactly as the spec says: hl_pre and hl_post are only read with hl=1, and the
 * checks come after every parameter of the spec (an invalid sort answers its spec row first).
 *
 * - hl: 1 on; 0, missing, empty or blank off; anything else → 400 hl parameter is invalid.
 * - hl_pre / hl_post: missing, empty or blank → `<em>` / `</em>`; otherwise taken as given (not
 *   trimmed), at most HIGHLIGHT_TAG_MAX_BYTES UTF-8 bytes (→ 400 hl_pre is too long …), valid
 *   UTF-8 without U+0000 (→ 400 hl_pre parameter is invalid).
 */

type Raw = string | undefined | null;

export interface HighlightParamsInput {
  hl?: Raw;
  hl_pre?: Raw;
  hl_post?: Raw;
}

/** The tags around each match. */
export interface HighlightParams {
  pre: string;
  post: string;
}

export const HIGHLIGHT_DEFAULT_TAGS: Readonly<HighlightParams> = { pre: '<em>', post: '</em>' };

/** Longest hl_pre / hl_post, in UTF-8 bytes. */
export const HIGHLIGHT_TAG_MAX_BYTES = 32;

function tag(raw: Raw, fallback: string, tooLong: HttpAnswer, invalid: HttpAnswer) {
  if (raw === undefined || raw === null || raw.trim() === '') return success(fallback);
  if (utf8ByteLength(raw) > HIGHLIGHT_TAG_MAX_BYTES) return failure(tooLong);
  return hasNulOrLoneSurrogate(raw) ? failure(invalid) : success(raw);
}

/** The highlight tags asked for, or null when hl is not 1. */
export function parseHighlightParams(
  raw: HighlightParamsInput,
): Result<HighlightParams | null, HttpAnswer> {
  const errors = SEARCH_HTTP_ERRORS;
  const hl = raw.hl?.trim() ?? '';
  if (hl === '' || hl === '0') return success(null);
  if (hl !== '1') return failure(errors.hlInvalid);
  const pre = tag(raw.hl_pre, HIGHLIGHT_DEFAULT_TAGS.pre, errors.hlPreTooLong, errors.hlPreInvalid);
  if (!pre.ok) return pre;
  const post = tag(
    raw.hl_post,
    HIGHLIGHT_DEFAULT_TAGS.post,
    errors.hlPostTooLong,
    errors.hlPostInvalid,
  );
  if (!post.ok) return post;
  return success({ pre: pre.value, post: post.value });
}
