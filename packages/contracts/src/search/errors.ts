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

type Table<O extends SearchOperation> = Record<string, ContractError & { readonly operation: O }>;

const common = {
  apikeyNull: {
    operation: 'common',
    status: 400,
    text: 'apikey is null',
    condition: 'apikey missing or null',
  },
  apikeyInvalid: {
    operation: 'common',
    status: 401,
    text: 'apikey is invalid',
    condition: 'invalid API key',
  },
  cidInvalid: {
    operation: 'common',
    status: 404,
    text: 'cid is invalid',
    condition: 'invalid collection ID',
  },
  callLimitReached: {
    operation: 'common',
    status: 406,
    text: 'api call limit reached',
    condition: 'API call maximum exceeded (not for status)',
  },
  occurException: {
    operation: 'common',
    status: 500,
    text: 'Occur Exception',
    condition: 'any error not listed',
  },
} as const satisfies Table<'common'>;

const add = {
  docNull: { operation: 'add', status: 400, text: 'doc is null', condition: 'doc missing or null' },
  docEmpty: { operation: 'add', status: 400, text: 'doc is empty', condition: 'doc blank' },
  invalidEncoding: {
    operation: 'add',
    status: 400,
    text: 'invalid encoding',
    condition: 'invalid encoding',
  },
  docInvalidUtf8: {
    operation: 'add',
    status: 400,
    text: 'doc is invalid - incorrect utf-8 string value',
    condition: 'doc contains characters not representable in UTF-8',
  },
  docJsonParsingFail: {
    operation: 'add',
    status: 400,
    text: 'doc json parsing fail',
    condition: 'error while processing the JSON',
  },
  tooManyFields: {
    operation: 'add',
    status: 400,
    text: 'json contains too many fields',
    condition: 'more than 35 fields',
  },
  dockeyNull: {
    operation: 'add',
    status: 400,
    text: 'dockey is null',
    condition: 'dockey missing or null',
  },
  dockeyInvalid: {
    operation: 'add',
    status: 404,
    text: 'dockey is invalid',
    condition: 'invalid dockey',
  },
  indexMaxReached: {
    operation: 'add',
    status: 406,
    text: 'index max reached',
    condition: 'indexable document maximum exceeded',
  },
  alreadyExists: {
    operation: 'add',
    status: 406,
    text: 'document is already exists',
    condition: 'document already exists',
  },
  fieldnameInvalid: {
    operation: 'add',
    status: 406,
    text: 'document fieldname is invalid',
    condition: 'field name format error',
  },
  categoryValueInvalid: {
    operation: 'add',
    status: 406,
    text: 'document category value is invalid',
    condition: 'categories field format error',
  },
  dateTooBig: {
    operation: 'add',
    status: 406,
    text: 'document date values is too big',
    condition: 'date field format error',
  },
  dateInvalid: {
    operation: 'add',
    status: 406,
    text: 'document date values is invalid',
    condition: 'date field format error',
  },
  stringValueInvalid: {
    operation: 'add',
    status: 406,
    text: 'document string field values is invalid',
    condition: 'contents or icontents field format error',
  },
  scoreValueInvalid: {
    operation: 'add',
    status: 406,
    text: 'document score values is invalid',
    condition: 'score field format error',
  },
  titleEmpty: {
    operation: 'add',
    status: 406,
    text: 'document icontents_title value is empty',
    condition: 'required field missing or null',
  },
  bodyEmpty: {
    operation: 'add',
    status: 406,
    text: 'document icontents_body value is empty',
    condition: 'required field missing or null',
  },
  thumbnailKeyFail: {
    operation: 'add',
    status: 406,
    text: 'thumbnail key make fail',
    condition: 'thumbnail key creation failed',
  },
  addProcessFail: {
    operation: 'add',
    status: 503,
    text: 'document add process fail',
    condition: 'indexing failed',
  },
  userInfoFail: {
    operation: 'add',
    status: 503,
    text: 'retrieve user info fail',
    condition: 'user lookup failed',
  },
  duplicationCheckFail: {
    operation: 'add',
    status: 503,
    text: 'document duplication check fail',
    condition: 'duplicate check failed',
  },
  collectionInfoException: {
    operation: 'add',
    status: 503,
    text: 'retrieve collection info exception',
    condition: 'collection lookup exception',
  },
  databaseException: {
    operation: 'add',
    status: 503,
    text: 'database exception',
    condition: 'database error',
  },
} as const satisfies Table<'add'>;

