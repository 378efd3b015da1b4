import { SEARCH_ERROR_ROWS, type ContractError } from '@hub/contracts';
import { useErrorScenarios } from './helpers/error-requests';
import { scenarios } from './helpers/error-scenarios';
import type { Placement } from './helpers/requests';

/**
 * Every row of every error table of the spec, table-driven from SEARCH_ERROR_ROWS: each row
 * has a scenario that breaks exactly its rule, run with the parameters in the query string and
 * in a form body; the answer must be the row's status and exact text as text/plain.
 */

useErrorScenarios();

test('Every error row of the spec has a scenario here', () => {
  const missing = SEARCH_ERROR_ROWS.filter((row) => !scenarios[row.operation]?.[row.text]).map(
    (row) => `${row.operation}: ${row.text}`,
  );
  expect(missing).toEqual([]);
});

const rows = SEARCH_ERROR_ROWS.map((row): [string, ContractError] => [
  `${row.operation}: ${row.status} ${row.text}`,
  row,
]);

describe.each(['query', 'body'] as Placement[])('parameters in the %s', (placement) => {
  test.each(rows)('When %s, the answer is that row', async (_name, row) => {
    const scenario = scenarios[row.operation]![row.text]!;
    const res = await scenario({ placement });
    expect({ status: res.status, text: res.text }).toEqual({ status: row.status, text: row.text });
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  });
});
