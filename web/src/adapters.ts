import type { Adapter } from './gql/graphql';

/**
 * How the pages name each adapter. Keyed by the schema's Adapter enum, so an adapter added to the
 * service and missing here fails the dashboard's type check.
 */
export const ADAPTER_LABELS: Record<Adapter, string> = {
  adapter_one: 'adapter_one (Claude Code)',
  adapter_two: 'adapter_two (Cursor)',
  adapter_three: 'adapter_three (other clients)',
};

/** Every adapter, in the order the pages list them. */
export const ADAPTERS = Object.keys(ADAPTER_LABELS) as Adapter[];
