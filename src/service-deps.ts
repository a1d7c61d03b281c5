import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Database } from './db/index.js';

/** What every service is built from (kept apart from services.ts, which imports every service). */
export interface ServiceDeps {
  db: Database;
  config: Config;
  clock: Clock;
}

/** An operation written as a module-level function of its service's context. */
type Operation<C> = (context: C, ...args: never[]) => unknown;

/** The same operation with its context given: what the service object offers. */
type WithContext<C, F> = F extends (context: C, ...args: infer A) => infer R ? (...args: A) => R : never;

/**
 * The service object made of `operations`, each given `context` (what the factory was built
 * from). Operations stay named functions of their modules, and a factory is only their assembly.
 */
export function withContext<C, T extends Record<string, Operation<C>>>(
  context: C,
  operations: T,
): { [K in keyof T]: WithContext<C, T[K]> } {
  return Object.fromEntries(
    Object.entries(operations).map(([name, operation]) => [name, (...args: never[]) => operation(context, ...args)]),
  ) as { [K in keyof T]: WithContext<C, T[K]> };
}
