import type pg from 'pg';
import { asIs, inTransaction } from '@hub/service-kit';
import { markChanged } from './feed-changes';
import { COLUMNS, toItem, values, type ItemRow } from './item-rows';
import type { FeedKey, FeedSnapshot, ItemFields, StoredItem } from './item-types';

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
export interface ItemsRepository {
  /** The latest `limit` items of a feed, newest first by pubDate (ties: newest id first). */
  latest(feed: FeedKey, limit: number): Promise<FeedSnapshot>;
  /**
   * Stores a new item, unless its link is taken: then the item that has the link (after
   * waiting for a concurrent writer of that link to commit). One row per link is the
   * database's own rule (feed_items_link_key), so racing writers cannot both insert.
   */
  insert(fields: ItemFields): Promise<InsertOutcome>;
  /** The item whose link (= guid) this is, if any. */
  byLink(link: string): Promise<StoredItem | undefined>;
  /** Full replacement; 'missing' when there is no such item, 'link-taken' when another item has the link. */
  replace(id: string, fields: ItemFields): Promise<ReplaceOutcome>;
  /** The removed item's category; undefined when there is no such item. */
  remove(id: string): Promise<string | undefined>;
}

export function createItemsRepository(pool: pg.Pool): ItemsRepository {
  function transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(pool, asIs, work);
  }

  async function latest(feed: FeedKey, limit: number): Promise<FeedSnapshot> {
    const { rows } =
      feed === 'all'
        ? await pool.query<ItemRow & { feed_changed_at: Date | null; read_at: Date }>(LATEST_ALL, [
            limit,
          ])
        : await pool.query<ItemRow & { feed_changed_at: Date | null; read_at: Date }>(
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

  async function insert(fields: ItemFields): Promise<InsertOutcome> {
    for (let attempt = 0; ; attempt++) {
      const created = await transaction(async (client) => {
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
      const existing = await byLink(fields.link);
      if (existing) return { created: false, stored: existing };
      // the item having the link was deleted in between: the link is free again
      if (attempt >= MAX_LINK_RETRIES) throw new Error(`link kept changing hands: ${fields.link}`);
    }
  }

  async function byLink(link: string): Promise<StoredItem | undefined> {
    const { rows } = await pool.query<ItemRow>(
      `SELECT ${COLUMNS} FROM feed_items WHERE link = $1`,
      [link],
    );
    return rows[0] && toItem(rows[0]);
  }

  async function replace(id: string, fields: ItemFields): Promise<ReplaceOutcome> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await transaction(async (client) => {
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
        const holder = await byLink(fields.link);
        if (holder && holder.id !== id) return { kind: 'link-taken', holder };
        // the other item let go of the link in between
        if (attempt >= MAX_LINK_RETRIES) throw err;
      }
    }
  }

  async function remove(id: string): Promise<string | undefined> {
    return transaction(async (client) => {
      const { rows } = await client.query<{ category: string }>(
        'DELETE FROM feed_items WHERE id = $1 RETURNING category',
        [id],
      );
      if (rows.length === 0) return undefined;
      await markChanged(client, [rows[0]!.category]);
      return rows[0]!.category;
    });
  }

  return { latest, insert, byLink, replace, remove };
}
