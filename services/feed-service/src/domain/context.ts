import type { FeedCache } from '../cache/feed-cache';
import type { FeedConfig } from '../config';
import type { ItemsRepository } from '../store/items';
import type { HubNotifier } from '../websub/hub-notifier';

/** What the use cases need: settings, storage, the rendered-feed cache, the hubs and a clock. */
export interface FeedContext {
  config: FeedConfig;
  items: ItemsRepository;
  cache: FeedCache;
  /** told about every feed a committed write changed (in the background) */
  hubs: HubNotifier;
  /** milliseconds since the epoch (tests pin it) */
  clock: () => number;
}
