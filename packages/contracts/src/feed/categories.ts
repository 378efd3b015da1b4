/** Category codes of the feed spec ("Category codes (allowed values)"). */
export const FEED_CATEGORIES = [
  { code: 'life', meaning: 'life' },
  { code: 'culture', meaning: 'culture' },
  { code: 'trip', meaning: 'travel' },
  { code: 'it', meaning: 'technology' },
  { code: 'food', meaning: 'food' },
  { code: 'biz', meaning: 'business' },
] as const;

export type FeedCategoryCode = (typeof FEED_CATEGORIES)[number]['code'];

export const FEED_CATEGORY_CODES: readonly FeedCategoryCode[] = FEED_CATEGORIES.map((c) => c.code);

export function isFeedCategory(value: unknown): value is FeedCategoryCode {
  return typeof value === 'string' && (FEED_CATEGORY_CODES as readonly string[]).includes(value);
}
