import type pg from 'pg';
import type { FeedCategoryCode } from '@hub/contracts';
import { asIs, inTransaction } from '@hub/service-kit';

/** NOTIFY channel announcing changed feeds; the payload lists feed keys ("all,it"). */
export const FEED_CHANGES_CHANNEL = 'feed_items_changed';

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

interface ItemRow {
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

const COLUMNS =
  'id, title, link, description, category, creator, author, pub_date, enclosure_url, enclosure_length, enclosure_type, updated_at';

// One statement, so the items and the feed's change time come from the same snapshot
// (a Last-Modified newer than the content it describes would yield wrong 304s).
const LATEST_ALL = `
  SELECT s.changed_at AS feed_changed_at, now() AS read_at, i.*
  FROM (VALUES (1)) AS one(x)
  LEFT JOIN feed_state s ON s.feed = 'all'
  LEFT JOIN LATERAL (
    SELECT ${COLUMNS} FROM feed_items ORDER BY pub_date DESC, id DESC LIMIT $1
  ) i ON true`;
const LATEST_CATEGORY = `
  SELECT s.changed_at AS feed_changed_at, now() AS read_at, i.*
  FROM (VALUES (1)) AS one(x)
  LEFT JOIN feed_state s ON s.feed = $2
  LEFT JOIN LATERAL (
    SELECT ${COLUMNS} FROM feed_items WHERE category = $2 ORDER BY pub_date DESC, id DESC LIMIT $1
  ) i ON true`;

function toItem(row: ItemRow): StoredItem {
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

function values(f: ItemFields): unknown[] {
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

/** Feeds touched by a change of items in these categories: always 'all', plus each category. */
export function touchedFeeds(categories: readonly string[]): FeedKey[] {
  return ['all', ...[...new Set(categories)].sort()] as FeedKey[];
}

/** The unique constraint on feed_items.link (migration 1795478400000_unique_link). */
const LINK_KEY = 'feed_items_link_key';
/** A link that is freed and taken again while we look: try a few times, then fail. */
const MAX_LINK_RETRIES = 3;

function isLinkTaken(err: unknown): boolean {
  const e = err as { code?: unknown; constraint?: unknown } | undefined;
  return e?.code === '23505' && e.constraint === LINK_KEY;
}

export type InsertOutcome =
  /** stored as a new item */
  | { created: true; stored: StoredItem }
  /** nothing stored: `stored` is the item that already has the link */
  | { created: false; stored: StoredItem };

export type ReplaceOutcome =
  | { kind: 'replaced'; stored: StoredItem; oldCategory: string }
  | { kind: 'missing' }
  /** nothing changed: `holder` is the other item that has the link */
  | { kind: 'link-taken'; holder: StoredItem };

/** The items table and the per-feed change times; every write also NOTIFYs, in its transaction. */
export class ItemsRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** The latest `limit` items of a feed, newest first by pubDate (ties: newest id first). */
  async latest(feed: FeedKey, limit: number): Promise<FeedSnapshot> {
    const { rows } =
      feed === 'all'
        ? await this.pool.query<ItemRow & { feed_changed_at: Date | null; read_at: Date }>(
            LATEST_ALL,
            [limit],
          )
        : await this.pool.query<ItemRow & { feed_changed_at: Date | null; read_at: Date }>(
            LATEST_CATEGORY,
            [limit, feed],
          );
    const first = rows[0]!;
    const items = first.id === null ? [] : rows.map(toItem);
    let lastModified = first.feed_changed_at;
    for (const item of items)
      if (!lastModified || item.updatedAt > lastModified) lastModified = item.updatedAt;
    return { items, lastModified, readAt: first.read_at };
  }

  /**
   * Stores a new item, unless its link is taken: then the item that has the link (after
   * waiting for a concurrent writer of that link to commit). One row per link is the
   * database's own rule (feed_items_link_key), so racing writers cannot both insert.
   */
  async insert(fields: ItemFields): Promise<InsertOutcome> {
    for (let attempt = 0; ; attempt++) {
      const created = await this.inTransaction(async (client) => {
        const { rows } = await client.query<ItemRow>(
          `INSERT INTO feed_items (title, link, description, category, creator, author, pub_date, enclosure_url, enclosure_length, enclosure_type)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
           ON CONFLICT ON CONSTRAINT ${LINK_KEY} DO NOTHING RETURNING ${COLUMNS}`,
          values(fields),
        );
        if (rows.length === 0) return undefined;
        await markChanged(client, [fields.category]);
        return toItem(rows[0]!);
      });
      if (created) return { created: true, stored: created };
      const existing = await this.byLink(fields.link);
      if (existing) return { created: false, stored: existing };
      // the item having the link was deleted in between: the link is free again
      if (attempt >= MAX_LINK_RETRIES) throw new Error(`link kept changing hands: ${fields.link}`);
    }
  }

  /** The item whose link (= guid) this is, if any. */
  async byLink(link: string): Promise<StoredItem | undefined> {
    const { rows } = await this.pool.query<ItemRow>(
      `SELECT ${COLUMNS} FROM feed_items WHERE link = $1`,
      [link],
    );
    return rows[0] && toItem(rows[0]);
  }

  /** Full replacement; 'missing' when there is no such item, 'link-taken' when another item has the link. */
  async replace(id: string, fields: ItemFields): Promise<ReplaceOutcome> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.inTransaction(async (client) => {
          const old = await client.query<{ category: string }>(
            'SELECT category FROM feed_items WHERE id = $1 FOR UPDATE',
            [id],
          );
          if (old.rowCount === 0) return { kind: 'missing' } as const;
          const { rows } = await client.query<ItemRow>(
            `UPDATE feed_items SET title = $1, link = $2, description = $3, category = $4, creator = $5, author = $6, pub_date = $7,
               enclosure_url = $8, enclosure_length = $9, enclosure_type = $10, updated_at = clock_timestamp()
             WHERE id = $11 RETURNING ${COLUMNS}`,
            [...values(fields), id],
          );
          const oldCategory = old.rows[0]!.category;
          await markChanged(client, [oldCategory, fields.category]);
          return { kind: 'replaced', stored: toItem(rows[0]!), oldCategory } as const;
        });
      } catch (err) {
        if (!isLinkTaken(err)) throw err;
        const holder = await this.byLink(fields.link);
        if (holder && holder.id !== id) return { kind: 'link-taken', holder };
        // the other item let go of the link in between
        if (attempt >= MAX_LINK_RETRIES) throw err;
      }
    }
  }

  /** The removed item's category; undefined when there is no such item. */
  async remove(id: string): Promise<string | undefined> {
    return this.inTransaction(async (client) => {
      const { rows } = await client.query<{ category: string }>(
        'DELETE FROM feed_items WHERE id = $1 RETURNING category',
        [id],
      );
      if (rows.length === 0) return undefined;
      await markChanged(client, [rows[0]!.category]);
      return rows[0]!.category;
    });
  }

  private inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, asIs, work);
  }
}

/**
 * Records the change time of every touched feed and announces them. Both happen in the
 * writer's transaction: listeners hear of the change only when it is committed. Rows are
 * locked in one order ('all' first, then sorted codes) so concurrent writers cannot deadlock.
 */
async function markChanged(client: pg.PoolClient, categories: string[]): Promise<void> {
  const feeds = touchedFeeds(categories);
  await client.query(
    `INSERT INTO feed_state (feed, changed_at) SELECT unnest($1::text[]), clock_timestamp()
     ON CONFLICT (feed) DO UPDATE SET changed_at = GREATEST(feed_state.changed_at, EXCLUDED.changed_at)`,
    [feeds],
  );
  await client.query('SELECT pg_notify($1, $2)', [FEED_CHANGES_CHANNEL, feeds.join(',')]);
}
