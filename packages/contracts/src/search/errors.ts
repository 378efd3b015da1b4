/**
 * The error tables of the search spec ("Errors"), as data. Texts are byte-exact copies of
 * the spec's Body column; `condition` is the spec's Condition column.
 */
export type SearchOperation =
  'common' | 'add' | 'search' | 'delete' | 'update' | 'fieldUpdate' | 'status';

export interface ContractError {
  readonly operation: SearchOperation;
  readonly status: number;
  readonly text: string;
  readonly condition: string;
}

/** A row of a table: its status, text (Body) and condition. */
type Row = readonly [status: number, text: string, condition: string];

/**
 * One table of the spec, a row a line as the spec writes it ([status, text, condition] under
 * the row's key), as ContractErrors of `operation`; keys keep their order, types their values.
 */
function table<const O extends SearchOperation, const R extends Record<string, Row>>(
  operation: O,
  rows: R,
): {
  readonly [K in keyof R]: {
    readonly operation: O;
    readonly status: R[K][0];
    readonly text: R[K][1];
    readonly condition: R[K][2];
  };
} {
  const entries = Object.entries(rows).map(([key, [status, text, condition]]) => {
    const error: ContractError = { operation, status, text, condition };
    return [key, error] as const;
  });
  return Object.fromEntries(entries) as never;
}

const common = table('common', {
  apikeyNull: [400, 'apikey is null', 'apikey missing or null'],
  apikeyInvalid: [401, 'apikey is invalid', 'invalid API key'],
  cidInvalid: [404, 'cid is invalid', 'invalid collection ID'],
  callLimitReached: [406, 'api call limit reached', 'API call maximum exceeded (not for status)'],
  occurException: [500, 'Occur Exception', 'any error not listed'],
});

const add = table('add', {
  docNull: [400, 'doc is null', 'doc missing or null'],
  docEmpty: [400, 'doc is empty', 'doc blank'],
  invalidEncoding: [400, 'invalid encoding', 'invalid encoding'],
  docInvalidUtf8: [
    400,
    'doc is invalid - incorrect utf-8 string value',
    'doc contains characters not representable in UTF-8',
  ],
  docJsonParsingFail: [400, 'doc json parsing fail', 'error while processing the JSON'],
  tooManyFields: [400, 'json contains too many fields', 'more than 35 fields'],
  dockeyNull: [400, 'dockey is null', 'dockey missing or null'],
  dockeyInvalid: [404, 'dockey is invalid', 'invalid dockey'],
  indexMaxReached: [406, 'index max reached', 'indexable document maximum exceeded'],
  alreadyExists: [406, 'document is already exists', 'document already exists'],
  fieldnameInvalid: [406, 'document fieldname is invalid', 'field name format error'],
  categoryValueInvalid: [
    406,
    'document category value is invalid',
    'categories field format error',
  ],
  dateTooBig: [406, 'document date values is too big', 'date field format error'],
  dateInvalid: [406, 'document date values is invalid', 'date field format error'],
  stringValueInvalid: [
    406,
    'document string field values is invalid',
    'contents or icontents field format error',
  ],
  scoreValueInvalid: [406, 'document score values is invalid', 'score field format error'],
  titleEmpty: [406, 'document icontents_title value is empty', 'required field missing or null'],
  bodyEmpty: [406, 'document icontents_body value is empty', 'required field missing or null'],
  thumbnailKeyFail: [406, 'thumbnail key make fail', 'thumbnail key creation failed'],
  addProcessFail: [503, 'document add process fail', 'indexing failed'],
  userInfoFail: [503, 'retrieve user info fail', 'user lookup failed'],
  duplicationCheckFail: [503, 'document duplication check fail', 'duplicate check failed'],
  collectionInfoException: [
    503,
    'retrieve collection info exception',
    'collection lookup exception',
  ],
  databaseException: [503, 'database exception', 'database error'],
});

const search = table('search', {
  qNull: [400, 'q is null', 'q missing or null'],
  qTooLong: [400, 'q is too long (under 1KB)', 'q longer than the maximum'],
  qInvalidEncoding: [400, 'q is invalid encoding', 'q has invalid encoding'],
  caInvalid: [400, 'ca parameter is invalid', 'invalid ca'],
  exCaInvalid: [400, 'ex_ca parameter is invalid', 'invalid ex_ca'],
  startInvalid: [400, 'start parameter is invalid', 'invalid start'],
  lenInvalid: [400, 'len parameter is invalid', 'invalid len'],
  sortInvalid: [400, 'sort parameter is invalid', 'invalid sort'],
  startdateInvalid: [400, 'startdate parameter is invalid', 'invalid startdate'],
  enddateInvalid: [400, 'enddate parameter is invalid', 'invalid enddate'],
  returnTypeInvalid: [400, 'return type is invalid', 'format other than xml or json'],
  makeResultFail: [503, 'make search result fail', 'result creation failed'],
  collectionInfoException: [
    503,
    'retrieve collection info exception',
    'collection lookup exception',
  ],
});

