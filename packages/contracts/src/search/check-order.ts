import { SEARCH_ERRORS, type ContractError, type SearchOperation } from './errors';

export interface CheckStep {
  /** 1, 2, ...: the step's place in CHECK_ORDER */
  readonly step: number;
  /** every error this step can answer, in the order it checks them */
  readonly errors: readonly ContractError[];
  /** the same, per operation, when the step differs between operations */
  readonly byOperation?: Partial<Record<SearchOperation, readonly ContractError[]>>;
  readonly note: string;
}

const { common, add, search, delete: deletion, update, fieldUpdate, status } = SEARCH_ERRORS;

/** The doc checks of parseDoc, in its order. */
const docChecks = (errors: typeof add | typeof update): ContractError[] => [
  errors.docNull,
  errors.docEmpty,
  errors.docInvalidUtf8,
  errors.docJsonParsingFail,
  errors.tooManyFields,
  errors.fieldnameInvalid,
  errors.categoryValueInvalid,
  errors.dateInvalid,
  errors.dateTooBig,
  errors.scoreValueInvalid,
  errors.stringValueInvalid,
  errors.titleEmpty,
  errors.bodyEmpty,
  errors.thumbnailKeyFail,
];

const params: Partial<Record<SearchOperation, readonly ContractError[]>> = {
  add: [add.invalidEncoding, add.dockeyNull, add.dockeyInvalid, ...docChecks(add)],
  update: [update.invalidEncoding, update.dockeyNull, update.dockeyInvalid, ...docChecks(update)],
  delete: [deletion.dockeyNull, deletion.dockeyInvalid],
  fieldUpdate: [
    fieldUpdate.dockeyNull,
    fieldUpdate.dockeyEmpty,
    fieldUpdate.dockeyInvalid,
    fieldUpdate.fieldnameNull,
    fieldUpdate.fieldnameEmpty,
    fieldUpdate.fieldnameInvalid,
    fieldUpdate.fieldtypeInvalid,
    fieldUpdate.fieldvalueNull,
    fieldUpdate.fieldvalueInvalid,
  ],
  search: [
    search.qNull,
    search.qTooLong,
    search.qInvalidEncoding,
    search.caInvalid,
    search.exCaInvalid,
    search.startInvalid,
    search.lenInvalid,
    search.sortInvalid,
    search.startdateInvalid,
    search.enddateInvalid,
  ],
};

const state: Partial<Record<SearchOperation, readonly ContractError[]>> = {
  add: [add.alreadyExists, add.indexMaxReached],
  update: [update.dockeyInvalid],
  delete: [deletion.dockeyInvalid],
  fieldUpdate: [fieldUpdate.dockeyInvalid],
};

/** The steps of CHECK_ORDER, in order: each one's number is its place here. */
const STEPS: readonly Omit<CheckStep, 'step'>[] = [
  { errors: [common.apikeyNull], note: 'apikey missing or empty (every operation)' },
  {
    errors: [common.cidInvalid],
    note: 'collection id not 8 letters/digits, or unknown (every operation)',
  },
  {
    errors: [common.apikeyInvalid],
    note: 'apikey not the key of that collection (every operation)',
  },
  {
    errors: [common.callLimitReached],
    note: 'API call maximum exceeded; not checked for status, and a refused call is not counted',
  },
  {
    errors: [search.returnTypeInvalid],
    note: '{format} path segment of search and status is not xml or json',
  },
  {
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
    errors: Object.values(state).flat(),
    byOperation: state,
    note:
      'state: add → document already exists, then index max reached (only with force=0); ' +
      'update, delete and field update of a dockey not in the collection → 404 dockey is ' +
      'invalid (the spec has no not-found row)',
  },
  {
    errors: [
      add.thumbnailKeyFail,
      add.addProcessFail,
      add.duplicationCheckFail,
      add.userInfoFail,
      add.collectionInfoException,
      add.databaseException,
      update.updateProcessFail,
      deletion.deleteProcessFail,
      fieldUpdate.updateFieldProcessFail,
      search.makeResultFail,
      status.makeStatusResultFail,
      common.occurException,
    ],
    note:
      'processing failures, in whatever order they happen: the thumbnail of contents_image ' +
      'cannot be made (406), back-end failures (503), anything else (500 Occur Exception)',
  },
];

/**
 * The order in which the services check a request; when a request breaks several rules the
 * earliest step (and, inside a step, the earliest error) answers. Errors raised while
 * processing (503, 500) come last: they are not input checks.
 */
export const CHECK_ORDER: readonly CheckStep[] = STEPS.map((s, i) => ({ step: i + 1, ...s }));
