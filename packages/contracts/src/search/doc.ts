import { isLosslessNumber, LosslessNumber } from 'lossless-json';
import { SEARCH_ERRORS } from './errors';
import {
  BODY_FIELD,
  CATEGORIES_FIELD,
  fieldKind,
  IMAGE_FIELD,
  REGDATE_FIELD,
  TITLE_FIELD,
  URL_FIELD,
} from './fields';
import { checkUnixTime, parseScoreValue } from './int64';
import { parseFlatObject, parseLossless, topLevelKeys } from './json';
import { SEARCH_LIMITS } from './limits';
import { failure, success, type Result } from './result';
import { hasBadJsonEscape, hasNulOrLoneSurrogate } from './text';

/** A doc that passed every check of the add/update tables. */
export interface ParsedDoc {
  /**
   * Every field in document order, values normalised: strings for contents/icontents,
   * LosslessNumber (canonical integer text) for score fields, number[] for categories.
   */
  readonly fields: Array<[string, unknown]>;
  readonly title: string;
  readonly body: string;
  /** score_regdate as exact integer text (seconds) */
  readonly regdate: string;
  /** null when the doc has no categories field; [] when it is an empty array */
  readonly categories: number[] | null;
  readonly url: string | null;
  readonly image: string | null;
  /** every icontents_* field, title and body included */
  readonly icontents: Record<string, string>;
  /** every contents_* field, url and image included */
  readonly contents: Record<string, string>;
  /** every score_* field as exact integer text, score_regdate included */
  readonly scores: Record<string, string>;
  /** the doc re-serialised by lossless-json: numbers keep their exact text */
  readonly json: string;
}

export type DocOperation = 'add' | 'update';
type DocErrors = (typeof SEARCH_ERRORS)[DocOperation];

/**
 * Checks the doc parameter of add (and update: same rules, errors of the update table).
 * Order: null → empty → UTF-8 → JSON → field count → each field in document order →
 * required fields (title, body, regdate) → contents_image URL. The first failure answers.
 */
export function parseDoc(
  raw: string | undefined | null,
  operation: DocOperation = 'add',
): Result<ParsedDoc> {
  const errors = SEARCH_ERRORS[operation];
  if (raw === undefined || raw === null) return failure(errors.docNull);
  if (raw.trim() === '') return failure(errors.docEmpty);
  if (hasNulOrLoneSurrogate(raw) || hasBadJsonEscape(raw)) return failure(errors.docInvalidUtf8);
  const { value, keys } = parseFlatObject(raw) ?? parseObject(raw);
  if (!isPlainObject(value) || keys === null) return failure(errors.docJsonParsingFail);
  if (keys.length > SEARCH_LIMITS.maxFields) return failure(errors.tooManyFields);

  const fields: Array<[string, unknown]> = [];
  for (const name of keys) {
    const checked = checkField(name, value[name], errors);
    if (!checked.ok) return checked;
    fields.push([name, checked.value]);
  }
  return assemble(fields, errors);
}

/** The general path of parseDoc's JSON (any shape, every error): value and top-level keys. */
function parseObject(raw: string): { value: unknown; keys: string[] | null } {
  const value = parseLossless(raw);
  return { value, keys: isPlainObject(value) ? topLevelKeys(raw) : null };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !isLosslessNumber(v);
}

function integerText(v: unknown): string | null {
  return isLosslessNumber(v) ? v.toString() : null;
}

/** One field: its name, then its value by kind. Returns the normalised value. */
function checkField(name: string, v: unknown, errors: DocErrors): Result<unknown> {
  const kind = fieldKind(name);
  if (kind === null) return failure(errors.fieldnameInvalid);
  if (kind === CATEGORIES_FIELD) return checkCategories(v, errors);
  if (kind === 'score') {
    const text = integerText(v);
    if (name === REGDATE_FIELD) {
      const time = text === null ? null : checkUnixTime(text);
      if (time?.ok) return success(new LosslessNumber(time.value));
      return failure(time?.reason === 'too-big' ? errors.dateTooBig : errors.dateInvalid);
    }
    const score = text === null ? null : parseScoreValue(text);
    return score === null ? failure(errors.scoreValueInvalid) : success(new LosslessNumber(score));
  }
  // a null title/body is reported by the required-field check ("value is empty")
  if (v === null && (name === TITLE_FIELD || name === BODY_FIELD)) return success(null);
  return typeof v === 'string' ? success(v) : failure(errors.stringValueInvalid);
}

function checkCategories(v: unknown, errors: DocErrors): Result<unknown> {
  if (!Array.isArray(v)) return failure(errors.categoryValueInvalid);
  const out: number[] = [];
  for (const item of v) {
    const text = integerText(item);
    if (text === null || !/^(0|[1-9][0-9]{0,9})$/.test(text)) {
      return failure(errors.categoryValueInvalid);
    }
    const n = Number(text);
    if (n > SEARCH_LIMITS.categoryMax) return failure(errors.categoryValueInvalid);
    out.push(n);
  }
  return success(out);
}

function isBlank(v: unknown): boolean {
  return typeof v !== 'string' || v.trim() === '';
}

function isHttpUrl(s: string): boolean {
  try {
    const url = new URL(s);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Required fields, the image URL, then the ParsedDoc views of the checked fields. */
function assemble(fields: Array<[string, unknown]>, errors: DocErrors): Result<ParsedDoc> {
  const byName = new Map(fields);
  if (isBlank(byName.get(TITLE_FIELD))) return failure(errors.titleEmpty);
  if (isBlank(byName.get(BODY_FIELD))) return failure(errors.bodyEmpty);
  if (!byName.has(REGDATE_FIELD)) return failure(errors.dateInvalid);
  const image = byName.get(IMAGE_FIELD);
  if (typeof image === 'string' && !isHttpUrl(image)) return failure(errors.thumbnailKeyFail);

  const icontents: Record<string, string> = {};
  const contents: Record<string, string> = {};
  const scores: Record<string, string> = {};
  for (const [name, v] of fields) {
    if (typeof v === 'string') (name.startsWith('icontents_') ? icontents : contents)[name] = v;
    else if (isLosslessNumber(v)) scores[name] = v.toString();
  }
  const categories = byName.get(CATEGORIES_FIELD);
  const url = byName.get(URL_FIELD);
  return success({
    fields,
    title: icontents[TITLE_FIELD]!,
    body: icontents[BODY_FIELD]!,
    regdate: scores[REGDATE_FIELD]!,
    categories: Array.isArray(categories) ? (categories as number[]) : null,
    url: typeof url === 'string' ? url : null,
    image: typeof image === 'string' ? image : null,
    icontents,
    contents,
    scores,
    json: jsonOf(fields),
  });
}

/**
 * lossless-json's stringify of the checked fields as one object, written directly: a field's
 * value is a string, null, a LosslessNumber or the categories' integers, and no field name is
 * integer-like, so the object would list them in this order too.
 */
function jsonOf(fields: Array<[string, unknown]>): string {
  let out = '';
  for (const [name, v] of fields) {
    const value = isLosslessNumber(v)
      ? v.toString()
      : Array.isArray(v)
        ? `[${v.join(',')}]`
        : JSON.stringify(v);
    out += `${out === '' ? '{' : ','}${JSON.stringify(name)}:${value}`;
  }
  return out === '' ? '{}' : `${out}}`;
}
