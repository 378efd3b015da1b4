const fs = require('node:fs');
module.exports = async function globalTeardown() {
  const embedded = globalThis.__EMBEDDED_PG__;
  if (!embedded) return;
  await embedded.server.stop();
  fs.rmSync(embedded.dataDir, { recursive: true, force: true });
};
