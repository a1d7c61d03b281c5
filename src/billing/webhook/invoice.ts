import type Stripe from 'stripe';
import { findUser, idOf, secondsToDate, writeRecord, type WebhookContext } from './state.js';

/** The subscription an invoice bills; it moved under `parent` in API 2025-03-31. */
function subscriptionOf(invoice: Stripe.Invoice): string | null {
  const legacy = invoice as unknown as { subscription?: string | { id: string } | null };
  return idOf(invoice.parent?.subscription_details?.subscription ?? legacy.subscription ?? null);
}

/**
 * Invoices only add billing records: the status change they may cause (past_due, active again)
 * arrives as customer.subscription.updated, which carries the whole state.
 */
export async function recordInvoice(
  ctx: WebhookContext,
  kind: 'invoice_paid' | 'invoice_payment_failed',
  amount: (invoice: Stripe.Invoice) => number,
) {
  const invoice = ctx.event.data.object as Stripe.Invoice;
  const userId = await findUser(ctx.tx, invoice.metadata?.userId, idOf(invoice.customer));
  if (!userId) return { userId: null, applied: false, reason: 'no user for this customer' };
  await writeRecord(ctx, userId, {
    kind,
    amount: amount(invoice),
    currency: invoice.currency,
    data: {
      invoiceId: invoice.id ?? null,
      number: invoice.number ?? null,
      subscriptionId: subscriptionOf(invoice),
      periodStart: secondsToDate(invoice.period_start)?.toISOString() ?? null,
      periodEnd: secondsToDate(invoice.period_end)?.toISOString() ?? null,
      hostedInvoiceUrl: invoice.hosted_invoice_url ?? null,
      attemptCount: invoice.attempt_count ?? null,
    },
  });
  return { userId, applied: true };
}
