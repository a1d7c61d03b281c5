import { builder, graphqlOnly } from '../graphql/builder.js';
import { planLimits, type PlanLimits } from '../limits/plans.js';
import { type QuotaName, type QuotaUse } from '../limits/quota.js';
import { UserRef } from '../users/graphql.js';
import type { BillingSubscriptionDto } from './service.js';
import { PRICE_KEYS } from './stripe.js';

const BillingSubscriptionRef = builder.objectRef<BillingSubscriptionDto>('BillingSubscription').implement({
  description: 'The plan and its subscription at the payment provider (spec 2.7). A user who never paid is on free, active.',
  fields: (t) => ({
    plan: t.exposeString('plan', { description: 'The plan in force: free, pro, team or enterprise.' }),
    status: t.exposeString('status', {
      description: 'active, trialing, past_due, unpaid, incomplete, incomplete_expired, paused or canceled (docs/plans.md).',
    }),
    customerId: t.exposeString('customerId', { nullable: true }),
    subscriptionId: t.exposeString('subscriptionId', { nullable: true }),
    currentPeriodStart: t.exposeString('currentPeriodStart', { nullable: true }),
    currentPeriodEnd: t.exposeString('currentPeriodEnd', { nullable: true }),
    cancelAtPeriodEnd: t.exposeBoolean('cancelAtPeriodEnd'),
  }),
});

const PlanLimitsRef = builder.objectRef<PlanLimits>('PlanLimits').implement({
  description: 'What a plan allows (spec 8, docs/plans.md).',
  fields: (t) => ({
    plan: t.exposeString('plan'),
    requestsPerMinute: t.exposeInt('requestsPerMinute'),
    requestsPerHour: t.exposeInt('requestsPerHour'),
    workflows: t.exposeInt('workflows'),
    deployments: t.exposeInt('deployments'),
    subscriptions: t.exposeInt('subscriptions'),
    connectionsPerMonth: t.exposeInt('connectionsPerMonth'),
    apiKeys: t.exposeInt('apiKeys', { description: 'Personal API keys held at once.' }),
    versionsPerWorkflow: t.exposeInt('versionsPerWorkflow', {
      description: 'Recorded versions kept per workflow; an update that would record more is refused (402).',
    }),
  }),
});

const QuotaRef = builder.objectRef<QuotaUse>('Quota').implement({
  fields: (t) => ({
    used: t.exposeInt('used'),
    limit: t.exposeInt('limit'),
    remaining: t.exposeInt('remaining'),
  }),
});

const QuotaUsageRef = builder.objectRef<Record<QuotaName, QuotaUse>>('QuotaUsage').implement({
  description: 'How much of each plan quota is used; connections count the current UTC month.',
  fields: (t) => ({
    workflows: t.field({ type: QuotaRef, resolve: (u) => u.workflows }),
    deployments: t.field({ type: QuotaRef, resolve: (u) => u.deployments }),
    subscriptions: t.field({ type: QuotaRef, resolve: (u) => u.subscriptions }),
    apiKeys: t.field({ type: QuotaRef, resolve: (u) => u.apiKeys }),
    connections: t.field({ type: QuotaRef, resolve: (u) => u.connections }),
  }),
});

builder.objectField(UserRef, 'plan', (t) =>
  t.string({
    extensions: graphqlOnly,
    description: 'The plan in force.',
    resolve: (user, _args, ctx) => ctx.services.billing.currentPlan(user.id),
  }),
);
builder.objectField(UserRef, 'limits', (t) =>
  t.field({
    type: PlanLimitsRef,
    extensions: graphqlOnly,
    resolve: async (user, _args, ctx) => planLimits(await ctx.services.billing.currentPlan(user.id)),
  }),
);
builder.objectField(UserRef, 'usage', (t) =>
  t.field({
    type: QuotaUsageRef,
    extensions: graphqlOnly,
    resolve: (user, _args, ctx) => ctx.services.quotas.usage(user.id),
  }),
);
builder.objectField(UserRef, 'billing', (t) =>
  t.field({
    type: BillingSubscriptionRef,
    extensions: graphqlOnly,
    description: 'The billing subscription (spec 2.7).',
    resolve: (user, _args, ctx) => ctx.services.billing.getSubscription({ userId: user.id }),
  }),
);

builder.queryField('billingSubscription', (t) =>
  t.field({
    type: BillingSubscriptionRef,
    description: "The caller's plan and subscription. REST: GET /v1/billing/subscription.",
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => ctx.services.billing.getSubscription(ctx.viewer!),
  }),
);

const BillingPriceRef = builder.enumType('BillingPrice', {
  values: PRICE_KEYS,
  description: 'What can be bought; each maps to a Stripe price by configuration.',
});

builder.queryField('billingPrices', (t) =>
  t.field({
    type: [BillingPriceRef],
    extensions: graphqlOnly,
    description:
      'What a checkout can be started for on this service; empty when billing is not configured (STRIPE_SECRET_KEY or the prices unset), and then createCheckoutSession is BILLING_NOT_CONFIGURED.',
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => ctx.services.billing.checkoutPrices(),
  }),
);

const CheckoutRef = builder.objectRef<{ checkoutUrl: string }>('BillingCheckout').implement({
  fields: (t) => ({ checkoutUrl: t.exposeString('checkoutUrl', { description: 'Send the user here to pay (Stripe Checkout).' }) }),
});

const PortalRef = builder.objectRef<{ portalUrl: string }>('BillingPortal').implement({
  fields: (t) => ({
    portalUrl: t.exposeString('portalUrl', { description: 'Send the user here to manage the subscription (Stripe billing portal).' }),
  }),
});

builder.mutationField('createCheckoutSession', (t) =>
  t.field({
    type: CheckoutRef,
    description: 'Starts a subscription checkout. REST: POST /v1/billing/checkout.',
    authScopes: { authenticated: true },
    args: {
      priceId: t.arg({ type: BillingPriceRef, required: true }),
      successUrl: t.arg.string({ required: true, description: 'Absolute http(s) URL the user returns to after paying.' }),
      cancelUrl: t.arg.string({ required: true, description: 'Absolute http(s) URL the user returns to after giving up.' }),
    },
    resolve: (_root, args, ctx) => ctx.services.billing.createCheckout(ctx.viewer!, args),
  }),
);

builder.mutationField('createBillingPortalSession', (t) =>
  t.field({
    type: PortalRef,
    description: 'Opens the billing portal for the caller. REST: POST /v1/billing/portal.',
    authScopes: { authenticated: true },
    args: {
      returnUrl: t.arg.string({
        required: false,
        description: "Absolute http(s) URL the portal links back to; Stripe's default when absent.",
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.billing.createPortal(ctx.viewer!, args),
  }),
);
