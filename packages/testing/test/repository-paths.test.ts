/**
 * The repository's own pointers: every path a tracked file cites (a comment, a doc, a migration,
 * package.json's entry points) names a file or folder that is there, or a build output whose
 * source is there. The rules are in src/path-references.ts.
 */
import path from 'node:path';
import { missingPathReferences } from '../src/path-references';

test('No tracked file cites a repository path that does not exist', () => {
  expect(missingPathReferences(path.resolve(__dirname, '../../..'))).toEqual([]);
});
