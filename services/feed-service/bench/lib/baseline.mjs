// The baseline's bytes: what the service sends (minus the per-request headers), taken from
// the service, then checked: the bare server must send the same header lines and body.
import http from 'node:http';

export const FORMATS = ['json', 'xml'];

/** GET with these headers: status, headers, raw header lines and body. */
export function get(url, headers) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            headers: res.headers,
            rawHeaders: res.rawHeaders,
            body: Buffer.concat(chunks),
          }),
        );
      })
      .on('error', reject);
  });
}

/**
 * One GET per format from the service (and one from the Express-only service, to warm it up):
 * { json, xml } of { body (base64), headers, etag, size }, as the bare server will send them.
 */
export async function captureBodies({ appUrl, expressUrl, headers }) {
  const bodies = {};
  for (const format of FORMATS) {
    const r = await get(appUrl, headers[format]);
    await get(expressUrl, headers[format]);
    if (r.status !== 200) throw new Error(`warm-up GET answered ${r.status}`);
    // the header lines as the service wrote them (names in their case, in their order):
    // Node lower-cases every name of 4-17 characters it writes (matchHeader), which
    // allocates for 'Content-Type' but not for 'content-type', so the baseline must send
    // the same names, not the client's lower-cased view of them
    const sent = {};
    for (let i = 0; i < r.rawHeaders.length; i += 2) {
      const name = r.rawHeaders[i];
      if (!['date', 'connection', 'keep-alive'].includes(name.toLowerCase()))
        sent[name] = r.rawHeaders[i + 1];
    }
    bodies[format] = {
      body: r.body.toString('base64'),
      headers: sent,
      etag: r.headers.etag,
      size: r.body.length,
    };
  }
  return bodies;
}

/** the header lines of a response, but Date and the request id's value */
const lines = (r) =>
  r.rawHeaders
    .map((v, i, all) =>
      i % 2 ? `${all[i - 1]}: ${/^x-request-id$/i.test(all[i - 1]) ? '*' : v}` : '',
    )
    .filter((l) => l && !/^date:/i.test(l));

/**
 * The body but its lastBuildDate, which the service writes per second (the time of the
 * request) while the baseline sends the one it captured: same length, maybe another second.
 */
const withoutBuildDate = (body) =>
  body
    .toString('utf8')
    .replace(/("lastBuildDate":\s*")[^"]*"/, '$1*"')
    .replace(/(<lastBuildDate>)[^<]*</, '$1*<');

/** Throws unless the bare server (bareUrl(format)) sends the service's header lines and body. */
export async function checkSameBytes({ appUrl, bareUrl, headers }) {
  for (const format of FORMATS) {
    const [fromApp, fromBare] = [
      await get(appUrl, headers[format]),
      await get(bareUrl(format), headers[format]),
    ];
    if (
      JSON.stringify(lines(fromApp)) !== JSON.stringify(lines(fromBare)) ||
      fromApp.body.length !== fromBare.body.length ||
      withoutBuildDate(fromApp.body) !== withoutBuildDate(fromBare.body)
    )
      throw new Error(
        `the bare server does not send the service's bytes (${format}):\n${lines(fromApp).join('\n')}\n---\n${lines(fromBare).join('\n')}`,
      );
  }
}
