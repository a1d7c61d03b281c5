import { builder } from '../graphql/builder.js';
import type { UserDto } from './service.js';

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
