import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SEARCH_ERROR_ROWS, SEARCH_ERRORS, type SearchOperation } from '../src';

/** The spec's "Errors" section, copied byte for byte from search-service.md. */
const SPEC = readFileSync(join(__dirname, 'fixtures/search-spec-errors.md'), 'utf8');

const HEADINGS: Record<string, SearchOperation> = {
  'Common to all operations': 'common',
  'Add (POST docs)': 'add',
  Search: 'search',
  Delete: 'delete',
  Update: 'update',
  'Field update': 'fieldUpdate',
  Status: 'status',
};

interface SpecRow {
  operation: SearchOperation;
  status: number;
  text: string;
  condition: string;
}

function specRows(): SpecRow[] {
  const rows: SpecRow[] = [];
  let operation: SearchOperation | undefined;
  for (const line of SPEC.split('\n')) {
    const heading = /^### (.+)$/.exec(line);
    if (heading) operation = HEADINGS[heading[1]!];
    const row = /^\| (\d{3}) \| (.+) \| (.+) \|$/.exec(line);
    if (!row || !operation) continue;
    for (const text of row[2]!.split(' / ')) {
      rows.push({ operation, status: Number(row[1]), text, condition: row[3]! });
    }
  }
  return rows;
}

const EXPECTED = specRows();

describe('SEARCH_ERROR_ROWS mirrors the error tables of the spec', () => {
  it('has one row per body text of the spec (combined update rows expanded), in spec order', () => {
    // common 5, add 24, search 13, delete 5, update 6+2+9+4, field update 12, status 1
    expect(EXPECTED).toHaveLength(81);
    expect(SEARCH_ERROR_ROWS).toHaveLength(EXPECTED.length);
  });

  it.each(EXPECTED.map((row, i) => [i, row.operation, row.status, row.text, row] as const))(
    'row %i (%s): %i %s has the spec text, status and condition',
    (i, _op, _status, _text, row) => {
      expect(SEARCH_ERROR_ROWS[i]).toEqual(row);
    },
  );
});

describe('SEARCH_ERRORS', () => {
  it('groups the rows by operation, each entry tagged with its own operation', () => {
    for (const [operation, table] of Object.entries(SEARCH_ERRORS)) {
      for (const error of Object.values(table)) expect(error.operation).toBe(operation);
    }
  });

  it('update has the same doc/dockey/406 keys, texts and statuses as add', () => {
    const shared = Object.keys(SEARCH_ERRORS.update).filter((k) => k in SEARCH_ERRORS.add);
    expect(shared.sort()).toEqual(
      [
        'docNull',
        'docEmpty',
        'invalidEncoding',
        'docInvalidUtf8',
        'docJsonParsingFail',
        'tooManyFields',
        'dockeyNull',
        'dockeyInvalid',
        'fieldnameInvalid',
        'categoryValueInvalid',
        'dateTooBig',
        'dateInvalid',
        'stringValueInvalid',
        'scoreValueInvalid',
        'titleEmpty',
        'bodyEmpty',
        'thumbnailKeyFail',
        'userInfoFail',
        'collectionInfoException',
        'databaseException',
      ].sort(),
    );
    for (const key of shared) {
      const a = SEARCH_ERRORS.add[key as keyof typeof SEARCH_ERRORS.add];
      const u = SEARCH_ERRORS.update[key as keyof typeof SEARCH_ERRORS.update];
      expect([u.status, u.text]).toEqual([a.status, a.text]);
    }
  });

  it('keeps the exact spellings of the spec', () => {
    expect(SEARCH_ERRORS.search.qTooLong.text).toBe('q is too long (under 1KB)');
    expect(SEARCH_ERRORS.add.docInvalidUtf8.text).toBe(
      'doc is invalid - incorrect utf-8 string value',
    );
    expect(SEARCH_ERRORS.add.dateTooBig.text).toBe('document date values is too big');
    expect(SEARCH_ERRORS.add.alreadyExists).toEqual({
      operation: 'add',
      status: 406,
      text: 'document is already exists',
      condition: 'document already exists',
    });
    expect(SEARCH_ERRORS.common.occurException.text).toBe('Occur Exception');
  });
});
