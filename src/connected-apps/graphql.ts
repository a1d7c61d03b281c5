import { builder } from '../graphql/builder.js';
import type { ConnectedApp } from './service.js';

const ConnectedAppRef = builder.objectRef<ConnectedApp>('ConnectedApp').implement({
  description: 'An application (an MCP client such as an IDE) you connected with OAuth to the tool endpoints of some of your deployments.',
  fields: (t) => ({
    connectedAppId: t.exposeString('connectedAppId'),
    clientId: t.exposeString('clientId', { description: 'Its OAuth client_id (a URL for clients known by their metadata document).' }),
    clientName: t.exposeString('clientName', { description: 'The name it registered with.' }),
    deploymentIds: t.exposeStringList('deploymentIds', { description: 'The deployments whose tool endpoints it may use.' }),
    connectedAt: t.string({ resolve: (a) => a.connectedAt.toISOString() }),
    expiresAt: t.string({
      nullable: true,
      description: 'When the connection lapses if it is not used.',
      resolve: (a) => a.expiresAt?.toISOString() ?? null,
    }),
  }),
});

const DisconnectedAppRef = builder.objectRef<{ connectedAppId: string; deleted: true }>('DisconnectedApp').implement({
  fields: (t) => ({ connectedAppId: t.exposeString('connectedAppId'), deleted: t.exposeBoolean('deleted') }),
});

builder.queryField('connectedApps', (t) =>
  t.field({
    type: [ConnectedAppRef],
    description: 'The applications you connected with OAuth, newest first. REST: GET /v1/connected-apps.',
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => ctx.services.connectedApps.listConnectedApps(ctx.viewer!),
  }),
);

builder.mutationField('disconnectApp', (t) =>
  t.field({
    type: DisconnectedAppRef,
    description:
      'Disconnects an application: its access and refresh tokens stop working at once, on every instance. REST: DELETE /v1/connected-apps/:connectedAppId.',
    authScopes: { authenticated: true },
    args: { connectedAppId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.connectedApps.disconnectApp(ctx.viewer!, args.connectedAppId),
  }),
);
