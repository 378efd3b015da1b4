import type pg from 'pg';
import { createLogger, type Logger, type Metrics } from '@hub/service-kit';
import { distinctTerms, queryTerms } from '../analyser';
import type {
  AddedDocument,
  DocumentChange,
  SearchHits,
  SearchIndex,
  SearchQuery,
} from '../search-index';
import { andInto, andNotInto, newBitset, orInto, setBit, type Bitset } from './bitset';
import { CollectionView } from './collection-view';
import { evaluate, type TailMatch } from './evaluate';
import { DELETED_CHUNK } from './fold-store';
import { folderMetrics, IndexFolder, type FolderObserver } from './folder';
import { FolderThread } from './folder-thread';
import { ABSENT, IndexCache } from './index-cache';
import type { ParsedDoc } from '@hub/contracts';
import {
  dropIndex,
  insertPending,
  pendingFromAdded,
  type PendingDocument,
  readDeleted,
  readPacked,
  readPostings,
  readSegmentDocs,
  readSnapshot,
  unindex,
  type PostingKind,
  type Snapshot,
} from './index-store';
import { PackedSegment, packedKey } from './packed-segment';
import { orPostingsInto } from './postings-codec';

export interface PostgresIndexOptions {
  logger?: Logger;
  metrics?: Metrics;
  /** bytes of posting lists, deleted bitmaps and views kept in memory; default 256 MiB */
  cacheBytes?: number;
  /** documents per fold; default 2,000 */
  foldBatchSize?: number;
  /** the folder's pause when idle; default 100 ms */
  foldIdleMs?: number;
  /** the folder waits for this many pending documents of a collection ... (default 1,000) */
  foldMinBatch?: number;
  /** ... or this long (default 1,000 ms) */
  foldMaxDelayMs?: number;
  /** false: start() does not run the folder (tests drive folder.round() themselves) */
  autoFold?: boolean;
  /** merged segments of at most this many documents stay packed (tests lower it) */
  packedMaxDocs?: number;
  /** given (and running compiled): the folder runs in its own thread with its own connections */
  databaseUrl?: string;
  logLevel?: string;
}

/** What the index keeps of a document until it is folded. */
function pendingTerms(collectionId: string, doc: ParsedDoc): PendingDocument {
  return {
    collectionId,
    regdate: doc.regdate,
    categories: doc.categories ?? [],
    titleTerms: distinctTerms([doc.title]),
    terms: distinctTerms(Object.values(doc.icontents)),
  };
}

/** The snapshot changed under a search (a merge or fold in between): read it again. */
class SnapshotMoved extends Error {}

/**
 * The Postgres engine: per-collection bitmaps (see docs/bitmap-index.md). A change writes the
 * document's terms to search_pending in the document's own transaction; a search reads one
 * snapshot (segments, deleted versions, tombstones and the matching pending tail), takes the
 * segments' posting lists from the cache (or Postgres), and answers with popcounts and a walk
 * of the collection's result order that stops when the page is full.
 */
export class PostgresSearchIndex implements SearchIndex {
  readonly engine = 'postgres' as const;
  readonly folder: IndexFolder;
  private readonly cache: IndexCache;
  private readonly autoFold: boolean;
  private readonly opts: PostgresIndexOptions;
  private readonly observer: FolderObserver | undefined;
  private thread: FolderThread | null = null;
  /** view extensions in progress, so concurrent searches extend a view once */
  private readonly extending = new Map<string, Promise<CollectionView>>();

  constructor(
    private readonly pool: pg.Pool,
    opts: PostgresIndexOptions = {},
  ) {
    this.autoFold = opts.autoFold ?? true;
    this.opts = opts;
    this.observer = folderMetrics(opts.metrics);
    this.cache = new IndexCache(opts.cacheBytes ?? 256 * 2 ** 20);
    this.folder = new IndexFolder({
      pool,
      logger: opts.logger ?? createLogger('search-service', 'silent'),
      observer: this.observer,
      batchSize: opts.foldBatchSize,
      idleMs: opts.foldIdleMs,
      minBatch: opts.foldMinBatch,
      maxDelayMs: opts.foldMaxDelayMs,
      packedMaxDocs: opts.packedMaxDocs,
    });
    if (opts.metrics) {
      const { client, registry } = opts.metrics;
      if (!registry.getSingleMetric('search_index_cache_bytes')) {
        const cache = this.cache;
        new client.Gauge({
          name: 'search_index_cache_bytes',
          help: 'Bytes held by the bitmap index cache (posting lists, deleted bitmaps, views)',
          registers: [registry],
          collect() {
            this.set(cache.bytes);
          },
        });
      }
    }
  }

