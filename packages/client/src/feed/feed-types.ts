import type { FeedCategoryCode, FeedFormat } from '../contracts.js';

export interface FeedEnclosure {
  readonly url: string;
  readonly length: string;
  readonly type: string;
}

/** An item as the feed shows it. */
export interface FeedItem {
  readonly title: string;
  readonly link: string;
  readonly author: string;
  readonly description: string;
  readonly category: FeedCategoryCode;
  /** RFC 822 (`Mon, 23 Nov 2026 05:26:57 GMT`) */
  readonly pubDate: string;
  /** equals link */
  readonly guid: string;
  readonly creator: string;
  readonly enclosure?: FeedEnclosure;
}

/** The JSON feed (`application/vnd.{vendor}.resource-1.0+json`). */
export interface FeedDocument {
  readonly channel: {
    readonly title: string;
    readonly link: string;
    readonly description: string;
    readonly language: string;
    readonly copyright: string;
    readonly lastBuildDate: string;
    /** the WebSub hubs announcing changes (absent when the service has none configured) */
    readonly hub?: readonly string[];
    readonly item: readonly FeedItem[];
  };
}

/** What a read gives: the parsed JSON feed, or the RSS 2.0 text for format `xml`. */
export type FeedBody<F extends FeedFormat> = F extends 'json' ? FeedDocument : string;

export interface FeedReadOptions<F extends FeedFormat> {
  /** one category's feed; all categories when left out */
  readonly category?: FeedCategoryCode;
  /** `json` (default) or `xml` (RSS 2.0) */
  readonly format?: F;
  /**
   * An ETag to send as `If-None-Match` instead of the one the client remembers for this feed.
   * When the server answers 304 for an ETag the client does not remember, the answer has no body.
   */
  readonly etag?: string;
}

export interface FeedRead<F extends FeedFormat> {
  /** 200, or 304 when the remembered representation is still current */
  readonly status: 200 | 304;
  /** true on 304: `feed` and `text` are the remembered representation */
  readonly notModified: boolean;
  readonly etag: string | undefined;
  readonly lastModified: string | undefined;
  readonly contentType: string;
  /** the body as received */
  readonly text: string;
  readonly feed: FeedBody<F>;
}

/** 304 for an ETag given in `read({ etag })` that the client has no representation of. */
export interface FeedNotModified {
  readonly status: 304;
  readonly notModified: true;
  readonly etag: string;
  readonly feed: undefined;
}

/** What POST and PUT take. */
export interface FeedItemInput {
  readonly title: string;
  /** absolute http(s) URL; identifies the item */
  readonly link: string;
  readonly description: string;
  readonly category: FeedCategoryCode;
  readonly creator: string;
  /** `name@example.com` or `name@example.com (Name)`; default from the service's settings */
  readonly author?: string;
  /** RFC 822 or ISO 8601 with offset, or a Date (sent as RFC 822 in GMT); default now */
  readonly pubDate?: string | Date;
  readonly enclosure?: {
    readonly url: string;
    readonly length?: string | number;
    readonly type?: string;
  };
}

/** An item the write side answers with: the feed's view plus its id (a decimal string). */
export interface PublishedItem extends FeedItem {
  readonly id: string;
}

export interface PublishResult {
  /** 201 stored; 200 the same item was already stored (a safe retry, nothing written) */
  readonly status: 201 | 200;
  readonly created: boolean;
  readonly item: PublishedItem;
  /** the item's URL (`Location`) */
  readonly location: string;
}
