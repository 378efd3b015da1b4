import { DEFAULT_SETTINGS, type Index, type MeiliStub } from './api';

/** The stub's indexes, and every document write applied to them, in order. */
export function createIndexStore() {
  const indexes = new Map<string, Index>();
  const history: MeiliStub['history'] = [];
  const log: MeiliStub['log'] = [];
  return {
    indexes,
    history,
    log,
    /** the index, created with the default settings if it is new */
    index(uid: string): Index {
      let i = indexes.get(uid);
      if (!i) {
        i = { docs: new Map(), settings: structuredClone(DEFAULT_SETTINGS) };
        indexes.set(uid, i);
      }
      return i;
    },
    /** a document removed from index i, written down */
    deleted(i: Index, id: string) {
      i.docs.delete(id);
      history.push([id, 'deleted']);
      log.push([id, 'deleted']);
    },
  };
}

export type IndexStore = ReturnType<typeof createIndexStore>;
