import { recordInvoice } from './invoice.js';
import type { WebhookHandler } from './state.js';

/** invoice.payment_failed: a charge failed; the provider retries and reports the status change. */
export const invoicePaymentFailed: WebhookHandler = (ctx) => recordInvoice(ctx, 'invoice_payment_failed', (invoice) => invoice.amount_due);