const search = {
  qNull: { operation: 'search', status: 400, text: 'q is null', condition: 'q missing or null' },
  qTooLong: {
    operation: 'search',
    status: 400,
    text: 'q is too long (under 1KB)',
    condition: 'q longer than the maximum',
  },
  qInvalidEncoding: {
    operation: 'search',
    status: 400,
    text: 'q is invalid encoding',
    condition: 'q has invalid encoding',
  },
  caInvalid: {
    operation: 'search',
    status: 400,
    text: 'ca parameter is invalid',
    condition: 'invalid ca',
  },
  exCaInvalid: {
    operation: 'search',
    status: 400,
    text: 'ex_ca parameter is invalid',
    condition: 'invalid ex_ca',
  },
  startInvalid: {
    operation: 'search',
    status: 400,
    text: 'start parameter is invalid',
    condition: 'invalid start',
  },
  lenInvalid: {
    operation: 'search',
    status: 400,
    text: 'len parameter is invalid',
    condition: 'invalid len',
  },
  sortInvalid: {
    operation: 'search',
    status: 400,
    text: 'sort parameter is invalid',
    condition: 'invalid sort',
  },
  startdateInvalid: {
    operation: 'search',
    status: 400,
    text: 'startdate parameter is invalid',
    condition: 'invalid startdate',
  },
  enddateInvalid: {
    operation: 'search',
    status: 400,
    text: 'enddate parameter is invalid',
    condition: 'invalid enddate',
  },
  returnTypeInvalid: {
    operation: 'search',
    status: 400,
    text: 'return type is invalid',
    condition: 'format other than xml or json',
  },
  makeResultFail: {
    operation: 'search',
    status: 503,
    text: 'make search result fail',
    condition: 'result creation failed',
  },
  collectionInfoException: {
    operation: 'search',
    status: 503,
    text: 'retrieve collection info exception',
    condition: 'collection lookup exception',
  },
} as const satisfies Table<'search'>;

const del = {
  dockeyNull: {
    operation: 'delete',
    status: 400,
    text: 'dockey is null',
    condition: 'dockey missing or null',
  },
  dockeyInvalid: {
    operation: 'delete',
    status: 404,
    text: 'dockey is invalid',
    condition: 'invalid dockey',
  },
  deleteProcessFail: {
    operation: 'delete',
    status: 503,
    text: 'document delete process fail',
    condition: 'index deletion failed',
  },
  collectionInfoException: {
    operation: 'delete',
    status: 503,
    text: 'retrieve collection info exception',
    condition: 'collection lookup exception',
  },
  userInfoFail: {
    operation: 'delete',
    status: 503,
    text: 'retrieve user info fail',
    condition: 'user lookup failed',
  },
} as const satisfies Table<'delete'>;

