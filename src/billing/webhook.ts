import Stripe from 'stripe';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { readBodyText } from '../http/body.js';
import type { Incoming } from '../http/incoming.js';
import type { TextReply } from '../http/text-response.js';
import type { Logger } from '../logger.js';
import type { Services } from '../services.js';
import { successResponse } from '../rest/envelope.js';
import { notConfigured } from './stripe.js';

/**
 * POST /v1/billing/webhook: Stripe's event deliveries. Authenticated by the Stripe-Signature
 * header over the raw body (no bearer token). Each event is applied at most once: its id goes into
 * ProcessedEvent in the same transaction as its effect, so a redelivery, or two deliveries racing
 * on two instances, find it there and change nothing. A failure rolls both back and answers 500,
 * and Stripe delivers again later.
 */
export const WEBHOOK_PATH = '/v1/billing/webhook';

export interface WebhookDeps {
  config: Config;
  log: Logger;
  billing: Pick<Services['billing'], 'applyWebhookEvent'>;
}

export function createWebhookHandler(deps: WebhookDeps) {
  const { config, log, billing } = deps;

  function verify(payload: string, signature: string | null): Stripe.Event {
    const secret = config.stripe.webhookSecret;
    if (!secret) throw notConfigured('STRIPE_WEBHOOK_SECRET is not set');
    if (!signature) throw new AppError('VALIDATION_ERROR', 'the Stripe-Signature header is missing', { header: 'Stripe-Signature' });
    try {
      return Stripe.webhooks.constructEvent(payload, signature, secret);
    } catch (error) {
      const reason = error instanceof Stripe.errors.StripeSignatureVerificationError ? error.message : 'the payload is not a valid event';
      throw new AppError('VALIDATION_ERROR', `the webhook signature does not verify: ${reason}`, { header: 'Stripe-Signature' });
    }
  }

  return async function handle(request: Incoming): Promise<TextReply> {
    if (request.method !== 'POST') {
      throw new AppError(
        'METHOD_NOT_ALLOWED',
        `${request.method} is not allowed on ${WEBHOOK_PATH}; use POST`,
        { allowed: ['POST'] },
        { Allow: 'POST' },
      );
    }
    // The signature covers the exact bytes sent, so the body is read raw, never re-serialised.
    const payload = await readBodyText(request, config.bodyLimitBytes);
    const event = verify(payload, request.headers.get('stripe-signature'));
    const { duplicate, outcome } = await billing.applyWebhookEvent(event);
    log.info({ eventId: event.id, type: event.type, duplicate, applied: outcome.applied, reason: outcome.reason }, 'billing webhook');
    return successResponse({
      received: true,
      eventId: event.id,
      type: event.type,
      duplicate,
      applied: outcome.applied,
      ...(outcome.reason && !duplicate ? { reason: outcome.reason } : {}),
    });
  };
}
