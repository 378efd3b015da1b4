import dns from 'node:dns';
import {
  fetchImage,
  ImageFetchError,
  isPublicAddress,
  type FetchLimits,
} from '../src/thumbnails/fetch-image';
import { rejectionOf } from './helpers/rejection';
import { startImageServer, type ImageServer } from './thumbnails-image-server';

/**
 * Every spelling of a private address in an image URL (or in a redirect's Location) must be
 * refused before anything is sent: the URL parser turns the IPv4 spellings into dotted quads,
 * and the IPv6 spellings keep their embedded IPv4 address, which the guard must see through.
 */

let images: ImageServer;
beforeAll(async () => {
  images = await startImageServer();
});
afterAll(() => images.close());
afterEach(() => jest.restoreAllMocks());

const fetchError = (p: Promise<unknown>) => rejectionOf(p, ImageFetchError);

function hits(): number {
  return [...images.hits.values()].reduce((a, b) => a + b, 0);
}

/** Fetching `url` (2 s timeout, `limits` on top) is refused for good, naming `message`. */
async function expectRefused(url: string, message: string, limits: FetchLimits = {}) {
  const err = await fetchError(fetchImage(url, { timeoutMs: 2000, ...limits }));
  expect(err.permanent).toBe(true);
  expect(err.message).toBe(message);
}

/** expectRefused, before any request reached the image server. */
async function expectRefusedUnsent(url: string, message: string) {
  const before = hits();
  await expectRefused(url, message);
  expect(hits()).toBe(before);
}

// [rule, host as written in the URL, address the refusal names]
const spellingsOf127001: Array<[string, string, string]> = [
  ['as a decimal number', '2130706433', '127.0.0.1'],
  ['in octal', '0177.0.0.1', '127.0.0.1'],
  ['as one octal number', '017700000001', '127.0.0.1'],
  ['in hex', '0x7f.0x0.0x0.0x1', '127.0.0.1'],
  ['as one hex number', '0x7f000001', '127.0.0.1'],
  ['in the short form 127.1', '127.1', '127.0.0.1'],
  ['in the short form 127.0.1', '127.0.1', '127.0.0.1'],
  ['with a trailing dot', '127.0.0.1.', '127.0.0.1'],
  ['as an IPv4-mapped IPv6 address', '[::ffff:127.0.0.1]', '::ffff:7f00:1'],
  ['as an IPv4-mapped IPv6 address in hex', '[::ffff:7f00:1]', '::ffff:7f00:1'],
  ['as an IPv4-compatible IPv6 address', '[::7f00:1]', '::7f00:1'],
  ['as an IPv4-compatible IPv6 address in dotted form', '[::127.0.0.1]', '::7f00:1'],
];

describe('the image URL names a private address in another spelling', () => {
  test.each(spellingsOf127001)(
    'When the image URL spells 127.0.0.1 %s (%s), the fetch is refused',
    async (_rule, host, refused) => {
      const url = `http://${host}:${images.port}/a.jpg`;
      await expectRefusedUnsent(url, `address ${refused} is not allowed`);
    },
  );
});

// 127.0.0.2 (the server listens on 127.0.0.1 only): the first hop to 127.0.0.1 is allowed by
// the test's rule, the redirect target is judged by the real one
const spellingsOf127002: Array<[string, string, string]> = [
  ['as a decimal number', '2130706434', '127.0.0.2'],
  ['in octal', '0177.0.0.2', '127.0.0.2'],
  ['in hex', '0x7f.0.0.0x2', '127.0.0.2'],
  ['as one hex number', '0x7f000002', '127.0.0.2'],
  ['in the short form 127.2', '127.2', '127.0.0.2'],
  ['as an IPv4-mapped IPv6 address', '[::ffff:127.0.0.2]', '::ffff:7f00:2'],
  ['as an IPv4-compatible IPv6 address', '[::7f00:2]', '::7f00:2'],
];

describe('a redirect names a private address in another spelling', () => {
  const only127001 = (a: string) => a === '127.0.0.1' || isPublicAddress(a);

  test.each(spellingsOf127002)(
    'When a redirect spells 127.0.0.2 %s (%s), the hop is refused',
    async (_rule, host, refused) => {
      const target = `http://${host}:${images.port}/a.jpg`;
      await expectRefused(
        `${images.url}/to?u=${encodeURIComponent(target)}`,
        `address ${refused} is not allowed`,
        { isAllowedAddress: only127001 },
      );
    },
  );
});

describe('IPv4-compatible IPv6 addresses (::/96, deprecated)', () => {
  test.each(['::7f00:1', '::127.0.0.1', '::a00:1', '::a9fe:a9fe', '::808:808', '::8.8.8.8'])(
    'When the address is the IPv4-compatible IPv6 address %s, it is refused',
    (address) => {
      expect(isPublicAddress(address)).toBe(false);
    },
  );

  test('When a host name resolves to an IPv4-compatible IPv6 address, the fetch is refused', async () => {
    type LookupAll = (
      hostname: string,
      options: dns.LookupAllOptions,
      callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
    ) => void;
    const real = dns.lookup.bind(dns) as LookupAll;
    const fake: LookupAll = (hostname, options, callback) => {
      if (hostname !== 'images.example') return real(hostname, options, callback);
      callback(null, [{ address: '::7f00:1', family: 6 }]);
    };
    jest.spyOn(dns, 'lookup').mockImplementation(fake as unknown as typeof dns.lookup);
    await expectRefusedUnsent(
      `http://images.example:${images.port}/a.jpg`,
      'address ::7f00:1 of images.example is not allowed',
    );
  });
});
