import type { FeedCategoryCode } from '@hub/contracts';

/** A feed is either every category ('all') or one category. */
export type FeedKey = 'all' | FeedCategoryCode;

export interface Enclosure {
  url: string;
  /** null: not given, rendered with the spec default */
  length: string | null;
  type: string | null;
}

/** What a publisher supplies (after validation). */
export interface ItemFields {
  title: string;
  link: string;
  description: string;
  category: FeedCategoryCode;
  creator: string;
  /** null: not given, rendered with the configured default author */
  author: string | null;
  pubDate: Date;
  enclosure: Enclosure | null;
}

export interface StoredItem extends Omit<ItemFields, 'category'> {
  id: string;
  /** a category code; rows inserted by hand may hold anything */
  category: string;
  updatedAt: Date;
}

/** One consistent read of a feed: its items and when it last changed. */
export interface FeedSnapshot {
  items: StoredItem[];
  /** newest change of this feed (writes and deletions), null when nothing is known */
  lastModified: Date | null;
  /** the database's clock at the time of the read */
  readAt: Date;
}
