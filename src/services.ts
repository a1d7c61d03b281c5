import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Database } from './db/index.js';
import { createUserService } from './users/service.js';

/** What every service is built from. */
export interface ServiceDeps {
  db: Database;
  config: Config;
  clock: Clock;
}

export function createServices(deps: ServiceDeps) {
  return {
    ...deps,
    users: createUserService(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
