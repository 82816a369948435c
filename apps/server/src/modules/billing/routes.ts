import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  balanceReply,
  billingAddressReply,
  billingAddressSchema,
  billingInfoReply,
  billingInfoSchema,
  cardReply,
  cardSetupReply,
  invoiceDetailReply,
  invoiceListReply,
  paymentIntentBody,
  paymentIntentReply,
  setCardBody,
  subscriptionReply,
  updateSubscriptionBody,
  usageQuery,
  usageReply,
} from '@rally/shared/schemas/billing';
import { tenantOf } from '../../lib/access.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import { WebhookSignatureError } from './providers/port.ts';
import { auditRequest } from '../audit/index.ts';

const clientParams = z.object({ clientId: z.uuid('must be the id (UUID) of a client') });
const invoiceParams = clientParams.extend({ invoiceId: z.uuid('must be the id (UUID) of an invoice') });
const READ = { access: { permission: 'billing_details.read' as const } };
const WRITE = { access: { permission: 'billing_details.write' as const } };
const tags = ['billing'];

/**
 * SPEC.md §7 "Billing (/biller)" (ARCHITECTURE.md §6). Reads need billing_details.read, writes
 * billing_details.write; the client in the path must be the x-client-id client.
 */
export const billerRoutes: FastifyPluginAsyncZod = async (app) => {
  const billing = () => app.billing.service;
  /** A billing change on the audit log: what changed (field names), never card numbers or amounts' secrets. */
  const audited = async <T>(
    request: Parameters<typeof tenantOf>[0],
    what: string,
    fields: string[],
    change: Promise<T>,
  ): Promise<T> => {
    const done = await change;
    await auditRequest(app.db, request, {
      action: 'billing.changed',
      target: { kind: 'billing', id: what },
      details: { fields: fields.sort() },
    });
    return done;
  };

  app.get(
    '/client/:clientId/balance',
    {
      config: READ,
      schema: {
        tags,
        summary: 'What the client owes now, in cents: uncharged superprospects × 500 plus unpaid invoices',
        params: clientParams,
        response: { 200: balanceReply },
      },
    },
    async (request) => billing().balance(tenantOf(request).clientId),
  );

  app.get(
    '/client/:clientId/card',
    {
      config: READ,
      schema: {
        tags,
        summary: 'The card on file (brand, last four digits, expiry) and which provider collects cards',
        params: clientParams,
        response: { 200: cardReply },
      },
    },
    async (request) => billing().card(tenantOf(request).clientId),
  );

  app.post(
    '/client/:clientId/card',
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Puts a card on file: a test card (local provider) or a SetupIntent Stripe.js confirmed',
        description:
          'Local provider: `number`, `exp_month`, `exp_year`, `cvc` of a test card (README "Billing"); only ' +
          'brand, last four digits and expiry are kept. Stripe: `setup_intent_id` of a SetupIntent from ' +
          '`POST …/card/setup_intent` that Stripe.js confirmed (`confirmCardSetup`); its payment method ' +
          "becomes the customer's default. Invoices whose charge failed are tried again with the new card.",
        params: clientParams,
        body: setCardBody,
        response: { 200: cardReply },
      },
    },
    async (request) =>
      audited(request, 'card', ['card'], billing().setCard(tenantOf(request).clientId, request.body)),
  );

  app.post(
    '/client/:clientId/card/setup_intent',
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Stripe: starts putting a card on file (a SetupIntent for off-session charges)',
        description:
          'Returns the SetupIntent id and client secret; the browser confirms the card with ' +
          '`stripe.confirmCardSetup(client_secret, …)` (the bank may authenticate the payer once) and then ' +
          'sends `setup_intent_id` to `POST …/card`. 409 with the built-in provider, which takes test cards directly.',
        params: clientParams,
        response: { 200: cardSetupReply },
      },
    },
    async (request) => billing().startCardSetup(tenantOf(request).clientId),
  );

  app.post(
    '/client/:clientId/payment_intent',
    {
      config: WRITE,
      schema: {
        tags,
        summary:
          'Pays an open or failed invoice now with the card on file, or confirms a payment the bank held',
        description:
          'Without `confirm`: charges the invoice now (or returns the payment already waiting for the payer). ' +
          'A `requires_action` reply carries a client secret for Stripe.js; after the payer confirms, call ' +
          'again with `confirm: true` to record the outcome.',
        params: clientParams,
        body: paymentIntentBody,
        response: { 200: paymentIntentReply },
      },
    },
    async (request) =>
      billing().paymentIntent(tenantOf(request).clientId, request.body.invoice_id, request.body.confirm),
  );

  app.get(
    '/client/:clientId/subscription',
    {
      config: READ,
      schema: {
        tags,
        summary: 'The plan: price per superprospect, charge threshold, current period',
        params: clientParams,
        response: { 200: subscriptionReply },
      },
    },
    async (request) => billing().subscription(tenantOf(request).clientId),
  );

  app.put(
    '/client/:clientId/subscription',
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Cancels the plan at the end of the billing month, or keeps (renews) it',
        params: clientParams,
        body: updateSubscriptionBody,
        response: { 200: subscriptionReply },
      },
    },
    async (request) =>
      audited(
        request,
        'subscription',
        ['cancel_at_period_end'],
        billing().updateSubscription(tenantOf(request).clientId, request.body.cancel_at_period_end),
      ),
  );

  app.get(
    '/client/:clientId/chargebee/billing_address',
    {
      config: READ,
      schema: {
        tags,
        summary: 'The postal address printed on invoices',
        params: clientParams,
        response: { 200: billingAddressReply },
      },
    },
    async (request) => ({ billing_address: await billing().billingAddress(tenantOf(request).clientId) }),
  );

  app.put(
    '/client/:clientId/chargebee/billing_address',
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Sets the postal address printed on invoices',
        params: clientParams,
        body: billingAddressSchema,
        response: { 200: billingAddressReply },
      },
    },
    async (request) => ({
      billing_address: await audited(
        request,
        'billing_address',
        Object.keys(request.body),
        billing().setBillingAddress(tenantOf(request).clientId, request.body),
      ),
    }),
  );

  // SPEC.md §7 lists this call as GET and PUT /biller/biller/client/{id}/billing_info: "/biller" twice.
  app.get(
    '/biller/client/:clientId/billing_info',
    {
      config: READ,
      schema: {
        tags,
        summary: 'Who receives invoices (e-mail, company, tax id, PO number) and the billing time zone',
        params: clientParams,
        response: { 200: billingInfoReply },
      },
    },
    async (request) => billing().billingInfo(tenantOf(request).clientId),
  );

  app.put(
    '/biller/client/:clientId/billing_info',
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Sets the invoice details and the time zone whose month end triggers the charge',
        params: clientParams,
        body: billingInfoSchema,
        response: { 200: billingInfoReply },
      },
    },
    async (request) =>
      audited(
        request,
        'billing_info',
        Object.keys(request.body),
        billing().setBillingInfo(tenantOf(request).clientId, request.body),
      ),
  );

  app.get(
    '/client/:clientId/invoices',
    {
      config: READ,
      schema: {
        tags,
        summary: "The client's invoices, newest first",
        params: clientParams,
        response: { 200: invoiceListReply },
      },
    },
    async (request) => ({ invoices: await billing().invoices(tenantOf(request).clientId) }),
  );

  app.get(
    '/client/:clientId/invoices/:invoiceId',
    {
      config: READ,
      schema: {
        tags,
        summary: 'One invoice with its superprospect lines, address and billing details (printable)',
        params: invoiceParams,
        response: { 200: invoiceDetailReply },
      },
    },
    async (request) => {
      const invoice = await billing().invoice(tenantOf(request).clientId, request.params.invoiceId);
      if (!invoice) throw httpError(404, 'Invoice not found.');
      return invoice;
    },
  );

  app.get(
    '/client/:clientId/usage',
    {
      config: READ,
      schema: {
        tags,
        summary: 'Usage report: superprospects and active targets by date, with the estimate for this month',
        description:
          '`from`/`to` are epoch seconds (default: the current billing month), read as dates in the ' +
          "client's billing time zone. `estimated_supers` projects this month's superprospects to the month's " +
          'end at the rate so far; `estimated_payment` is that × 500 cents.',
        params: clientParams,
        querystring: usageQuery,
        response: { 200: usageReply },
      },
    },
    async (request) => billing().usage(tenantOf(request).clientId, request.query),
  );
};

