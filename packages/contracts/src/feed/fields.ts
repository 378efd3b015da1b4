/**
 * The channel and item tables of the feed spec, as data: the renderers write the fields in
 * table order, under these names, and the view types are derived from them.
 */
export interface FeedFieldSpec {
  readonly name: string;
  readonly required: boolean;
  readonly type: FeedFieldType;
  readonly meaning: string;
  /** The spec's default, when it names one (configurable defaults live in FEED_DEFAULTS). */
  readonly default?: string;
}

export type FeedFieldType = 'String' | 'Array' | 'object';

export const FEED_CHANNEL_FIELDS = [
  {
    name: 'title',
    required: true,
    type: 'String',
    meaning: 'API name; default is a fixed title text for hub contents',
  },
  { name: 'link', required: true, type: 'String', meaning: 'URL of the hub site' },
  {
    name: 'description',
    required: true,
    type: 'String',
    meaning: 'description; default is a fixed text meaning the latest hub contents',
  },
  {
    name: 'language',
    required: true,
    type: 'String',
    meaning: 'supported language',
    default: 'ko',
  },
  {
    name: 'copyright',
    required: true,
    type: 'String',
    meaning: 'copyright notice; rights belong to the author or provider',
  },
  {
    name: 'lastBuildDate',
    required: true,
    type: 'String',
    meaning: 'time of the API request, RFC 822 date-time',
  },
  { name: 'item', required: false, type: 'Array', meaning: 'list of content entries' },
] as const satisfies readonly FeedFieldSpec[];

export const FEED_ITEM_FIELDS = [
  { name: 'title', required: true, type: 'String', meaning: 'content title' },
  { name: 'link', required: true, type: 'String', meaning: 'content link' },
  {
    name: 'author',
    required: true,
    type: 'String',
    meaning: 'service provider',
    default: '<EMAIL> (<PROVIDER_NAME>)',
  },
  { name: 'description', required: true, type: 'String', meaning: 'content description' },
  { name: 'category', required: true, type: 'String', meaning: 'one of the category codes' },
  {
    name: 'pubDate',
    required: true,
    type: 'String',
    meaning: 'publication date, RFC 822 date-time',
  },
  {
    name: 'guid',
    required: true,
    type: 'String',
    meaning: 'content identifier; equals the value of link',
  },
  { name: 'creator', required: true, type: 'String', meaning: 'content provider (author name)' },
  {
    name: 'enclosure',
    required: false,
    type: 'object',
    meaning: 'representative image, the original without thumbnail processing',
  },
] as const satisfies readonly FeedFieldSpec[];

export const FEED_ENCLOSURE_FIELDS = [
  { name: 'url', required: false, type: 'String', meaning: 'image path' },
  { name: 'length', required: false, type: 'String', meaning: 'image size', default: '1' },
  {
    name: 'type',
    required: false,
    type: 'String',
    meaning: 'image MIME type',
    default: 'application/octet-stream',
  },
] as const satisfies readonly FeedFieldSpec[];

/** The names of a table's fields of one type. */
export type FeedFieldName<
  Table extends readonly FeedFieldSpec[],
  Type extends FeedFieldType = FeedFieldType,
> = Extract<Table[number], { readonly type: Type }>['name'];

/** The names of a table's fields of one type, in table order. */
export function feedFieldNames<Table extends readonly FeedFieldSpec[], Type extends FeedFieldType>(
  table: Table,
  type: Type,
): FeedFieldName<Table, Type>[] {
  return table.filter((field) => field.type === type).map((field) => field.name);
}

/** Defaults of the spec; every one is overridable by the service's configuration. */
export const FEED_DEFAULTS = {
  channel: {
    title: '허브 콘텐츠',
    description: '허브의 최신 콘텐츠',
    language: 'ko',
    copyright: 'Copyright belongs to the authors and providers of each content.',
  },
} as const;

/** Item author default: `<EMAIL> (<PROVIDER_NAME>)`. */
export function defaultItemAuthor(email: string, providerName: string): string {
  return `${email} (${providerName})`;
}

/** Limits: at most 100 items per response, the latest published. */
export const FEED_MAX_ITEMS = 100;
