import type { Request } from 'express';
import { isCollectionId, parseThumbnailSize } from '@hub/contracts';
import { parseForm } from '../http/params';
import type { SearchIndex } from '../index/search-index';
import type { CollectionLimits } from '../store/collections';
import { AdminError } from './admin-error';

/**
 * What the admin API reads from a request, checked: body fields (JSON or form), limits, ids
 * and paging. Every problem is an AdminError (400, or 404 for an id in the path).
 */

/** The most a max_documents can be, and why when the engine lowers it (appended to the error). */
export interface MaxDocumentsRule {
  max: number;
  why: string;
}

const MAX_DOCUMENTS = 2_000_000_000;

/**
 * The largest max_documents the engine counts exactly: the Meilisearch engine's maxTotalHits
 * (numfound stops there), otherwise MAX_DOCUMENTS.
 */
export function maxDocumentsRule(index: SearchIndex): MaxDocumentsRule {
  const limit = (index as Partial<{ maxDocumentsLimit: number }>).maxDocumentsLimit;
  if (limit === undefined || limit >= MAX_DOCUMENTS) return { max: MAX_DOCUMENTS, why: '' };
  return {
    max: limit,
    why: ` (the Meilisearch index counts at most ${limit} matches: MEILI_MAX_TOTAL_HITS)`,
  };
}

/** JSON or form body → plain fields (form values stay strings). */
export function bodyFields(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (!Buffer.isBuffer(body) || body.length === 0) return {};
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw new AdminError(400, 'body is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new AdminError(400, 'body must be a JSON object');
    }
    return parsed as Record<string, unknown>;
  }
  if (type === 'application/x-www-form-urlencoded' || type === '') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of parseForm(body)) out[k] = v.value;
    return out;
  }
  throw new AdminError(415, 'body must be application/json or application/x-www-form-urlencoded');
}

/** Refuses fields other than `known`. */
export function onlyFields(fields: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(fields).filter((k) => !known.includes(k));
  if (unknown.length) throw new AdminError(400, `unknown field: ${unknown.join(', ')}`);
}

/** The error of a whole number outside 0..max. */
export function outOfRange(name: string, max: number, why = ''): AdminError {
  return new AdminError(400, `${name} must be an integer from 0 to ${max}${why}`);
}

function integerField(
  fields: Record<string, unknown>,
  name: string,
  max: number,
  why = '',
): number | undefined {
  const v = fields[name];
  if (v === undefined || v === null || v === '') return undefined;
  const n =
    typeof v === 'number' ? v : typeof v === 'string' && /^[0-9]+$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < 0 || n > max) throw outOfRange(name, max, why);
  return n;
}

/** The limits given in a create or update body (absent fields are left out). */
export function limitsOf(
  fields: Record<string, unknown>,
  maxDocumentsLimit: MaxDocumentsRule,
): Partial<CollectionLimits> {
  onlyFields(fields, ['max_documents', 'max_api_calls', 'thumbnail_size']);
  const out: Partial<CollectionLimits> = {};
  const maxDocuments = integerField(
    fields,
    'max_documents',
    maxDocumentsLimit.max,
    maxDocumentsLimit.why,
  );
  if (maxDocuments !== undefined) out.maxDocuments = maxDocuments;
  const maxApiCalls = integerField(fields, 'max_api_calls', Number.MAX_SAFE_INTEGER);
  if (maxApiCalls !== undefined) out.maxApiCalls = maxApiCalls;
  const size = fields.thumbnail_size;
  if (size !== undefined && size !== null && size !== '') {
    const parsed = typeof size === 'string' ? parseThumbnailSize(size) : null;
    if (!parsed) throw new AdminError(400, 'thumbnail_size must look like 130X130 (16 to 1024)');
    out.thumbnailSize = `${parsed.width}X${parsed.height}`;
  }
  return out;
}

/** `ids` of a retry: a list of dead letter ids (digits), or absent. */
export function deadLetterIds(fields: Record<string, unknown>): string[] | undefined {
  const ids = fields.ids;
  if (ids === undefined) return undefined;
  if (
    !Array.isArray(ids) ||
    !ids.every(
      (id) => (typeof id === 'string' && /^[0-9]{1,18}$/.test(id)) || Number.isSafeInteger(id),
    )
  )
    throw new AdminError(400, 'ids must be a list of dead letter ids');
  return ids.map(String);
}

export function optionalCollectionId(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !isCollectionId(value))
    throw new AdminError(400, 'collection_id is not a collection id');
  return value;
}

/** The collection id of the path; a malformed one is a collection that does not exist. */
export function collectionIdOf(req: Request): string {
  const id = String(req.params.id);
  if (!isCollectionId(id)) throw new AdminError(404, 'collection not found');
  return id;
}

/** `?limit=` of a list: 1..1000, default (and when malformed) 100. */
export function pageLimit(req: Request): number {
  const limitText = typeof req.query.limit === 'string' ? req.query.limit : '100';
  return /^[0-9]{1,4}$/.test(limitText) ? Math.min(Math.max(Number(limitText), 1), 1000) : 100;
}

/** The `next_after` of a list page: the last id when the page is full, else null. */
export function nextAfter(list: ReadonlyArray<{ id: string }>, limit: number): string | null {
  return list.length === limit ? list[list.length - 1]!.id : null;
}
