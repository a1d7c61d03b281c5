import { ADAPTER_DEFINITIONS, ADAPTERS as ALL_ADAPTERS } from '../../src/manifest/adapter-list';
import type { Adapter, DeploymentQuery } from './gql/graphql';

/**
 * Adapters the deployment page's usage query counts. GraphQL has no "every field", so the query
 * names each adapter; an adapter of the list missing there (or from the generated schema types)
 * makes ADAPTERS below fail the dashboard's type check.
 */
type CountedAdapter = Adapter & keyof DeploymentQuery['deploymentUsage']['byAdapter'];

/** Every adapter, in the order the pages list them: the service's one list. */
export const ADAPTERS: readonly CountedAdapter[] = ALL_ADAPTERS;

/** How the pages name each adapter: its name and the clients it is written for. */
export const ADAPTER_LABELS = Object.fromEntries(ADAPTERS.map((a) => [a, `${a} (${ADAPTER_DEFINITIONS[a].clients})`])) as Record<
  Adapter,
  string
>;
