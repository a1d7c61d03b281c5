import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { startTestApp, type TestApp } from './app.js';

/**
 * A small fake of the parts of Stripe's HTTP API the service calls, on loopback. The real SDK
 * talks to it (STRIPE_API_URL), so requests are form-encoded and answers are shaped as Stripe's.
 */

const FAKE_SECRET_KEY = 'sk_test_fake_0123456789';
const WEBHOOK_SECRET = 'whsec_test_fake_secret';
export const PRICES = { pro_monthly: 'price_pro_m', pro_annual: 'price_pro_y', team_monthly: 'price_team_m', team_annual: 'price_team_y' };

interface RecordedRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  idempotencyKey: string | null;
}

export interface FakeStripe {
  url: string;
  requests: RecordedRequest[];
  customers: Map<string, Record<string, unknown>>;
  /** Subscriptions the fake knows (and can cancel, read, and change the seats of), by id. */
  subscriptions: Map<string, FakeSubscription>;
  /** Every change of a subscription item's quantity (seats), in order. */
  quantityUpdates: { itemId: string; quantity: number; prorationBehavior: string | null }[];
  /** Answer every call with 500 (Stripe down). */
  failing: boolean;
  /** The environment variables that point the service at this fake. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

interface FakeSubscription {
  id: string;
  customer: string;
  status: string;
  /** The one item of the subscription and its seats; made on first read when absent. */
  itemId?: string;
  quantity?: number;
}

const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
  res.end(JSON.stringify(body));
}

function stripeError(res: ServerResponse, status: number, code: string, message: string): void {
  send(res, status, {
    error: { type: status === 401 ? 'invalid_request_error' : status >= 500 ? 'api_error' : 'invalid_request_error', code, message },
  });
}

async function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const requests: RecordedRequest[] = [];
  const customers = new Map<string, Record<string, unknown>>();
  const subscriptions = new Map<string, FakeSubscription>();
  const quantityUpdates: FakeStripe['quantityUpdates'] = [];
  const idempotent = new Map<string, unknown>();
  const state = { failing: false };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const params = method === 'GET' ? Object.fromEntries(url.searchParams) : await readForm(req);
    const idempotencyKey = (req.headers['idempotency-key'] as string | undefined) ?? null;
    requests.push({ method, path: url.pathname, params, idempotencyKey });
    if (req.headers.authorization !== `Bearer ${FAKE_SECRET_KEY}`)
      return stripeError(res, 401, 'api_key_invalid', 'Invalid API Key provided');
    if (state.failing) return stripeError(res, 500, 'api_error', 'the fake is failing on purpose');
    const replay = idempotencyKey ? idempotent.get(`${method} ${url.pathname} ${idempotencyKey}`) : undefined;
    if (replay) return send(res, 200, replay);
    const answer = (body: unknown) => {
      if (idempotencyKey) idempotent.set(`${method} ${url.pathname} ${idempotencyKey}`, body);
      send(res, 200, body);
    };

    if (method === 'POST' && url.pathname === '/v1/customers') {
      const metadata = Object.fromEntries(
        Object.entries(params)
          .filter(([k]) => k.startsWith('metadata['))
          .map(([k, v]) => [k.slice(9, -1), v]),
      );
      const customer = { id: id('cus'), object: 'customer', email: params.email ?? null, metadata };
      customers.set(customer.id, customer);
      return answer(customer);
    }
    if (method === 'POST' && url.pathname === '/v1/checkout/sessions') {
      if (!params.customer || !customers.has(params.customer))
        return stripeError(res, 400, 'resource_missing', `No such customer: '${params.customer}'`);
      const sessionId = id('cs_test');
      return answer({
        id: sessionId,
        object: 'checkout.session',
        mode: params.mode,
        customer: params.customer,
        client_reference_id: params.client_reference_id ?? null,
        success_url: params.success_url,
        cancel_url: params.cancel_url,
        url: `https://checkout.stripe.test/c/pay/${sessionId}`,
        status: 'open',
      });
    }
    if (method === 'POST' && url.pathname === '/v1/billing_portal/sessions') {
      if (!params.customer || !customers.has(params.customer))
        return stripeError(res, 400, 'resource_missing', `No such customer: '${params.customer}'`);
      const sessionId = id('bps');
      return answer({
        id: sessionId,
        object: 'billing_portal.session',
        customer: params.customer,
        return_url: params.return_url ?? null,
        url: `https://billing.stripe.test/p/session/${sessionId}`,
      });
    }
    const read = /^\/v1\/subscriptions\/([^/]+)$/.exec(url.pathname);
    if (method === 'GET' && read) {
      const sub = subscriptions.get(read[1]!);
      if (!sub) return stripeError(res, 404, 'resource_missing', `No such subscription: '${read[1]}'`);
      sub.itemId ??= id('si');
      sub.quantity ??= 1;
      return answer({
        id: sub.id,
        object: 'subscription',
        customer: sub.customer,
        status: sub.status,
        items: { object: 'list', data: [{ id: sub.itemId, object: 'subscription_item', quantity: sub.quantity }] },
      });
    }
    const item = /^\/v1\/subscription_items\/([^/]+)$/.exec(url.pathname);
    if (method === 'POST' && item) {
      const sub = [...subscriptions.values()].find((s) => s.itemId === item[1]);
      if (!sub) return stripeError(res, 404, 'resource_missing', `No such subscription item: '${item[1]}'`);
      sub.quantity = Number(params.quantity);
      quantityUpdates.push({ itemId: item[1]!, quantity: sub.quantity, prorationBehavior: params.proration_behavior ?? null });
      return answer({ id: item[1], object: 'subscription_item', quantity: sub.quantity });
    }
    const cancel = /^\/v1\/subscriptions\/([^/]+)$/.exec(url.pathname);
    if (method === 'DELETE' && cancel) {
      const sub = subscriptions.get(cancel[1]!);
      if (!sub) return stripeError(res, 404, 'resource_missing', `No such subscription: '${cancel[1]}'`);
      sub.status = 'canceled';
      return answer({ id: sub.id, object: 'subscription', customer: sub.customer, status: 'canceled' });
    }
    return stripeError(res, 404, 'resource_missing', `Unrecognized request URL (${method}: ${url.pathname})`);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => stripeError(res, 500, 'api_error', String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    customers,
    subscriptions,
    quantityUpdates,
    get failing() {
      return state.failing;
    },
    set failing(value: boolean) {
      state.failing = value;
    },
    env() {
      return {
        STRIPE_SECRET_KEY: FAKE_SECRET_KEY,
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        STRIPE_API_URL: url,
        STRIPE_PRICE_PRO_MONTHLY: PRICES.pro_monthly,
        STRIPE_PRICE_PRO_ANNUAL: PRICES.pro_annual,
        STRIPE_PRICE_TEAM_MONTHLY: PRICES.team_monthly,
        STRIPE_PRICE_TEAM_ANNUAL: PRICES.team_annual,
      };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An event as Stripe sends it. `created` is in epoch seconds. */
/**
 * A fake Stripe and a service instance pointed at it. `env` adds configuration, or with undefined
 * takes a variable of the fake's away (a price that is not configured).
 */
export async function startAppWithFakeStripe(env: Record<string, string | undefined> = {}): Promise<{ stripe: FakeStripe; t: TestApp }> {
  const stripe = await startFakeStripe();
  const merged: Record<string, string | undefined> = { ...stripe.env(), ...env };
  const t = await startTestApp({
    env: Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== undefined)),
  });
  return { stripe, t };
}

