import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  balanceReply,
  billingAddressReply,
  billingAddressSchema,
  billingInfoReply,
  billingInfoSchema,
  cardReply,
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
import { httpError } from '../../lib/errors.ts';

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
        summary: 'Puts a card on file: a test card (local provider) or a Stripe.js payment method id',
        description:
          'Local provider: `number`, `exp_month`, `exp_year`, `cvc` of a test card (README "Billing"); only ' +
          'brand, last four digits and expiry are kept. Stripe: `payment_method_id` from Stripe.js. Invoices ' +
          'whose charge failed are tried again with the new card.',
        params: clientParams,
        body: setCardBody,
        response: { 200: cardReply },
      },
    },
    async (request) => billing().setCard(tenantOf(request).clientId, request.body),
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
      billing().updateSubscription(tenantOf(request).clientId, request.body.cancel_at_period_end),
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
      billing_address: await billing().setBillingAddress(tenantOf(request).clientId, request.body),
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
    async (request) => billing().setBillingInfo(tenantOf(request).clientId, request.body),
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
