import { SEARCH_ERRORS, type ContractError, type SearchOperation } from './errors';

export interface CheckStep {
  readonly step: number;
  /** every error this step can answer, in the order it checks them */
  readonly errors: readonly ContractError[];
  /** the same, per operation, when the step differs between operations */
  readonly byOperation?: Partial<Record<SearchOperation, readonly ContractError[]>>;
  readonly note: string;
}

const { common: C, add: A, search: S, delete: D, update: U, fieldUpdate: F } = SEARCH_ERRORS;

/** The doc checks of parseDoc, in its order. */
const docChecks = (E: typeof A | typeof U): ContractError[] => [
  E.docNull,
  E.docEmpty,
  E.docInvalidUtf8,
  E.docJsonParsingFail,
  E.tooManyFields,
  E.fieldnameInvalid,
  E.categoryValueInvalid,
  E.dateInvalid,
  E.dateTooBig,
  E.scoreValueInvalid,
  E.stringValueInvalid,
  E.titleEmpty,
  E.bodyEmpty,
  E.thumbnailKeyFail,
];

const params: Partial<Record<SearchOperation, readonly ContractError[]>> = {
  add: [A.invalidEncoding, A.dockeyNull, A.dockeyInvalid, ...docChecks(A)],
  update: [U.invalidEncoding, U.dockeyNull, U.dockeyInvalid, ...docChecks(U)],
  delete: [D.dockeyNull, D.dockeyInvalid],
  fieldUpdate: [
    F.dockeyNull,
    F.dockeyEmpty,
    F.dockeyInvalid,
    F.fieldnameNull,
    F.fieldnameEmpty,
    F.fieldnameInvalid,
    F.fieldtypeInvalid,
    F.fieldvalueNull,
    F.fieldvalueInvalid,
  ],
  search: [
    S.qNull,
    S.qTooLong,
    S.qInvalidEncoding,
    S.caInvalid,
    S.exCaInvalid,
    S.startInvalid,
    S.lenInvalid,
    S.sortInvalid,
    S.startdateInvalid,
    S.enddateInvalid,
  ],
};

const state: Partial<Record<SearchOperation, readonly ContractError[]>> = {
  add: [A.alreadyExists, A.indexMaxReached],
  update: [U.dockeyInvalid],
  delete: [D.dockeyInvalid],
  fieldUpdate: [F.dockeyInvalid],
};

/**
 * The order in which the services check a request; when a request breaks several rules the
 * earliest step (and, inside a step, the earliest error) answers. Errors raised while
 * processing (503, 500) come last: they are not input checks.
 */
export const CHECK_ORDER: readonly CheckStep[] = [
  { step: 1, errors: [C.apikeyNull], note: 'apikey missing or empty (every operation)' },
  {
    step: 2,
    errors: [C.cidInvalid],
    note: 'collection id not 8 letters/digits, or unknown (every operation)',
  },
  {
    step: 3,
    errors: [C.apikeyInvalid],
    note: 'apikey not the key of that collection (every operation)',
  },
  {
    step: 4,
    errors: [C.callLimitReached],
    note: 'API call maximum exceeded; not checked for status, and a refused call is not counted',
  },
  {
    step: 5,
    errors: [S.returnTypeInvalid],
    note: '{format} path segment of search and status is not xml or json',
  },
  {
    step: 6,
    errors: Object.values(params).flat(),
    byOperation: params,
    note:
      'operation parameters: add dockey → force → doc (parseDockey, parseForce, parseDoc); ' +
      'update dockey → doc; delete dockey; field update dockey → fieldname → fieldvalue ' +
      '(parseFieldUpdate); search parseSearchParams. "invalid encoding" is answered first by ' +
      'the HTTP layer when the form body is not UTF-8 (other charset, malformed escapes); ' +
      'force never fails (anything but "1" is 0)',
  },
  {
    step: 7,
    errors: Object.values(state).flat(),
    byOperation: state,
    note:
      'state: add → document already exists, then index max reached (only with force=0); ' +
      'update, delete and field update of a dockey not in the collection → 404 dockey is ' +
      'invalid (the spec has no not-found row)',
  },
  {
    step: 8,
    errors: [
      A.thumbnailKeyFail,
      A.addProcessFail,
      A.duplicationCheckFail,
      A.userInfoFail,
      A.collectionInfoException,
      A.databaseException,
      U.updateProcessFail,
      D.deleteProcessFail,
      F.updateFieldProcessFail,
      S.makeResultFail,
      SEARCH_ERRORS.status.makeStatusResultFail,
      C.occurException,
    ],
    note:
      'processing failures, in whatever order they happen: the thumbnail of contents_image ' +
      'cannot be made (406), back-end failures (503), anything else (500 Occur Exception)',
  },
];
