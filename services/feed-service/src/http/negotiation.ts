import { feedMediaType, parseFeedAccept, type AcceptResult, type FeedFormat } from '@hub/contracts';

const MEMO_SIZE = 1000;

/**
 * Accept header → what to answer with (rules in @hub/contracts parseFeedAccept). Clients
 * repeat the same few header strings, so results are memoised per string (bounded).
 */
export interface Negotiator {
  /** the vendor media type of each format */
  readonly mediaTypes: Readonly<Record<FeedFormat, string>>;
  accept(header: string | undefined): AcceptResult;
  /** The format of an error body: the negotiated one, or JSON when nothing could be negotiated. */
  errorFormat(header: string | undefined): FeedFormat;
}

export function createNegotiator(vendor: string): Negotiator {
  const memo = new Map<string, AcceptResult>();
  const mediaTypes = { xml: feedMediaType(vendor, 'xml'), json: feedMediaType(vendor, 'json') };

  function accept(header: string | undefined): AcceptResult {
    if (header === undefined) return { kind: 'missing' };
    let result = memo.get(header);
    if (result === undefined) {
      result = parseFeedAccept(header, vendor);
      if (memo.size >= MEMO_SIZE) memo.clear();
      memo.set(header, result);
    }
    return result;
  }

  return {
    mediaTypes,
    accept,
    errorFormat(header) {
      const result = accept(header);
      return result.kind === 'ok' ? result.format : 'json';
    },
  };
}
