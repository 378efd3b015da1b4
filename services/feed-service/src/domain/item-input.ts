import { FEED_CATEGORY_CODES, FEED_ERRORS, isFeedCategory } from '@hub/contracts';
import { hasNonXmlChar, ServiceError } from '@hub/service-kit';
import type { Enclosure, ItemFields } from '../store/item-types';
import { parsePubDate } from './dates';

/** Upper bounds of the item fields, in characters (Unicode code points). See README "Limits". */
export const ITEM_LIMITS = {
  title: 300,
  link: 2048,
  description: 20_000,
  creator: 200,
  author: 320,
  enclosureUrl: 2048,
  enclosureType: 255,
  /** digits of enclosure.length */
  enclosureLength: 18,
} as const;

const FIELDS = new Set([
  'title',
  'link',
  'description',
  'category',
  'creator',
  'author',
  'pubDate',
  'enclosure',
]);
const ENCLOSURE_FIELDS = new Set(['url', 'length', 'type']);

/** `name@example.com` or `name@example.com (Display Name)`: what RSS asks of <author>. */
const AUTHOR = /^[^\s@()<>]+@[^\s@()<>]+(?: \([^()\r\n]+\))?$/;
/**
 * URI characters (RFC 3986 minus '[' and ']', which only bracket IPv6 hosts) with
 * well-formed %-escapes. Anything else (spaces, '<', raw Korean) would make the RSS fail
 * the W3C feed validator, so publishers percent-encode it (browsers display it decoded).
 */
const URI_TEXT = /^(?:[A-Za-z0-9\-._~:/?#@!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$/;
const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$/;

/** A 422 whose message names the field: the contract's text, then the detail. */
export function invalidField(detail: string): ServiceError {
  const { status, text } = FEED_ERRORS.invalidParameter;
  return new ServiceError({ status, text: `${text}: ${detail}` });
}

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) i++;
    n++;
  }
  return n;
}

function text(value: unknown, field: string, max: number, required: boolean): string | undefined {
  if (value === undefined || value === null) {
    if (required) throw invalidField(`${field} is required`);
    return undefined;
  }
  if (typeof value !== 'string') throw invalidField(`${field} must be a string`);
  if (value.trim() === '') {
    if (required) throw invalidField(`${field} must not be empty`);
    return undefined;
  }
  if (codePoints(value) > max) throw invalidField(`${field} must be at most ${max} characters`);
  if (hasNonXmlChar(value))
    throw invalidField(`${field} contains a control character or an unpaired surrogate`);
  return value;
}

function httpUrl(value: unknown, field: string, max: number): string {
  const s = text(value, field, max, true)!;
  let url: URL | undefined;
  try {
    url = new URL(s);
  } catch {
    url = undefined;
  }
  if (
    !url ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    !url.hostname ||
    !/^https?:\/\/[^/]/i.test(s)
  ) {
    throw invalidField(`${field} must be an absolute http or https URL`);
  }
  if (!URI_TEXT.test(s))
    throw invalidField(
      `${field} must contain only URI characters (percent-encode others, e.g. %ED%95%9C)`,
    );
  return s; // as sent, byte for byte
}

function enclosure(value: unknown): Enclosure | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalidField('enclosure must be an object');
  const e = value as Record<string, unknown>;
  for (const k of Object.keys(e))
    if (!ENCLOSURE_FIELDS.has(k))
      throw invalidField(`enclosure.${fieldName(k)} is not a known field`);
  const url = httpUrl(e.url, 'enclosure.url', ITEM_LIMITS.enclosureUrl);
  let length: string | null = null;
  if (e.length !== undefined && e.length !== null) {
    const raw =
      typeof e.length === 'number' && Number.isSafeInteger(e.length) ? String(e.length) : e.length;
    if (typeof raw !== 'string' || !/^\d+$/.test(raw) || raw.length > ITEM_LIMITS.enclosureLength) {
      throw invalidField(
        `enclosure.length must be a non-negative integer (bytes) of at most ${ITEM_LIMITS.enclosureLength} digits`,
      );
    }
    length = raw;
  }
  const type = text(e.type, 'enclosure.type', ITEM_LIMITS.enclosureType, false) ?? null;
  if (type !== null && !MIME_TYPE.test(type))
    throw invalidField('enclosure.type must be a MIME type such as image/jpeg');
  return { url, length, type };
}

function fieldName(k: string): string {
  return JSON.stringify(k.length > 40 ? `${k.slice(0, 40)}…` : k);
}

/** A valid item as sent. */
export interface ItemInput {
  fields: ItemFields;
  /** false when pubDate was left out (fields.pubDate is then `now`) */
  pubDateGiven: boolean;
}

/**
 * A publisher's JSON item → the fields to store, or a 422 naming the first bad field.
 * pubDate: RFC 822 or ISO 8601 (with offset); absent → `now`.
 */
export function parseItemInput(body: unknown, now: Date): ItemInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalidField('the body must be a JSON object');
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b))
    if (!FIELDS.has(k)) throw invalidField(`${fieldName(k)} is not a known field`);
  const title = text(b.title, 'title', ITEM_LIMITS.title, true)!;
  const link = httpUrl(b.link, 'link', ITEM_LIMITS.link);
  const description = text(b.description, 'description', ITEM_LIMITS.description, true)!;
  if (b.category === undefined || b.category === null) throw invalidField('category is required');
  if (!isFeedCategory(b.category))
    throw invalidField(`category must be one of ${FEED_CATEGORY_CODES.join(', ')}`);
  const creator = text(b.creator, 'creator', ITEM_LIMITS.creator, true)!;
  const author = text(b.author, 'author', ITEM_LIMITS.author, false) ?? null;
  if (author !== null && !AUTHOR.test(author))
    throw invalidField('author must be an e-mail address, optionally followed by " (Name)"');
  let pubDate = now;
  const pubDateGiven = b.pubDate !== undefined && b.pubDate !== null;
  if (pubDateGiven) {
    if (typeof b.pubDate !== 'string') throw invalidField('pubDate must be a string');
    const parsed = parsePubDate(b.pubDate);
    if (!parsed)
      throw invalidField(
        'pubDate must be an RFC 822 or ISO 8601 date-time with a time zone, between 1970 and 9999',
      );
    pubDate = parsed;
  }
  const fields: ItemFields = {
    title,
    link,
    description,
    category: b.category,
    creator,
    author,
    pubDate,
    enclosure: enclosure(b.enclosure),
  };
  return { fields, pubDateGiven };
}

/** Item ids are positive int8 values; anything else names no item. */
export function parseItemId(raw: string): string | undefined {
  if (!/^[1-9]\d{0,18}$/.test(raw)) return undefined;
  return BigInt(raw) <= 9223372036854775807n ? raw : undefined;
}
