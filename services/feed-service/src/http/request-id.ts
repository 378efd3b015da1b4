import { randomUUID } from 'node:crypto';

/** What a client may send as X-Request-Id to have it kept (same rule as service-kit's). */
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Request ids for the fast path, without random bytes per request: a random UUID once
 * per process, its last 12 hex digits replaced by a counter. Same shape as a UUID,
 * unique in the process (2^48 requests), and 74 random bits apart between processes.
 */
export class RequestIds {
  private readonly prefix = randomUUID().slice(0, 24);
  private count = 0;

  /** The client's id when it is sane, else a new one. */
  for(given: string | string[] | undefined): string {
    if (typeof given === 'string' && SANE_ID.test(given)) return given;
    return this.prefix + (++this.count).toString(16).padStart(12, '0');
  }
}
