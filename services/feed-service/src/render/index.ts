import { randomBytes } from 'node:crypto';
import type { FeedFormat } from '@hub/contracts';
import { renderJson } from './json';
import { renderRss } from './rss';
import type { ChannelView, ItemView } from './view';

export * from './view';
export { renderJson } from './json';
export { renderRss } from './rss';

/**
 * A rendered feed with a hole where lastBuildDate goes: `head + date + tail` is the body.
 * Everything but the per-request date is rendered once and cached.
 */
export interface FeedTemplate {
  head: Buffer;
  tail: Buffer;
}

// Rendered in place of the date, then cut out. Random per process and plain ASCII (no
// escaping in either format); published text cannot guess it.
const HOLE = `lastBuildDate-${randomBytes(16).toString('hex')}`;

export function renderFeed(
  format: FeedFormat,
  channel: Omit<ChannelView, 'lastBuildDate'>,
  items: readonly ItemView[],
  selfUrl: string,
  hubs: readonly string[] = [],
): FeedTemplate {
  const withHole = { ...channel, lastBuildDate: HOLE };
  const text =
    format === 'json'
      ? renderJson(withHole, items, hubs)
      : renderRss(withHole, items, selfUrl, hubs);
  const at = text.indexOf(HOLE);
  if (at < 0) throw new Error('rendered feed lacks its lastBuildDate');
  return {
    head: Buffer.from(text.slice(0, at), 'utf8'),
    tail: Buffer.from(text.slice(at + HOLE.length), 'utf8'),
  };
}
