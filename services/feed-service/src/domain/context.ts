import type { FeedCache } from '../cache/feed-cache';
import type { FeedConfig } from '../config';
import type { ItemsRepository } from '../store/items';

/** What the use cases need: settings, storage, the rendered-feed cache and a clock. */
export interface FeedContext {
  config: FeedConfig;
  items: ItemsRepository;
  cache: FeedCache;
  /** milliseconds since the epoch (tests pin it) */
  clock: () => number;
}
