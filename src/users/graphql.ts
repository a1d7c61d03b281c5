import { builder } from '../graphql/builder.js';
import type { AccountDeletion, DeletionStats, UserDto } from './service.js';

export const UserRef = builder.objectRef<UserDto>('User').implement({
  description: 'The signed-in user (spec 2.6).',
  fields: (t) => ({
    userId: t.exposeString('userId'),
    email: t.exposeString('email', { nullable: true }),
    workflowCount: t.exposeInt('workflowCount'),
    deploymentCount: t.exposeInt('deploymentCount'),
    subscriptionCount: t.exposeInt('subscriptionCount'),
    createdAt: t.exposeString('createdAt'),
    updatedAt: t.exposeString('updatedAt'),
  }),
});

builder.queryField('me', (t) =>
  t.field({
    type: UserRef,
    description: 'The signed-in user with counts of what they own. REST: GET /v1/users/me.',
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => ctx.services.users.getMe(ctx.viewer!),
  }),
);

const DeletionStatsRef = builder.objectRef<DeletionStats>('DeletionStats').implement({
  description: 'How many rows of each kind the deletion removed (spec 4.6, docs/decisions.md).',
  fields: (t) => ({
    workflows: t.exposeInt('workflows'),
    workflowVersions: t.exposeInt('workflowVersions'),
    deployments: t.exposeInt('deployments'),
    deploymentPrompts: t.exposeInt('deploymentPrompts'),
    deploymentLookups: t.exposeInt('deploymentLookups'),
    subscriptions: t.exposeInt('subscriptions'),
    subscriberEntries: t.exposeInt('subscriberEntries'),
    billingRecords: t.exposeInt('billingRecords'),
  }),
});

const AccountDeletionRef = builder.objectRef<AccountDeletion>('AccountDeletion').implement({
  fields: (t) => ({
    userId: t.exposeString('userId'),
    deleted: t.exposeBoolean('deleted'),
    deletedAt: t.exposeString('deletedAt'),
    stats: t.field({ type: DeletionStatsRef, resolve: (d) => d.stats }),
  }),
});

builder.mutationField('deleteMe', (t) =>
  t.field({
    type: AccountDeletionRef,
    description:
      'Deletes the signed-in account and everything it owns, for good; a paid subscription is cancelled first. REST: DELETE /v1/users/me.',
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => ctx.services.users.deleteAccount(ctx.viewer!),
  }),
);