/** `GET /sc/client/{id}/card` (SPEC.md §7 cadence service): the card on file, for the cadence screens. */
export const scBillingRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/client/:clientId/card',
    {
      config: READ,
      schema: {
        tags,
        summary: 'The card on file (brand, last four digits, expiry), as the biller reports it',
        params: clientParams,
        response: { 200: cardReply },
      },
    },
    async (request) => app.billing.service.card(tenantOf(request).clientId),
  );
};

/**
 * `POST /biller/stripe/webhook`: Stripe's payment events (payment_intent.succeeded and
 * payment_intent.payment_failed) settle invoices whose payment was processing or waited for the
 * payer. No session and no CSRF token (Stripe sends it); instead the Stripe-Signature header is
 * checked over the raw body with STRIPE_WEBHOOK_SECRET, within 5 minutes (docs.stripe.com/webhooks).
 */
export const stripeWebhookRoutes: FastifyPluginAsyncZod = async (app) => {
  // The signature covers the exact bytes Stripe sent, so this route keeps the body as a string.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );
  app.post(
    '/stripe/webhook',
    {
      config: { access: 'public', csrf: false },
      schema: {
        tags,
        summary: "Stripe's signed payment events (Stripe-Signature header, STRIPE_WEBHOOK_SECRET)",
        headers: z.object({ 'stripe-signature': z.string({ error: 'is required' }).min(1, 'is required') }),
        response: { 200: z.object({ received: z.boolean(), settled: z.boolean() }) },
      },
    },
    async (request) => {
      if (!app.config.stripe?.webhookSecret) throw httpError(404, 'Stripe webhooks are not configured.');
      const raw = typeof request.body === 'string' ? request.body : '';
      try {
        const out = await app.billing.service.paymentEvent(raw, request.headers['stripe-signature']);
        return { received: true, ...out };
      } catch (err) {
        if (err instanceof WebhookSignatureError) {
          throw fieldError('headers.stripe-signature', `does not verify: ${err.message}`);
        }
        throw err;
      }
    },
  );
};