  async recordChange(tx: pg.PoolClient, change: DocumentChange): Promise<void> {
    // documents.version 1 is a document added just now (a re-add gets a new id): nothing to unindex
    if (change.version !== '1' || change.op === 'delete')
      await unindex(tx, change.collectionId, change.docId);
    if (change.op === 'delete' || !change.doc) return;
    await insertPending(tx, change.docId, pendingTerms(change.collectionId, change.doc));
  }

  /** A new document's pending row, inside the add's single statement. */
  addedDocumentSql(added: AddedDocument, param: (value: unknown) => string): string {
    return pendingFromAdded(param, pendingTerms(added.collectionId, added.doc));
  }

  async dropCollection(tx: pg.PoolClient, collectionId: string): Promise<void> {
    await dropIndex(tx, collectionId);
  }

  async search(query: SearchQuery): Promise<SearchHits> {
    const terms = queryTerms(query.q);
    if (terms.length === 0) return { numfound: 0, docIds: [] };
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.searchOnce(query, terms);
      } catch (e) {
        if (!(e instanceof SnapshotMoved) || attempt >= 3) throw e;
      }
    }
  }

  private async searchOnce(query: SearchQuery, terms: string[]): Promise<SearchHits> {
    const snap = await readSnapshot(this.pool, query.collectionId, {
      terms,
      ca: query.ca,
      exCa: query.exCa,
      from: query.startdate,
      to: query.enddate,
    });
    const tail: TailMatch[] = snap.tail.map(([docId, regdate, inTitle]) => ({
      docId,
      regdate: Number(regdate),
      inTitle,
    }));
    const size = snap.nextDocno;
    const view =
      snap.epoch === null || size === 0
        ? new CollectionView(query.collectionId, 'none')
        : await this.view(query.collectionId, snap);

    const keys: Array<{ kind: PostingKind; term: string }> = terms.map((term) => ({
      kind: 'w',
      term,
    }));
    if (query.sort === 0) for (const term of terms) keys.push({ kind: 't', term });
    for (const c of new Set([...(query.ca ?? []), ...(query.exCa ?? [])])) {
      keys.push({ kind: 'c', term: String(c) });
    }
    const lists = size ? await this.postings(snap, keys) : new Map<string, Bitset>();
    const bitset = (kind: PostingKind, term: string) => lists.get(kind + term) ?? newBitset(size);

    const matches = bitset('w', terms[0]!).slice();
    for (const term of terms.slice(1)) andInto(matches, bitset('w', term));
    if (size) andNotInto(matches, await this.deleted(query.collectionId, snap));
    if (query.ca) {
      const any = newBitset(size);
      for (const c of query.ca) orInto(any, bitset('c', String(c)));
      andInto(matches, any);
    }
    for (const c of query.exCa ?? []) andNotInto(matches, bitset('c', String(c)));
    let titleMatches: Bitset | null = null;
    if (query.sort === 0) {
      titleMatches = matches.slice();
      for (const term of terms) andInto(titleMatches, bitset('t', term));
    }
    return evaluate({
      matches,
      titleMatches,
      view,
      tail,
      sort: query.sort,
      start: query.start,
      len: query.len,
      from: query.startdate === null ? null : Number(query.startdate),
      to: query.enddate === null ? null : Number(query.enddate),
    });
  }

  /** The collection's view, extended to every number of the snapshot. */
  private async view(collectionId: string, snap: Snapshot): Promise<CollectionView> {
    const epoch = snap.epoch!;
    const key = `${collectionId}:${epoch}`;
    for (;;) {
      const view = this.cache.view(collectionId, epoch) ?? new CollectionView(collectionId, epoch);
      if (view.size >= snap.nextDocno) return view;
      const running = this.extending.get(key);
      if (running) {
        await running;
        continue;
      }
      const extension = this.extend(view, snap).finally(() => this.extending.delete(key));
      this.extending.set(key, extension);
      return extension;
    }
  }

  private async extend(view: CollectionView, snap: Snapshot): Promise<CollectionView> {
    const needed = snap.segments.filter((s) => s.firstDocno + s.docCount > view.size);
    const docs = await readSegmentDocs(
      this.pool,
      needed.map((s) => s.id),
    );
    if (docs.length !== needed.length) throw new SnapshotMoved();
    for (const s of docs) view.append(s.firstDocno, s.docIds, s.regdates);
    if (view.size < snap.nextDocno) throw new SnapshotMoved();
    this.cache.setView(view);
    return view;
  }

  /** Each key's posting lists over the snapshot's segments, OR-ed into one bitset per key. */
  private async postings(
    snap: Snapshot,
    keys: Array<{ kind: PostingKind; term: string }>,
  ): Promise<Map<string, Bitset>> {
    const packed = new Map<string, PackedSegment>();
    const missingPacked: string[] = [];
    const missingSegments = new Set<string>();
    const missingKeys = new Map<string, { kind: PostingKind; term: string }>();
    for (const s of snap.segments) {
      if (s.packed) {
        const cached = this.cache.packed(s.id);
        if (cached) packed.set(s.id, cached);
        else missingPacked.push(s.id);
        continue;
      }
      for (const k of keys) {
        if (this.cache.posting(s.id, k.kind, k.term) === undefined) {
          missingSegments.add(s.id);
          missingKeys.set(k.kind + k.term, k);
        }
      }
    }
    const [packedRows, rows] = await Promise.all([
      missingPacked.length ? readPacked(this.pool, missingPacked) : [],
      missingSegments.size
        ? readPostings(this.pool, [...missingSegments], [...missingKeys.values()])
        : [],
    ]);
    if (packedRows.length !== missingPacked.length) throw new SnapshotMoved();
    for (const r of packedRows) {
      const segment = new PackedSegment(r.packed);
      this.cache.setPacked(r.id, segment);
      packed.set(r.id, segment);
    }
    if (new Set(rows.map((r) => r.segmentId)).size !== missingSegments.size) {
      throw new SnapshotMoved();
    }
    const fetched = new Map<string, Buffer | null>();
    for (const r of rows) {
      this.cache.setPosting(r.segmentId, r.kind, r.term, r.data);
      fetched.set(`${r.segmentId}:${r.kind}${r.term}`, r.data);
    }
    const out = new Map<string, Bitset>();
    for (const k of keys) {
      const key = k.kind + k.term;
      const inPacked = packedKey(k.kind, k.term);
      const bits = newBitset(snap.nextDocno);
      for (const s of snap.segments) {
        let data: Buffer | null | undefined;
        if (s.packed) data = packed.get(s.id)!.get(inPacked) ?? null;
        else {
          data = fetched.get(`${s.id}:${key}`);
          if (data === undefined) data = this.cache.posting(s.id, k.kind, k.term);
          if (data === undefined) throw new SnapshotMoved(); // evicted in between: read again
        }
        if (data && data !== ABSENT) orPostingsInto(data, s.firstDocno, bits);
      }
      out.set(key, bits);
    }
    return out;
  }

  /** The deleted numbers of the snapshot: its deleted-chunk versions plus its tombstones. */
  private async deleted(collectionId: string, snap: Snapshot): Promise<Bitset> {
    const epoch = snap.epoch!;
    const bits = newBitset(snap.nextDocno);
    const missing = snap.deleted.filter(
      ([chunk, version]) => !this.cache.deleted(collectionId, epoch, chunk, version),
    );
    if (missing.length) {
      const rows = await readDeleted(
        this.pool,
        collectionId,
        missing.map(([chunk]) => chunk),
      );
      for (const r of rows) {
        const words = new Uint32Array(DELETED_CHUNK / 32);
        for (let i = 0; i < words.length; i++) words[i] = r.bits.readUInt32LE(4 * i);
        this.cache.setDeleted(collectionId, epoch, r.chunk, r.version, words);
      }
    }
    for (const [chunk, version] of snap.deleted) {
      const words = this.cache.deleted(collectionId, epoch, chunk, version);
      if (!words) throw new SnapshotMoved(); // a newer version was folded in between
      const base = (chunk * DELETED_CHUNK) >>> 5;
      for (let i = 0; i < words.length && base + i < bits.length; i++) bits[base + i]! |= words[i]!;
    }
    for (const docno of snap.tombstones) if (docno < snap.nextDocno) setBit(bits, docno);
    return bits;
  }

  /** Every committed document is searchable at once (the pending tail): always searchable. */
  async status(): Promise<{ searchable: boolean; reason?: string }> {
    return { searchable: true };
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  start(): void {
    if (!this.autoFold) return;
    const { databaseUrl } = this.opts;
    if (databaseUrl && FolderThread.available()) {
      this.thread = new FolderThread(
        {
          databaseUrl,
          logLevel: this.opts.logLevel ?? 'info',
          batchSize: this.opts.foldBatchSize,
          idleMs: this.opts.foldIdleMs,
          minBatch: this.opts.foldMinBatch,
          maxDelayMs: this.opts.foldMaxDelayMs,
          packedMaxDocs: this.opts.packedMaxDocs,
        },
        this.observer,
        this.opts.logger ?? createLogger('search-service', 'silent'),
      );
    } else {
      this.folder.start();
    }
  }

  async stop(): Promise<void> {
    await this.thread?.stop();
    this.thread = null;
    await this.folder.stop();
  }
}

export function createPostgresIndex(
  pool: pg.Pool,
  opts: PostgresIndexOptions = {},
): PostgresSearchIndex {
  return new PostgresSearchIndex(pool, opts);
}
