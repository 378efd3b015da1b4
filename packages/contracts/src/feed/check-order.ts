import { FEED_ERRORS, type FeedErrorRow } from './errors';

/**
 * The order in which the feed-service checks a request (the feed spec is silent on it; the
 * service README's "Order of the checks"). When a request breaks several rules, the earliest
 * step answers. The route comes first (no token needed to learn that a path does not exist),
 * then the token, before anything else about the request is judged, so a caller without a
 * valid token learns nothing more. The service names its check functions after `check`.
 */
export type FeedOperation = 'read' | 'publish' | 'update' | 'delete';

export interface FeedCheckStep {
  readonly step: number;
  /** the step's name; the service's check of this step is named after it */
  readonly check: string;
  /** the operations this step applies to */
  readonly operations: readonly FeedOperation[];
  /** every error this step can answer, in the order it checks them */
  readonly errors: readonly FeedErrorRow[];
  readonly note: string;
}

const E = FEED_ERRORS;
const ALL = ['read', 'publish', 'update', 'delete'] as const;
const WRITES = ['publish', 'update', 'delete'] as const;
const WITH_BODY = ['publish', 'update'] as const;

export const FEED_CHECK_ORDER = [
  {
    step: 1,
    check: 'route',
    operations: ALL,
    errors: [E.notFound, E.methodNotAllowed],
    note: 'unknown path 404, another method on a known path 405 (with Allow); no token needed',
  },
  {
    step: 2,
    check: 'token',
    operations: ALL,
    errors: [E.authenticationFailed],
    note: 'the access token: missing, malformed, in two places, or not verifying → 401',
  },
  {
    step: 3,
    check: 'accept',
    operations: ['read'],
    errors: [E.invalidParameter, E.notFound],
    note: 'Accept missing or naming nothing usable → 422; only our vendor type of another version → 404',
  },
  {
    step: 4,
    check: 'category',
    operations: ['read'],
    errors: [E.invalidParameter],
    note: 'category_code of the category path not one of the category codes → 422',
  },
  {
    step: 5,
    check: 'scope',
    operations: WRITES,
    errors: [E.forbidden],
    note: 'a valid token without the hub:write scope → 403',
  },
  {
    step: 6,
    check: 'contentType',
    operations: WITH_BODY,
    errors: [E.unsupportedMediaType],
    note: 'a body that is not application/json (or application/*+json) → 415',
  },
  {
    step: 7,
    check: 'body',
    operations: WITH_BODY,
    errors: [E.payloadTooLarge, E.invalidParameter],
    note: 'over 256 KB → 413, then not JSON → 422',
  },
  {
    step: 8,
    check: 'item',
    operations: WITH_BODY,
    errors: [E.invalidParameter],
    note:
      'the item breaks a publishing rule → 422 naming the field; on PUT an id that cannot ' +
      'be an item id (not a positive 64-bit integer) names no item and answers 404 first',
  },
  {
    step: 9,
    check: 'id',
    operations: ['update', 'delete'],
    errors: [E.notFound],
    note: 'no item has this id → 404',
  },
  {
    step: 10,
    check: 'link',
    operations: WITH_BODY,
    errors: [E.linkConflict],
    note: 'another item has the link → 409 with Location (a POST repeating the item is a 200)',
  },
] as const satisfies readonly FeedCheckStep[];

/** The name of a step of FEED_CHECK_ORDER. */
export type FeedCheck = (typeof FEED_CHECK_ORDER)[number]['check'];

/** The names of the steps of one operation, in order. */
export function feedChecksOf<Op extends FeedOperation>(operation: Op): FeedCheckOf<Op>[] {
  return FEED_CHECK_ORDER.filter((s) =>
    (s.operations as readonly FeedOperation[]).includes(operation),
  ).map((s) => s.check as FeedCheckOf<Op>);
}

/** The names of the steps of one operation, as a type (`FeedCheckOf<'read'>`). */
export type FeedCheckOf<Op extends FeedOperation> = StepOf<(typeof FEED_CHECK_ORDER)[number], Op>;
type StepOf<S, Op> = S extends {
  readonly check: infer C;
  readonly operations: readonly (infer O)[];
}
  ? Op extends O
    ? C
    : never
  : never;
