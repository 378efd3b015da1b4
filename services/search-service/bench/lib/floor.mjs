// The floor of an add on this machine (issue 23): a bare node:http server that only INSERTs
// the document into the same PostgreSQL (a table shaped like `documents`, dropped when it
// stops), on the main thread where the service runs. The load generator sends it the same
// form bodies as the service's adds; no JSON parse, no checks, no index, no call counting.
import { URLSearchParams } from 'node:url';
import pg from 'pg';
import { listen } from './listen.mjs';

const OK = Buffer.from('{"status":"ok"}');

/** starts it; { port, stop() } */
export async function startFloorServer(databaseUrl, poolSize) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  await pool.query(
    `CREATE TABLE bench_floor (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       collection_id text NOT NULL, dockey text NOT NULL, version bigint NOT NULL DEFAULT 1,
       doc text NOT NULL, created_at timestamptz NOT NULL DEFAULT now(),
       updated_at timestamptz NOT NULL DEFAULT now(), UNIQUE (collection_id, dockey))`,
  );
  const server = await listen((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString());
      try {
        await pool.query(
          'INSERT INTO bench_floor (collection_id, dockey, doc) VALUES ($1, $2, $3)',
          [req.url.split('/')[2], form.get('dockey'), form.get('doc')],
        );
        // a Content-Length, as the service's answers have (raw-http.mjs reads no chunked answer)
        res
          .writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': OK.length })
          .end(OK);
      } catch (err) {
        const text = String(err);
        res.writeHead(500, { 'Content-Length': Buffer.byteLength(text) }).end(text);
      }
    });
  });
  return {
    port: server.port,
    async stop() {
      await server.close();
      await pool.query('DROP TABLE bench_floor');
      await pool.end();
    },
  };
}
