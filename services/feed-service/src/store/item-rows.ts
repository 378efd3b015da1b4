import type { ItemFields, StoredItem } from './item-types';

/** feed_items rows and the item they hold. */

export interface ItemRow {
  id: string;
  title: string;
  link: string;
  description: string;
  category: string;
  creator: string;
  author: string | null;
  pub_date: Date;
  enclosure_url: string | null;
  enclosure_length: string | null;
  enclosure_type: string | null;
  updated_at: Date;
}

export const COLUMNS =
  'id, title, link, description, category, creator, author, pub_date, enclosure_url, enclosure_length, enclosure_type, updated_at';

export function toItem(row: ItemRow): StoredItem {
  return {
    id: row.id,
    title: row.title,
    link: row.link,
    description: row.description,
    category: row.category,
    creator: row.creator,
    author: row.author,
    pubDate: row.pub_date,
    enclosure:
      row.enclosure_url === null
        ? null
        : { url: row.enclosure_url, length: row.enclosure_length, type: row.enclosure_type },
    updatedAt: row.updated_at,
  };
}

export function values(f: ItemFields): unknown[] {
  return [
    f.title,
    f.link,
    f.description,
    f.category,
    f.creator,
    f.author,
    f.pubDate,
    f.enclosure?.url ?? null,
    f.enclosure?.length ?? null,
    f.enclosure?.type ?? null,
  ];
}
