// What the service's folder did while something was measured: its folds and merges, read from
// the service's own /metrics before and after (the counters of search_fold_duration_seconds
// by step and of search_fold_batch_documents).

/** the sum of the samples of metric `name` that carry the label `label` (name="value"), if given */
function sampleSum(text, name, label = '') {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (label && !line.slice(0, line.lastIndexOf(' ')).includes(label)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

async function readFolderCounters(client) {
  const res = await client.send('GET', '/metrics', null, {});
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  const text = res.body.toString();
  return {
    folds: sampleSum(text, 'search_fold_duration_seconds_count', 'step="fold"'),
    foldSeconds: sampleSum(text, 'search_fold_duration_seconds_sum', 'step="fold"'),
    folded: sampleSum(text, 'search_fold_batch_documents_sum'),
    merges: sampleSum(text, 'search_fold_duration_seconds_count', 'step="merge"'),
    mergeSeconds: sampleSum(text, 'search_fold_duration_seconds_sum', 'step="merge"'),
  };
}

/**
 * A measurement's share of the folder's work, as a line of the report: the folds (documents
 * folded, seconds in their transactions) and the merges (seconds) that committed meanwhile.
 * Why: the folder's thread and the PostgreSQL work of its transactions share the machine's two
 * cores with the searches, and a merge of a bulk load's segments can fall under a measurement
 * taken right after it; the line says whether one did. client: client.mjs.
 */
export function createFolderActivity(client) {
  let before = null;
  return {
    async start() {
      before = await readFolderCounters(client);
    },
    /** the report line ("folder meanwhile: …") */
    async stop() {
      const after = await readFolderCounters(client);
      const d = Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]]));
      const folds = d.folds
        ? `${d.folds} ${d.folds === 1 ? 'fold' : 'folds'} of ${d.folded} documents (${d.foldSeconds.toFixed(1)} s)`
        : 'no fold';
      const merges = d.merges
        ? `${d.merges} ${d.merges === 1 ? 'merge' : 'merges'} (${d.mergeSeconds.toFixed(1)} s)`
        : 'no merge';
      return `folder meanwhile: ${folds}, ${merges}`;
    },
  };
}

/**
 * Several watchers (database-activity.mjs, this file's) as one: started and stopped together,
 * their lines joined as the report's indented lines.
 */
export function watchAll(...watchers) {
  return {
    async start() {
      await Promise.all(watchers.map((w) => w.start()));
    },
    async stop() {
      return (await Promise.all(watchers.map((w) => w.stop()))).join('\n  ');
    },
    async close() {
      await Promise.all(watchers.map((w) => w.close?.()));
    },
  };
}
