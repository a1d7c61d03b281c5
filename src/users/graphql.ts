import { builder, graphqlOnly } from '../graphql/builder.js';
import { queryFromInfo } from '@pothos/plugin-prisma';
import type { SignInIdentityRow } from './identities.js';
import { USER_SELECT, type AccountDeletion, type DeletionStats, type UserQuery } from './service.js';

/**
 * The signed-in user: the User prismaObject, with its counts as relation counts. `me` hands the
 * planned selection to the users service, which answers it with one statement of its own when it
 * asks only for USER_SELECT's columns and counts (what this type selects), through Prisma otherwise.
 */
export const UserRef = builder.prismaObject('User', {
  description: 'The signed-in user (spec 2.6).',
  select: { id: true },
  fields: (t) => ({
    userId: t.exposeString('id'),
    email: t.exposeString('email', { nullable: true }),
    displayName: t.exposeString('displayName', {
      nullable: true,
      description:
        'The public name shown as the author of workflows and reviews (null: a pseudonym is shown). Not in the REST user of spec 2.6.',
      extensions: graphqlOnly,
    }),
    workflowCount: t.relationCount('workflows', { where: USER_SELECT._count.select.workflows.where }),
    deploymentCount: t.relationCount('deployments', { where: USER_SELECT._count.select.deployments.where }),
    subscriptionCount: t.relationCount('library', { where: USER_SELECT._count.select.library.where }),
    createdAt: t.string({ select: { createdAt: true }, resolve: (u) => u.createdAt.toISOString() }),
    updatedAt: t.string({ select: { updatedAt: true }, resolve: (u) => u.updatedAt.toISOString() }),
  }),
});

builder.queryField('me', (t) =>
  t.field({
    type: UserRef,
    description: 'The signed-in user with counts of what they own. REST: GET /v1/users/me.',
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx, info) => ctx.services.users.getMe(ctx.viewer!, queryFromInfo({ context: ctx, info }) as UserQuery),
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

builder.mutationField('setDisplayName', (t) =>
  t.prismaField({
    type: 'User',
    description: 'Sets your public display name, shown as the author of workflows and reviews; an empty name clears it (dashboard).',
    authScopes: { authenticated: true },
    extensions: graphqlOnly,
    args: { displayName: t.arg.string({ required: true, description: 'At most 50 characters; empty clears it.' }) },
    resolve: (query, _root, args, ctx) => ctx.services.users.setDisplayName(ctx.viewer!, args.displayName, query),
  }),
);

const SignInMethodKind = builder.enumType('SignInMethodKind', {
  values: ['email', 'github', 'oidc'] as const,
  description: 'How a way in proves who you are: an e-mail link, GitHub, or an OpenID provider (or the development issuer).',
});

const SignInMethodRef = builder.objectRef<SignInIdentityRow>('SignInMethod').implement({
  description: 'One way into your account (docs/operations.md, "Browser sign-in").',
  fields: (t) => ({
    id: t.exposeID('id'),
    method: t.field({ type: SignInMethodKind, resolve: (m) => m.method }),
    label: t.exposeString('label', { nullable: true, description: 'What it is known by: the address, the GitHub login.' }),
    email: t.exposeString('email', { nullable: true }),
    emailVerified: t.exposeBoolean('emailVerified', { description: 'Whether its issuer checked the address (then it may join accounts).' }),
    issuer: t.exposeString('issuer', { description: 'The GitHub address, the OpenID provider, or the e-mail issuer.' }),
    createdAt: t.string({ description: 'When it was added.', resolve: (m) => m.createdAt.toISOString() }),
  }),
});

builder.queryField('signInMethods', (t) =>
  t.field({
    type: [SignInMethodRef],
    description: 'The ways into your account, oldest first; at least one. REST: GET /v1/users/me/sign-in-methods.',
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => ctx.services.signInIdentities.list(ctx.viewer!),
  }),
);

builder.queryField('signInMethodsToAdd', (t) =>
  t.field({
    type: [SignInMethodKind],
    extensions: graphqlOnly,
    description:
      'The ways in this service offers that the Account page can add (github: GET /sign-in/github?link=1; email: POST /sign-in/email with intent=link).',
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => ctx.services.signInIdentities.addable(),
  }),
);

const SignInMethodRemovalRef = builder
  .objectRef<{ id: string; deleted: true; signInMethods: SignInIdentityRow[] }>('SignInMethodRemoval')
  .implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      deleted: t.exposeBoolean('deleted'),
      signInMethods: t.field({ type: [SignInMethodRef], description: 'The ways in left.', resolve: (r) => r.signInMethods }),
    }),
  });

builder.mutationField('removeSignInMethod', (t) =>
  t.field({
    type: SignInMethodRemovalRef,
    description:
      'Removes one way into your account; the last one cannot be removed (CONFLICT). REST: DELETE /v1/users/me/sign-in-methods/{id}.',
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => ({
      id: String(args.id),
      deleted: true as const,
      signInMethods: await ctx.services.signInIdentities.unlink(ctx.viewer!, String(args.id)),
    }),
  }),
);
