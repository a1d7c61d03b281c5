// Preloaded into both the service and the baseline (node --import) by npm run bench: counts the
// SQL statements the process sends through pg, whoever calls it (Prisma's driver adapter or the
// baseline), and tells the count on GET http://127.0.0.1:$BENCH_STATEMENTS_PORT/. Plain
// JavaScript so that the service runs as built, without a TypeScript loader in its process.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const port = Number(process.env.BENCH_STATEMENTS_PORT);
if (port) {
  // The CommonJS module is the one instance both `import pg` and `require('pg')` get, resolved from
  // the process's own checkout (bench --service-dir runs a service from another one).
  const pg = createRequire(pathToFileURL(`${process.cwd()}/`).href)('pg');
  const query = pg.Client.prototype.query;
  let count = 0;
  pg.Client.prototype.query = function countedQuery(...args) {
    count += 1;
    return query.apply(this, args);
  };
  const server = createServer((_req, res) => res.end(String(count)));
  server.listen(port, '127.0.0.1');
  // Never what keeps the process alive, so the service still exits as it normally would.
  server.unref();
}
