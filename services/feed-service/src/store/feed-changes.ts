import type pg from 'pg';
import type { FeedKey } from './item-types';

/** NOTIFY channel announcing changed feeds; the payload lists feed keys ("all,it"). */
export const FEED_CHANGES_CHANNEL = 'feed_items_changed';

/** Feeds touched by a change of items in these categories: always 'all', plus each category. */
export function touchedFeeds(categories: readonly string[]): FeedKey[] {
  return ['all', ...[...new Set(categories)].sort()] as FeedKey[];
}

/**
 * Records the change time of every touched feed and announces them. Both happen in the
 * writer's transaction: listeners hear of the change only when it is committed. Rows are
 * locked in one order ('all' first, then sorted codes) so concurrent writers cannot deadlock.
 */
export async function markChanged(client: pg.PoolClient, categories: string[]): Promise<void> {
  const feeds = touchedFeeds(categories);
  await client.query(
    `INSERT INTO feed_state (feed, changed_at) SELECT unnest($1::text[]), clock_timestamp()
     ON CONFLICT (feed) DO UPDATE SET changed_at = GREATEST(feed_state.changed_at, EXCLUDED.changed_at)`,
    [feeds],
  );
  await client.query('SELECT pg_notify($1, $2)', [FEED_CHANGES_CHANNEL, feeds.join(',')]);
}
