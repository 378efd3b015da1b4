import type { FeedContext } from '../domain/context';
import type { Authenticator } from './auth';
import type { FeedResponder } from './feed-response';
import type { Negotiator } from './negotiation';

/** What the HTTP layer (Express routes and the fast path) shares. */
export interface HttpContext {
  domain: FeedContext;
  auth: Authenticator;
  negotiator: Negotiator;
  responder: FeedResponder;
}
