import { randomUUID } from 'node:crypto';

/** What a client may send as X-Request-Id to have it kept (one id then follows a call across services). */
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface RequestIds {
  /** The client's X-Request-Id when it is sane, else a new id. */
  for(given: string | string[] | undefined): string;
}

/**
 * Request ids without random bytes per request: a random UUID once per generator, its last 12
 * hex digits replaced by a counter. Same shape as a UUID, unique per generator (2^48
 * requests), and 74 random bits apart between generators (processes, apps).
 */
export function createRequestIds(): RequestIds {
  const prefix = randomUUID().slice(0, 24);
  let count = 0;
  return {
    for(given) {
      if (typeof given === 'string' && SANE_ID.test(given)) return given;
      return prefix + (++count).toString(16).padStart(12, '0');
    },
  };
}
