import { recordInvoice } from './invoice.js';
import type { WebhookHandler } from './state.js';

/** invoice.paid: a payment went through (first charge or renewal). */
export const invoicePaid: WebhookHandler = (ctx) => recordInvoice(ctx, 'invoice_paid', (invoice) => invoice.amount_paid);
