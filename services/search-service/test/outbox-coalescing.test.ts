import { backoffMs } from '@hub/service-kit';
import {
  compareVersions,
  planBatch,
  type OutboxRow,
} from '../src/index/meilisearch/outbox/coalesce';

describe('Outbox coalescing', () => {
  function row(
    id: number,
    docId: string,
    version: string,
    over: Partial<OutboxRow> = {},
  ): OutboxRow {
    return {
      id: String(id),
      op: 'upsert',
      collectionId: 'abcd1234',
      meiliId: 'abcd1234-x',
      docId,
      version,
      payload: { id: 'abcd1234-x', version } as never,
      force: false,
      isolate: false,
      attempts: 0,
      ...over,
    };
  }

  test('When versions are compared, documents.id comes first (a re-added doc is newer), exactly', () => {
    expect(compareVersions({ docId: '2', version: '1' }, { docId: '1', version: '99' })).toBe(1);
    expect(
      compareVersions(
        { docId: '9007199254740993', version: '1' },
        { docId: '9007199254740992', version: '1' },
      ),
    ).toBe(1);
    expect(compareVersions({ docId: '1', version: '3' }, { docId: '1', version: '3' })).toBe(0);
  });

  test('When a delete carries the version of the last upsert, it orders after that upsert', () => {
    expect(
      compareVersions({ docId: '1', version: '3', deleted: true }, { docId: '1', version: '3' }),
    ).toBe(1);
    expect(
      compareVersions({ docId: '2', version: '1' }, { docId: '1', version: '3', deleted: true }),
    ).toBe(1);
    const plan = planBatch(
      [row(1, '1', '3'), row(2, '1', '3', { op: 'delete', payload: null })],
      new Map(),
    );
    expect(plan.deletes.map((c) => c.winner.id)).toEqual(['2']);
    // the upsert of that version was applied already: the delete is still sent
    const applied = new Map([['abcd1234-x', { docId: '1', version: '3' }]]);
    expect(
      planBatch([row(2, '1', '3', { op: 'delete', payload: null })], applied).deletes,
    ).toHaveLength(1);
    // and once the delete is applied, a late upsert of that version is stale
    const deleted = new Map([['abcd1234-x', { docId: '1', version: '3', deleted: true }]]);
    expect(planBatch([row(1, '1', '3')], deleted).stale).toHaveLength(1);
  });

  test('When a batch holds several versions of a document, only the newest is sent', () => {
    const plan = planBatch([row(1, '1', '1'), row(2, '1', '3'), row(3, '1', '2')], new Map());
    expect(plan.upserts).toHaveLength(1);
    expect(plan.upserts[0]!.winner.id).toBe('2');
    expect(plan.upserts[0]!.rows.map((r) => r.id)).toEqual(['1', '2', '3']);
  });

  test('When the newest change is a delete, a delete is sent', () => {
    const plan = planBatch(
      [row(1, '1', '1'), row(2, '1', '2', { op: 'delete', payload: null })],
      new Map(),
    );
    expect(plan.upserts).toHaveLength(0);
    expect(plan.deletes.map((c) => c.winner.id)).toEqual(['2']);
  });

  test('When Meilisearch already holds that version or a newer one, nothing is sent', () => {
    const applied = new Map([['abcd1234-x', { docId: '1', version: '5' }]]);
    expect(planBatch([row(1, '1', '4')], applied).stale).toHaveLength(1);
    expect(planBatch([row(1, '1', '5')], applied).stale).toHaveLength(1);
    expect(planBatch([row(1, '1', '6')], applied).upserts).toHaveLength(1);
  });

  test('When a reindex row carries the applied version, it is sent again; an older one never', () => {
    const applied = new Map([['abcd1234-x', { docId: '1', version: '5' }]]);
    expect(planBatch([row(1, '1', '5', { force: true })], applied).upserts).toHaveLength(1);
    expect(planBatch([row(1, '1', '4', { force: true })], applied).stale).toHaveLength(1);
  });

  test('When retries back off, the delay doubles up to the cap, with jitter', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 10, 20].map((a) => backoffMs(a, 500, 60000, mid))).toEqual([
      500, 1000, 2000, 4000, 60000, 60000,
    ]);
    expect(backoffMs(1, 500, 60000, () => 0)).toBe(400);
    expect(backoffMs(1, 500, 60000, () => 1)).toBe(600);
  });
});