const del = table('delete', {
  dockeyNull: [400, 'dockey is null', 'dockey missing or null'],
  dockeyInvalid: [404, 'dockey is invalid', 'invalid dockey'],
  deleteProcessFail: [503, 'document delete process fail', 'index deletion failed'],
  collectionInfoException: [
    503,
    'retrieve collection info exception',
    'collection lookup exception',
  ],
  userInfoFail: [503, 'retrieve user info fail', 'user lookup failed'],
});

/** The update table's combined rows ("same conditions as for add"), one entry per text. */
const SAME = 'same conditions as for add';
const update = table('update', {
  docNull: [400, 'doc is null', SAME],
  docEmpty: [400, 'doc is empty', SAME],
  invalidEncoding: [400, 'invalid encoding', SAME],
  docInvalidUtf8: [400, 'doc is invalid - incorrect utf-8 string value', SAME],
  docJsonParsingFail: [400, 'doc json parsing fail', SAME],
  tooManyFields: [400, 'json contains too many fields', SAME],
  dockeyNull: [400, 'dockey is null', 'dockey missing or null'],
  dockeyInvalid: [404, 'dockey is invalid', 'invalid dockey'],
  fieldnameInvalid: [406, 'document fieldname is invalid', SAME],
  categoryValueInvalid: [406, 'document category value is invalid', SAME],
  dateTooBig: [406, 'document date values is too big', SAME],
  dateInvalid: [406, 'document date values is invalid', SAME],
  stringValueInvalid: [406, 'document string field values is invalid', SAME],
  scoreValueInvalid: [406, 'document score values is invalid', SAME],
  titleEmpty: [406, 'document icontents_title value is empty', SAME],
  bodyEmpty: [406, 'document icontents_body value is empty', SAME],
  thumbnailKeyFail: [406, 'thumbnail key make fail', SAME],
  updateProcessFail: [503, 'document update process fail', 'index update failed'],
  userInfoFail: [503, 'retrieve user info fail', 'user lookup failed'],
  collectionInfoException: [
    503,
    'retrieve collection info exception',
    'collection lookup exception',
  ],
  databaseException: [503, 'database exception', 'database error'],
});

const fieldUpdate = table('fieldUpdate', {
  fieldnameNull: [400, 'fieldname is null', 'fieldname missing or null'],
  fieldnameEmpty: [400, 'fieldname is empty', 'fieldname blank'],
  fieldnameInvalid: [400, 'fieldname is invalid', 'invalid fieldname'],
  fieldvalueNull: [400, 'fieldvalue is null', 'fieldvalue missing or null'],
  fieldvalueInvalid: [400, 'fieldvalue is invalid', 'invalid fieldvalue'],
  fieldtypeInvalid: [400, 'fieldtype is invalid', 'invalid field type'],
  dockeyNull: [400, 'dockey is null', 'dockey missing or null'],
  dockeyEmpty: [404, 'dockey is empty', 'dockey blank'],
  dockeyInvalid: [404, 'dockey is invalid', 'invalid dockey'],
  userInfoFail: [503, 'retrieve user info fail', 'user lookup failed'],
  collectionInfoException: [
    503,
    'retrieve collection info exception',
    'collection lookup exception',
  ],
  updateFieldProcessFail: [503, 'document update field process fail', 'field index update failed'],
});

const status = table('status', {
  makeStatusResultFail: [503, 'make status result fail', 'status lookup failed'],
});

/** Every error of the spec, grouped by table; keys are in spec order. */
export const SEARCH_ERRORS = {
  common,
  add,
  search,
  delete: del,
  update,
  fieldUpdate,
  status,
} as const;

/** Every row of every error table of the spec, in spec order (combined rows expanded). */
export const SEARCH_ERROR_ROWS: readonly ContractError[] = Object.values(SEARCH_ERRORS).flatMap(
  (table): ContractError[] => Object.values<ContractError>(table),
);
