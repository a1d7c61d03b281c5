import { ADAPTER_DEFINITIONS, ADAPTERS as ALL_ADAPTERS } from '../../src/manifest/adapter-list';
import type { Adapter } from './gql/graphql';

/**
 * Every adapter, in the order the pages list them: the service's one list, typed by the generated
 * schema's Adapter enum (an adapter of the list the schema lacks fails the dashboard's type check).
 * The usage page reads `adapterCounts`, a list, so it names no adapter itself.
 */
export const ADAPTERS: readonly Adapter[] = ALL_ADAPTERS;

/**
 * How the pages name each adapter: by the clients it is written for ("Claude Code", "Cursor",
 * "Other clients"), its internal name after it for the API and the docs.
 */
export const ADAPTER_LABELS = Object.fromEntries(
  ADAPTERS.map((a) => {
    const clients: string = ADAPTER_DEFINITIONS[a].clients;
    return [a, `${clients.charAt(0).toUpperCase()}${clients.slice(1)} (${a})`];
  }),
) as Record<Adapter, string>;