/** Stops what startAppWithFakeStripe started (either may be missing when starting failed). */
export async function stopAppWithFakeStripe(t: TestApp | undefined, stripe: FakeStripe | undefined): Promise<void> {
  await t?.close();
  await stripe?.close();
}

export function stripeEvent(type: string, object: Record<string, unknown>, options: { id?: string; created?: number } = {}): string {
  return JSON.stringify({
    id: options.id ?? id('evt'),
    object: 'event',
    api_version: '2025-10-29.clover',
    created: options.created ?? Math.floor(Date.now() / 1000),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  });
}

/** A subscription object (API 2025-10-29: the period lives on the item). */
export function subscriptionObject(input: {
  id: string;
  customer: string;
  status?: string;
  price?: string;
  periodStart?: number;
  periodEnd?: number;
  cancelAtPeriodEnd?: boolean;
  metadata?: Record<string, string>;
}): Record<string, unknown> {
  const start = input.periodStart ?? Math.floor(Date.UTC(2026, 0, 1) / 1000);
  const end = input.periodEnd ?? start + 30 * 86400;
  return {
    id: input.id,
    object: 'subscription',
    customer: input.customer,
    status: input.status ?? 'active',
    cancel_at_period_end: input.cancelAtPeriodEnd ?? false,
    cancel_at: null,
    ended_at: null,
    metadata: input.metadata ?? {},
    items: {
      object: 'list',
      data: [
        {
          id: id('si'),
          object: 'subscription_item',
          price: { id: input.price ?? PRICES.pro_monthly, object: 'price' },
          current_period_start: start,
          current_period_end: end,
        },
      ],
    },
  };
}

/** The Stripe-Signature header for a payload, made by the SDK's own test helper. */
export function signature(payload: string, secret = WEBHOOK_SECRET, timestamp?: number): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, ...(timestamp ? { timestamp } : {}) });
}
