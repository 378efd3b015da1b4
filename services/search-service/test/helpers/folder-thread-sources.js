// The folder thread's entry for tests (PostgresIndexOptions.folderThreadEntry): runs
// src/index/postgres/fold/folder-thread.ts in a real worker thread from the TypeScript sources,
// transpiled by @swc/core as jest does (jest.preset.js), with @hub/* resolved to the packages'
// sources, so that a test can kill a real folder thread without building dist/ first.
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const root = path.resolve(__dirname, '../../../..');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const hub = /^@hub\/([a-z-]+)$/.exec(request);
  return resolve.call(
    this,
    hub ? path.join(root, 'packages', hub[1], 'src', 'index.ts') : request,
    ...rest,
  );
};
Module._extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};

require('../../src/index/postgres/fold/folder-thread.ts');
