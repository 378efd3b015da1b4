import sharp from 'sharp';
import { fetchImage, ImageFetchError, isPublicAddress } from '../src/thumbnails/fetch-image';
import { rejectionOf } from './helpers/rejection';
import { makeThumbnail, parseThumbnailBox } from '../src/thumbnails/resize';
import { startImageServer, startSilentServer, type ImageServer } from './thumbnails-image-server';

let images: ImageServer;
beforeAll(async () => {
  images = await startImageServer();
});
afterAll(() => images.close());

const open = { allowPrivateNetworks: true, timeoutMs: 1000, maxBytes: 1024 * 1024 };
// pretends 127.0.0.1 is a public address, so that redirects onward can be judged by the real rule
const only127001 = (a: string) => a === '127.0.0.1' || isPublicAddress(a);

const fetchError = (p: Promise<unknown>) => rejectionOf(p, ImageFetchError);

describe('address policy', () => {
  test.each([
    '127.0.0.1',
    '127.0.0.2',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
    '2002:a00:1::',
    'not-an-ip',
  ])('When the address is %s, it is refused', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  test.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '::ffff:93.184.216.34',
  ])('When the address is public (%s), it is allowed', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('fetching originals', () => {
  test('When the original is a JPEG, its bytes and type come back', async () => {
    const r = await fetchImage(`${images.url}/a.jpg`, open);
    expect(r.contentType).toBe('image/jpeg');
    expect((await sharp(r.body).metadata()).width).toBe(800);
  });

  test('When private networks are not allowed, loopback is refused by IP and by resolved name', async () => {
    const byIp = await fetchError(
      fetchImage(`${images.url}/a.jpg`, { allowPrivateNetworks: false }),
    );
    expect(byIp.permanent).toBe(true);
    expect(byIp.message).toMatch(/127\.0\.0\.1 is not allowed/);
    const byName = await fetchError(
      fetchImage(`http://localhost:${images.port}/a.jpg`, { allowPrivateNetworks: false }),
    );
    expect(byName.permanent).toBe(true);
    expect(byName.message).toMatch(/not allowed/);
    expect(images.hits.get('/a.jpg')).toBe(1); // only the allowed fetch above reached the server
  });

  test('When a redirect leads to a private address, the hop is refused (each hop is checked)', async () => {
    for (const target of [
      `http://127.0.0.2:${images.port}/a.jpg`,
      `http://[::1]:${images.port}/a.jpg`,
    ]) {
      const err = await fetchError(
        fetchImage(`${images.url}/to?u=${encodeURIComponent(target)}`, {
          isAllowedAddress: only127001,
        }),
      );
      expect(err.permanent).toBe(true);
      expect(err.message).toMatch(/not allowed/);
    }
    // the same redirect is followed when private networks are allowed
    const ok = await fetchImage(
      `${images.url}/to?u=${encodeURIComponent(`http://localhost:${images.port}/a.jpg`)}`,
      open,
    );
    expect(ok.url).toBe(`http://localhost:${images.port}/a.jpg`);
  });

  test('When redirects chain, at most 3 are followed', async () => {
    await expect(fetchImage(`${images.url}/redirect/3`, open)).resolves.toMatchObject({
      url: `${images.url}/a.jpg`,
    });
    const err = await fetchError(fetchImage(`${images.url}/redirect/4`, open));
    expect(err.message).toMatch(/more than 3 redirects/);
  });

  test('When the scheme is not http(s) or the URL has credentials, nothing is fetched', async () => {
    for (const url of [
      'file:///etc/passwd',
      'ftp://example.com/a.jpg',
      'data:image/png;base64,AAAA',
      `http://u:p@127.0.0.1:${images.port}/a.jpg`,
    ]) {
      expect((await fetchError(fetchImage(url, open))).permanent).toBe(true);
    }
    const viaRedirect = await fetchError(
      fetchImage(`${images.url}/to?u=${encodeURIComponent('file:///etc/passwd')}`, open),
    );
    expect(viaRedirect.message).toMatch(/scheme file: is not allowed/);
  });

  test('When the body is larger than the limit (announced or not), the fetch stops', async () => {
    const declared = await fetchError(fetchImage(`${images.url}/big-declared.jpg`, open));
    expect(declared).toMatchObject({ permanent: true });
    expect(declared.message).toMatch(/more than 1048576/);
    const chunked = await fetchError(fetchImage(`${images.url}/big-chunked.jpg`, open));
    expect(chunked).toMatchObject({ permanent: true });
  });

  test('When the server is slow, the fetch times out (a transient failure)', async () => {
    const started = Date.now();
    const err = await fetchError(fetchImage(`${images.url}/slow.jpg`, { ...open, timeoutMs: 300 }));
    expect(err.permanent).toBe(false);
    expect(err.message).toMatch(/timed out/);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  test('When a server never answers, or never ends its body, the one timeout bounds the whole fetch', async () => {
    const silent = await startSilentServer();
    try {
      for (const url of [`${silent.url}/a.jpg`, `${images.url}/trickle.jpg`]) {
        const started = Date.now();
        const err = await fetchError(fetchImage(url, { ...open, timeoutMs: 400 }));
        expect([url, err.permanent, err.message]).toEqual([url, false, 'image fetch timed out']);
        expect(Date.now() - started).toBeLessThan(1500);
      }
      expect(silent.connections()).toBe(1);
    } finally {
      await silent.close();
    }
  });

  test('When the server answers 404 the failure is permanent; 503 is transient', async () => {
    expect((await fetchError(fetchImage(`${images.url}/missing.jpg`, open))).permanent).toBe(true);
    images.failures.set('/b.jpg', 1);
    expect((await fetchError(fetchImage(`${images.url}/b.jpg`, open))).permanent).toBe(false);
    await expect(fetchImage(`${images.url}/b.jpg`, open)).resolves.toBeDefined();
  });
});

describe('resizing', () => {
  const box = parseThumbnailBox('130X130')!;
  async function thumbOf(path: string) {
    const { body } = await fetchImage(`${images.url}${path}`, {
      ...open,
      maxBytes: 10 * 1024 * 1024,
    });
    return makeThumbnail(body, box);
  }

  test('When the original is a JPEG, the thumbnail is a JPEG inside 130X130 keeping the aspect ratio', async () => {
    const t = await thumbOf('/a.jpg');
    expect(t).toMatchObject({
      contentType: 'image/jpeg',
      width: 130,
      height: 97,
      sourceWidth: 800,
      sourceHeight: 600,
    });
    const meta = await sharp(t.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 130, 97]);
    expect(t.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test('When the original is a PNG with transparency, the thumbnail stays a PNG', async () => {
    const t = await thumbOf('/a.png');
    expect(t).toMatchObject({ contentType: 'image/png', width: 130, height: 97 });
    expect((await sharp(t.data).metadata()).hasAlpha).toBe(true);
  });

  test('When the original is a WebP, the thumbnail is a JPEG', async () => {
    expect(await thumbOf('/a.webp')).toMatchObject({
      contentType: 'image/jpeg',
      width: 65,
      height: 130,
    });
  });

  test('When the original is huge (6000x6000), it still becomes a 130x130 thumbnail', async () => {
    const t = await thumbOf('/huge.jpg');
    expect(t).toMatchObject({ width: 130, height: 130, sourceWidth: 6000, sourceHeight: 6000 });
  });

  test('When the original is more pixels than allowed, it is refused', async () => {
    const { body } = await fetchImage(`${images.url}/huge.jpg`, open);
    await expect(makeThumbnail(body, box, 10_000_000)).rejects.toMatchObject({ permanent: true });
  });

  test('When the original is smaller than the box, it is not enlarged', async () => {
    expect(await thumbOf('/small.png')).toMatchObject({ width: 40, height: 20 });
  });

  test('When the original is not an image (or an SVG), no thumbnail is made, permanently', async () => {
    for (const path of ['/not-image.txt', '/fake.jpg', '/svg.svg']) {
      const err = await (async () => {
        try {
          await thumbOf(path);
        } catch (e) {
          return e as ImageFetchError;
        }
        throw new Error(`${path} made a thumbnail`);
      })();
      expect(err).toBeInstanceOf(ImageFetchError);
      expect(err.permanent).toBe(true);
    }
  });

  test('When the same image is resized into another box, the key differs', async () => {
    const { body } = await fetchImage(`${images.url}/a.jpg`, open);
    const a = await makeThumbnail(body, box);
    const b = await makeThumbnail(body, parseThumbnailBox('200x100')!);
    expect(b).toMatchObject({ width: 133, height: 100 });
    expect(a.key).not.toBe(b.key);
    expect((await makeThumbnail(body, box)).key).toBe(a.key);
  });
});
