// First: V8 settings take effect before the service's modules allocate anything.
import './v8-flags.js';
import { createApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createNodeServer } from './http/node.js';
import { startIdleCollection } from './idle-collection.js';
import { createLogger } from './logger.js';

/**
 * Starts the service: reads the configuration, opens the database, listens, and on SIGTERM or
 * SIGINT stops accepting connections, lets requests in flight finish, then closes the database.
 */
let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

const log = createLogger(config.logLevel);
const started = performance.now();
let app: Awaited<ReturnType<typeof createApp>>;
try {
  app = await createApp(config, { logger: log });
} catch (error) {
  log.fatal({ err: error }, `the service could not start: ${(error as Error).message}`);
  process.exit(1);
}

const server = createNodeServer((request, connection) => app.handle(request, connection));
// Memory taken by a burst of load is given back once the service is idle (src/idle-collection.ts),
// unless IDLE_COLLECTION_SECONDS=0.
const idleCollection =
  config.idleCollectionSeconds === 0
    ? null
    : startIdleCollection({
        quietWindows: config.idleCollectionSeconds / 10,
        onCollect: (before, after, ms) =>
          log.debug(
            { heapUsedBeforeMb: Math.round(before / 2 ** 20), heapUsedAfterMb: Math.round(after / 2 ** 20), ms: Math.round(ms) },
            'idle: memory collected',
          ),
      });
server.keepAliveTimeout = 65_000;
server.listen(config.port, config.host, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const origin = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  log.info(
    {
      startupMs: Math.round(performance.now() - started),
      database: config.databaseUrl ? 'postgres' : 'pglite',
      graphql: `${origin}/graphql`,
      rest: `${origin}/v1`,
      reference: `${origin}/v1/reference`,
      openapi: `${origin}/v1/openapi.json`,
      health: `${origin}/readyz`,
      ...(config.oidc.issuer ? {} : { developmentToken: 'npm run token -- --email you@example.com' }),
    },
    `workflow service ready on ${origin}`,
  );
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
  const force = setTimeout(() => {
    log.warn('requests still open after 10 s; closing them');
    server.closeAllConnections();
  }, 10_000);
  force.unref();
  idleCollection?.stop();
  server.closeIdleConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await app.close();
  log.info('stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
