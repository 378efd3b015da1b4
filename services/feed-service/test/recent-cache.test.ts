import { RecentCache } from '../src/cache/recent-cache';

test('When more entries arrive than two generations hold, the cache stays bounded and keeps the entries in use', () => {
  const cache = new RecentCache<string, number>(100);
  cache.set('hot', 0);
  for (let i = 0; i < 10_000; i++) {
    cache.set(`t${i}`, i);
    expect(cache.get('hot')).toBe(0); // used all the time: never dropped
    expect(cache.size).toBeLessThanOrEqual(200);
  }
  expect(cache.get('t9999')).toBe(9999);
  expect(cache.get('t0')).toBeUndefined(); // unused for more than a generation: gone
  cache.delete('hot');
  expect(cache.get('hot')).toBeUndefined();
});
