import { FeedClient, type FeedClientOptions } from './feed/feed-client.js';
import { SearchClient, type SearchClientOptions } from './search/search-client.js';

export interface HubClientOptions {
  readonly feed: FeedClientOptions;
  readonly search: SearchClientOptions;
}

export interface HubClient {
  readonly feed: FeedClient;
  readonly search: SearchClient;
}

/** Both services at once: `hub.feed.read()`, `hub.search.search({ q })`. */
export function createHubClient(options: HubClientOptions): HubClient {
  return { feed: new FeedClient(options.feed), search: new SearchClient(options.search) };
}
