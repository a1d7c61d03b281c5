import { createApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createNodeServer, drainNodeServer } from './http/node.js';
import { startIdleCollection } from './runtime/idle-collection.js';
import { missingV8Flags } from './runtime/v8-flags.js';
import { createLogger } from './logger.js';

/**
 * Starts the service: reads the configuration, opens the database, listens, and on SIGTERM or
 * SIGINT drains (docs/operations.md, "Graceful shutdown"): readiness fails, the listener and idle
 * connections close, requests in flight get SHUTDOWN_GRACE_MS to finish, then the database's
 * running statements are cancelled, its pool closed, and the process exits, within a fixed bound.
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
const missingFlags = missingV8Flags();
if (missingFlags.length > 0)
  log.warn({ missing: missingFlags }, `started without the service's V8 flags (npm start gives them): ${missingFlags.join(' ')}`);
const started = performance.now();
let app: Awaited<ReturnType<typeof createApp>>;
try {
  app = await createApp(config, { logger: log });
} catch (error) {
  log.fatal({ err: error }, `the service could not start: ${(error as Error).message}`);
  process.exit(1);
}

const server = createNodeServer((request, connection) => app.handle(request, connection));
// Memory taken by a burst of load is given back once the service is idle (src/runtime/idle-collection.ts),
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
      ...(config.oidc.issuer || !config.devAuth ? {} : { developmentToken: 'npm run token -- --email you@example.com' }),
    },
    `workflow service ready on ${origin}`,
  );
});

/**
 * A promise rejection nobody handled is logged and counted (/metrics), and the process goes on:
 * it comes from one request or one timer (a driver's late error), and every request already
 * answers its own errors, so the instance is still sound. An uncaught exception still ends the
 * process (Node's default): a throw out of a callback may have left shared state half-changed.
 */
process.on('unhandledRejection', (reason) => {
  app.recordUnhandledRejection();
  log.error({ err: reason }, `unhandled promise rejection (survived): ${reason instanceof Error ? reason.message : String(reason)}`);
});

/** After the grace period: the database's close (cancels, then cuts) and the last answers. */
const CLOSE_BOUND_MS = 5000;

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  const grace = config.shutdownGraceMs;
  app.startDraining();
  log.info({ signal, graceMs: grace }, 'shutting down: not ready, no new connections, finishing requests in flight');
  // Whatever the database or a client does, the process is gone by then.
  const hardExit = setTimeout(() => {
    log.error('shutdown did not finish in time; exiting');
    process.exit(1);
  }, grace + CLOSE_BOUND_MS);
  hardExit.unref();
  idleCollection?.stop();
  const drained = drainNodeServer(server);
  let graceTimer: NodeJS.Timeout | undefined;
  const inTime = await Promise.race([
    drained.then(() => true),
    new Promise<boolean>((resolve) => (graceTimer = setTimeout(() => resolve(false), grace))),
  ]);
  clearTimeout(graceTimer);
  if (!inTime) log.warn({ graceMs: grace }, 'requests still open after the grace period: cancelling their database work');
  // Cancels the statements still running, so their requests answer 503 instead of waiting for QUERY_TIMEOUT_MS.
  await app.close().catch((error: unknown) => log.warn({ err: error }, 'closing the service failed'));
  if (!inTime) {
    await Promise.race([drained, new Promise((r) => setTimeout(r, 1000))]);
    server.closeAllConnections();
  }
  log.info('stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