/** The update table's combined rows ("same conditions as for add"), one entry per text. */
const SAME = 'same conditions as for add';
const update = {
  docNull: { operation: 'update', status: 400, text: 'doc is null', condition: SAME },
  docEmpty: { operation: 'update', status: 400, text: 'doc is empty', condition: SAME },
  invalidEncoding: { operation: 'update', status: 400, text: 'invalid encoding', condition: SAME },
  docInvalidUtf8: {
    operation: 'update',
    status: 400,
    text: 'doc is invalid - incorrect utf-8 string value',
    condition: SAME,
  },
  docJsonParsingFail: {
    operation: 'update',
    status: 400,
    text: 'doc json parsing fail',
    condition: SAME,
  },
  tooManyFields: {
    operation: 'update',
    status: 400,
    text: 'json contains too many fields',
    condition: SAME,
  },
  dockeyNull: {
    operation: 'update',
    status: 400,
    text: 'dockey is null',
    condition: 'dockey missing or null',
  },
  dockeyInvalid: {
    operation: 'update',
    status: 404,
    text: 'dockey is invalid',
    condition: 'invalid dockey',
  },
  fieldnameInvalid: {
    operation: 'update',
    status: 406,
    text: 'document fieldname is invalid',
    condition: SAME,
  },
  categoryValueInvalid: {
    operation: 'update',
    status: 406,
    text: 'document category value is invalid',
    condition: SAME,
  },
  dateTooBig: {
    operation: 'update',
    status: 406,
    text: 'document date values is too big',
    condition: SAME,
  },
  dateInvalid: {
    operation: 'update',
    status: 406,
    text: 'document date values is invalid',
    condition: SAME,
  },
  stringValueInvalid: {
    operation: 'update',
    status: 406,
    text: 'document string field values is invalid',
    condition: SAME,
  },
  scoreValueInvalid: {
    operation: 'update',
    status: 406,
    text: 'document score values is invalid',
    condition: SAME,
  },
  titleEmpty: {
    operation: 'update',
    status: 406,
    text: 'document icontents_title value is empty',
    condition: SAME,
  },
  bodyEmpty: {
    operation: 'update',
    status: 406,
    text: 'document icontents_body value is empty',
    condition: SAME,
  },
  thumbnailKeyFail: {
    operation: 'update',
    status: 406,
    text: 'thumbnail key make fail',
    condition: SAME,
  },
  updateProcessFail: {
    operation: 'update',
    status: 503,
    text: 'document update process fail',
    condition: 'index update failed',
  },
  userInfoFail: {
    operation: 'update',
    status: 503,
    text: 'retrieve user info fail',
    condition: 'user lookup failed',
  },
  collectionInfoException: {
    operation: 'update',
    status: 503,
    text: 'retrieve collection info exception',
    condition: 'collection lookup exception',
  },
  databaseException: {
    operation: 'update',
    status: 503,
    text: 'database exception',
    condition: 'database error',
  },
} as const satisfies Table<'update'>;

const fieldUpdate = {
  fieldnameNull: {
    operation: 'fieldUpdate',
    status: 400,
    text: 'fieldname is null',
    condition: 'fieldname missing or null',
  },
  fieldnameEmpty: {
    operation: 'fieldUpdate',
    status: 400,
    text: 'fieldname is empty',
    condition: 'fieldname blank',
  },
  fieldnameInvalid: {
    operation: 'fieldUpdate',
    status: 400,
    text: 'fieldname is invalid',
    condition: 'invalid fieldname',
  },
  fieldvalueNull: {
    operation: 'fieldUpdate',
    status: 400,
    text: 'fieldvalue is null',
    condition: 'fieldvalue missing or null',
  },
  fieldvalueInvalid: {
    operation: 'fieldUpdate',
    status: 400,
    text: 'fieldvalue is invalid',
    condition: 'invalid fieldvalue',
  },
  fieldtypeInvalid: {
    operation: 'fieldUpdate',
    status: 400,
    text: 'fieldtype is invalid',
    condition: 'invalid field type',
  },
  dockeyNull: {
    operation: 'fieldUpdate',
    status: 400,
    text: 'dockey is null',
    condition: 'dockey missing or null',
  },
  dockeyEmpty: {
    operation: 'fieldUpdate',
    status: 404,
    text: 'dockey is empty',
    condition: 'dockey blank',
  },
  dockeyInvalid: {
    operation: 'fieldUpdate',
    status: 404,
    text: 'dockey is invalid',
    condition: 'invalid dockey',
  },
  userInfoFail: {
    operation: 'fieldUpdate',
    status: 503,
    text: 'retrieve user info fail',
    condition: 'user lookup failed',
  },
  collectionInfoException: {
    operation: 'fieldUpdate',
    status: 503,
    text: 'retrieve collection info exception',
    condition: 'collection lookup exception',
  },
  updateFieldProcessFail: {
    operation: 'fieldUpdate',
    status: 503,
    text: 'document update field process fail',
    condition: 'field index update failed',
  },
} as const satisfies Table<'fieldUpdate'>;

const status = {
  makeStatusResultFail: {
    operation: 'status',
    status: 503,
    text: 'make status result fail',
    condition: 'status lookup failed',
  },
} as const satisfies Table<'status'>;

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
