import {
  FEED_CHECK_ORDER,
  FEED_ERRORS,
  feedChecksOf,
  type FeedCheckOf,
  type FeedErrorRow,
  type FeedOperation,
} from '../src';

describe('FEED_CHECK_ORDER', () => {
  it('numbers its steps 1, 2, 3, ... in order, each name once', () => {
    expect(FEED_CHECK_ORDER.map((s) => s.step)).toEqual(FEED_CHECK_ORDER.map((_s, i) => i + 1));
    const names = FEED_CHECK_ORDER.map((s) => s.check);
    expect(new Set(names).size).toBe(names.length);
  });

  it('checks a read: route, token, Accept, category', () => {
    const read: FeedCheckOf<'read'>[] = ['route', 'token', 'accept', 'category'];
    expect(feedChecksOf('read')).toEqual(read);
  });

  it('checks a write: route, token, scope, then the body, the item, the id and the link', () => {
    const names = (operation: FeedOperation) => feedChecksOf(operation).join(' ');
    expect(names('publish')).toBe('route token scope contentType body item link');
    expect(names('update')).toBe('route token scope contentType body item id link');
    expect(names('delete')).toBe('route token scope id');
  });

  it('answers every error row but the server errors in some step', () => {
    const mentioned = new Set(FEED_CHECK_ORDER.flatMap((s): readonly FeedErrorRow[] => s.errors));
    const rest = Object.entries(FEED_ERRORS).filter(([, row]) => !mentioned.has(row));
    expect(rest.map(([name]) => name)).toEqual(['serverError', 'unavailable']);
  });
});
