import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Database } from './db/index.js';

/** What every service is built from (kept apart from services.ts, which imports every service). */
export interface ServiceDeps {
  db: Database;
  config: Config;
  clock: Clock;
}
