import { SEARCH_LIMITS } from './limits';

/** The field types of the spec: contents (string), icontents (indexed string), score (int64). */
export const FIELD_TYPES = ['contents', 'icontents', 'score'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** The only field name without a {type}_ prefix. */
export const CATEGORIES_FIELD = 'categories';

/** What a field name stands for: one of the three types, or the categories list. */
export type FieldKind = FieldType | typeof CATEGORIES_FIELD;

export interface ReservedField {
  readonly name: string;
  readonly kind: FieldKind;
  /** the spec's Type column */
  readonly type: string;
  readonly required: boolean;
  readonly meaning: string;
}

/** The spec's "Reserved fields of doc" table. */
export const RESERVED_FIELDS: readonly ReservedField[] = [
  {
    name: 'contents_url',
    kind: 'contents',
    type: 'string',
    required: false,
    meaning: 'document URL',
  },
  {
    name: 'icontents_title',
    kind: 'icontents',
    type: 'indexed string',
    required: true,
    meaning: 'document title',
  },
  {
    name: 'icontents_body',
    kind: 'icontents',
    type: 'indexed string',
    required: true,
    meaning: 'document body',
  },
  {
    name: 'score_regdate',
    kind: 'score',
    type: 'number (UNIX timestamp)',
    required: true,
    meaning: 'registration date of the document',
  },
  {
    name: 'contents_image',
    kind: 'contents',
    type: 'string',
    required: false,
    meaning: 'URL of the original image, used to create thumbnails',
  },
  {
    name: CATEGORIES_FIELD,
    kind: CATEGORIES_FIELD,
    type: 'list of numbers (JSON number array)',
    required: false,
    meaning: 'categories of the document',
  },
];

export const TITLE_FIELD = 'icontents_title';
export const BODY_FIELD = 'icontents_body';
export const REGDATE_FIELD = 'score_regdate';
export const URL_FIELD = 'contents_url';
export const IMAGE_FIELD = 'contents_image';

/** The name parts taken by reserved fields: url, title, body, regdate, image, categories. */
export const RESERVED_NAME_PARTS: readonly string[] = RESERVED_FIELDS.map(
  (f) => parseFieldName(f.name)?.name ?? f.name,
);

export interface FieldName {
  readonly type: FieldType;
  readonly name: string;
}

/**
 * Splits `{type}_{name}`: type one of FIELD_TYPES (lower case), name 1..64 ASCII letters and
 * digits. Anything else (including `categories`) → null.
 */
export function parseFieldName(fieldName: string): FieldName | null {
  const m = /^(contents|icontents|score)_([A-Za-z0-9]+)$/.exec(fieldName);
  if (!m || m[2]!.length > SEARCH_LIMITS.fieldNameMaxLength) return null;
  return { type: m[1] as FieldType, name: m[2]! };
}

export function isReservedField(fieldName: string): boolean {
  return RESERVED_FIELDS.some((f) => f.name === fieldName);
}

/**
 * The kind of a field name allowed in a doc, or null when it is invalid: not of the form
 * `{type}_{name}` (and not `categories`), or a user field that reuses a reserved name part
 * under another name (`contents_title`, `score_body`, `icontents_regdate`, `score_image`,
 * `icontents_url`, `contents_categories`). The comparison ignores case (`icontents_Title`
 * is refused too) so no user field can be confused with a reserved one.
 */
export function fieldKind(fieldName: string): FieldKind | null {
  if (fieldName === CATEGORIES_FIELD) return CATEGORIES_FIELD;
  const parsed = parseFieldName(fieldName);
  if (!parsed) return null;
  if (isReservedField(fieldName)) return parsed.type;
  const part = parsed.name.toLowerCase();
  return RESERVED_NAME_PARTS.includes(part) ? null : parsed.type;
}

export function isValidFieldName(fieldName: string): boolean {
  return fieldKind(fieldName) !== null;
}
