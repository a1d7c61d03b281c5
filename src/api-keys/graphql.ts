import { builder } from '../graphql/builder.js';
import { pageRef } from '../graphql/pagination.js';
import type { ApiKeyView } from './service.js';

const ApiKeyScopeEnum = builder.enumType('ApiKeyScope', {
  description: 'What a personal API key opens: `mcp` tool endpoints only; `api` REST, GraphQL and tool endpoints.',
  values: ['mcp', 'api'] as const,
});

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The fields of a key, shared by the list item and the creation answer (which adds the secret). */
const apiKeyFields = <K extends ApiKeyView>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, K>) => ({
  keyId: t.string({ resolve: (k) => k.id }),
  name: t.string({ resolve: (k) => k.name }),
  scope: t.field({ type: ApiKeyScopeEnum, resolve: (k) => k.scope as 'mcp' | 'api' }),
  deploymentIds: t.stringList({
    description: 'Deployments whose tool endpoints the key may open; empty: all of yours.',
    resolve: (k) => k.deploymentIds,
  }),
  prefix: t.string({ description: 'The first characters of the secret, to tell keys apart.', resolve: (k) => k.prefix }),
  createdAt: t.string({ resolve: (k) => k.createdAt.toISOString() }),
  lastUsedAt: t.string({
    nullable: true,
    description: 'Within a minute of the last request made with the key; null while unused.',
    resolve: (k) => k.lastUsedAt?.toISOString() ?? null,
  }),
  expiresAt: t.string({
    nullable: true,
    description: 'null: the key does not expire.',
    resolve: (k) => k.expiresAt?.toISOString() ?? null,
  }),
});

const ApiKeyRef = builder.objectRef<ApiKeyView>('ApiKey').implement({
  description: 'A personal API key, without its secret.',
  fields: (t) => apiKeyFields(t),
});

export const CreatedApiKeyRef = builder.objectRef<ApiKeyView & { secret: string }>('CreatedApiKey').implement({
  description: 'A new personal API key with its secret: the only answer that ever carries it.',
  fields: (t) => ({
    ...apiKeyFields(t),
    secret: t.exposeString('secret', { description: 'Send it as Authorization: Bearer <secret>. It is shown once; store it now.' }),
  }),
});

const ApiKeyPageRef = pageRef('ApiKeyPage', ApiKeyRef);

const RevokedApiKeyRef = builder.objectRef<{ keyId: string; deleted: true }>('RevokedApiKey').implement({
  fields: (t) => ({ keyId: t.exposeString('keyId'), deleted: t.exposeBoolean('deleted') }),
});

builder.queryField('apiKeys', (t) =>
  t.field({
    type: ApiKeyPageRef,
    description: 'Your personal API keys, newest first. REST: GET /v1/api-keys.',
    authScopes: { authenticated: true },
    args: { limit: t.arg.int({ description: 'Page size, 1 to 100 (default 20).' }), cursor: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.apiKeys.listApiKeys(ctx.viewer!, args),
  }),
);

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKeyRef,
    description: 'Creates a personal API key; the answer carries its secret, shown this once. REST: POST /v1/api-keys.',
    authScopes: { authenticated: true },
    args: {
      name: t.arg.string({ required: true, description: '1 to 100 characters, to recognise the key later.' }),
      scope: t.arg.string({ description: '"mcp" (default: tool endpoints only) or "api" (REST, GraphQL and tool endpoints).' }),
      deploymentIds: t.arg.stringList({ description: 'Limit the key to the tool endpoints of these deployments of yours.' }),
      expiresAt: t.arg.string({ description: 'ISO 8601 timestamp in the future; absent: the key does not expire.' }),
    },
    resolve: (_root, args, ctx) => ctx.services.apiKeys.createApiKey(ctx.viewer!, args),
  }),
  revokeApiKey: t.field({
    type: RevokedApiKeyRef,
    description: 'Revokes one of your API keys: the next request with it is refused, on every instance. REST: DELETE /v1/api-keys/:keyId.',
    authScopes: { authenticated: true },
    args: { keyId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.apiKeys.revokeApiKey(ctx.viewer!, args.keyId),
  }),
}));
