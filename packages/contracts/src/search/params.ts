import { SEARCH_ERRORS, type ContractError } from './errors';
import { fieldKind, REGDATE_FIELD } from './fields';
import { parseScoreValue, parseUnixTime } from './int64';
import { SEARCH_LIMITS } from './limits';
import { failure, success, type Result } from './result';
import { hasNulOrLoneSurrogate, parseDigits, utf8ByteLength } from './text';

type Raw = string | undefined | null;

export type DockeyOperation = 'add' | 'update' | 'delete' | 'fieldUpdate';

/**
 * dockey: missing → dockey is null (400); blank (empty or whitespace only) → dockey is empty
 * (404) for field update, dockey is invalid (404) elsewhere; over 1024 UTF-8 bytes, U+0000 or
 * a lone surrogate → dockey is invalid (404). The dockey is returned as given (not trimmed).
 */
export function parseDockey(raw: Raw, operation: DockeyOperation): Result<string> {
  const errors = SEARCH_ERRORS[operation];
  if (raw === undefined || raw === null) return failure(errors.dockeyNull);
  if (raw.trim() === '') {
    return failure(
      operation === 'fieldUpdate' ? SEARCH_ERRORS.fieldUpdate.dockeyEmpty : errors.dockeyInvalid,
    );
  }
  if (utf8ByteLength(raw) > SEARCH_LIMITS.dockeyMaxBytes || hasNulOrLoneSurrogate(raw)) {
    return failure(errors.dockeyInvalid);
  }
  return success(raw);
}

/** force: exactly '1' means 1 (replace the oldest document at the maximum); anything else 0. */
export function parseForce(raw: Raw): boolean {
  return raw === '1';
}

export type SearchReturnType = 'xml' | 'json';

/** The {format} path segment of search and status: 'xml' or 'json' (lower case only). */
export function parseReturnType(raw: Raw): Result<SearchReturnType> {
  return raw === 'xml' || raw === 'json'
    ? success(raw)
    : failure(SEARCH_ERRORS.search.returnTypeInvalid);
}

export interface SearchParamsInput {
  q?: Raw;
  start?: Raw;
  len?: Raw;
  ca?: Raw;
  ex_ca?: Raw;
  sort?: Raw;
  startdate?: Raw;
  enddate?: Raw;
}

export interface SearchParams {
  /** trimmed */
  q: string;
  start: number;
  len: number;
  ca: number[] | null;
  exCa: number[] | null;
  /** 0: relevance, 1: newest first (score_regdate) */
  sort: 0 | 1;
  /** inclusive bounds on score_regdate: exact integer text (seconds) */
  startdate: string | null;
  enddate: string | null;
}

/** An optional parameter that is missing, empty or whitespace only counts as absent. */
function present(raw: Raw): string | null {
  return raw === undefined || raw === null || raw.trim() === '' ? null : raw.trim();
}

/** '1, 2,3' → [1, 2, 3]; entries are digits (≤ categoryMax), empty entries are invalid. */
function parseCategoryList(raw: string, maxEntries = Infinity): number[] | null {
  const entries = raw.split(',');
  if (entries.length > maxEntries) return null;
  const out: number[] = [];
  for (const entry of entries) {
    const n = parseDigits(entry.trim(), SEARCH_LIMITS.categoryMax);
    if (n === null) return null;
    out.push(n);
  }
  return out;
}

function parseRange(raw: string | null, min: number, max: number, dflt: number): number | null {
  if (raw === null) return dflt;
  const n = parseDigits(raw, max);
  return n !== null && n >= min ? n : null;
}

function parseDate(raw: string | null): string | null | undefined {
  return raw === null ? null : (parseUnixTime(raw) ?? undefined);
}

/** The search parameters, checked in the order of the spec's Search table. */
export function parseSearchParams(raw: SearchParamsInput): Result<SearchParams> {
  const errors = SEARCH_ERRORS.search;
  const q = raw.q?.trim() ?? '';
  if (q === '') return failure(errors.qNull);
  if (utf8ByteLength(q) > SEARCH_LIMITS.qMaxBytes) return failure(errors.qTooLong);
  if (hasNulOrLoneSurrogate(q)) return failure(errors.qInvalidEncoding);

  const caText = present(raw.ca);
  const ca = caText === null ? null : parseCategoryList(caText);
  if (caText !== null && ca === null) return failure(errors.caInvalid);
  const exCaText = present(raw.ex_ca);
  const exCa = exCaText === null ? null : parseCategoryList(exCaText, SEARCH_LIMITS.exCaMaxEntries);
  if (exCaText !== null && exCa === null) return failure(errors.exCaInvalid);

  const { startMin, startMax, lenMin, lenMax, lenDefault, fixedLenAtStartMax } = SEARCH_LIMITS;
  const start = parseRange(present(raw.start), startMin, startMax, startMin);
  if (start === null) return failure(errors.startInvalid);
  const len = parseRange(present(raw.len), lenMin, lenMax, lenDefault);
  if (len === null) return failure(errors.lenInvalid);

  const sortText = present(raw.sort) ?? '0';
  if (sortText !== '0' && sortText !== '1') return failure(errors.sortInvalid);

  const startdate = parseDate(present(raw.startdate));
  if (startdate === undefined) return failure(errors.startdateInvalid);
  const enddate = parseDate(present(raw.enddate));
  if (enddate === undefined) return failure(errors.enddateInvalid);
  if (startdate !== null && enddate !== null && Number(enddate) < Number(startdate)) {
    return failure(errors.enddateInvalid);
  }

  return success({
    q,
    start,
    len: start === startMax ? fixedLenAtStartMax : len,
    ca,
    exCa,
    sort: sortText === '1' ? 1 : 0,
    startdate,
    enddate,
  });
}

export interface FieldUpdateInput {
  fieldname?: Raw;
  fieldvalue?: Raw;
}

export interface FieldUpdate {
  fieldname: string;
  /** canonical int64 integer text */
  value: string;
}

function checkFieldname(raw: Raw): ContractError | null {
  const errors = SEARCH_ERRORS.fieldUpdate;
  if (raw === undefined || raw === null) return errors.fieldnameNull;
  if (raw.trim() === '') return errors.fieldnameEmpty;
  const kind = fieldKind(raw);
  if (kind === null) return errors.fieldnameInvalid;
  return kind === 'score' ? null : errors.fieldtypeInvalid;
}

/**
 * fieldname: missing → null; blank → empty; bad format or reserved clash → invalid; a valid
 * name of another type than score → fieldtype is invalid. fieldvalue: missing → null; not an
 * int64 integer ('-'? digits) → invalid; for score_regdate also 0..regdateMax.
 */
export function parseFieldUpdate(raw: FieldUpdateInput): Result<FieldUpdate> {
  const errors = SEARCH_ERRORS.fieldUpdate;
  const nameError = checkFieldname(raw.fieldname);
  if (nameError) return failure(nameError);
  const fieldname = raw.fieldname!;
  if (raw.fieldvalue === undefined || raw.fieldvalue === null)
    return failure(errors.fieldvalueNull);
  const text = raw.fieldvalue;
  const value = fieldname === REGDATE_FIELD ? parseUnixTime(text) : parseScoreValue(text);
  return value === null ? failure(errors.fieldvalueInvalid) : success({ fieldname, value });
}
