import { feedMediaType, parseFeedAccept, type AcceptResult, type FeedFormat } from '@hub/contracts';

const MEMO_SIZE = 1000;

/**
 * Accept header → what to answer with (rules in @hub/contracts parseFeedAccept). Clients
 * repeat the same few header strings, so results are memoised per string (bounded).
 */
export class Negotiator {
  private readonly memo = new Map<string, AcceptResult>();
  readonly mediaTypes: Record<FeedFormat, string>;

  constructor(private readonly vendor: string) {
    this.mediaTypes = { xml: feedMediaType(vendor, 'xml'), json: feedMediaType(vendor, 'json') };
  }

  accept(header: string | undefined): AcceptResult {
    if (header === undefined) return { kind: 'missing' };
    let result = this.memo.get(header);
    if (result === undefined) {
      result = parseFeedAccept(header, this.vendor);
      if (this.memo.size >= MEMO_SIZE) this.memo.clear();
      this.memo.set(header, result);
    }
    return result;
  }

  /** The format of an error body: the negotiated one, or JSON when nothing could be negotiated. */
  errorFormat(header: string | undefined): FeedFormat {
    const result = this.accept(header);
    return result.kind === 'ok' ? result.format : 'json';
  }
}
