import { createHmac, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A small fake of the Stripe API on loopback, only what the stripe payment provider uses:
 * customers (create, update), SetupIntents (create, retrieve; `confirmCardSetup` stands in for
 * Stripe.js confirming one in the browser), payment methods (retrieve, attach; `createPaymentMethod`
 * stands in for Stripe.js making a bare one), payment intents (create with `Idempotency-Key`,
 * retrieve, confirm, list by customer), and signed webhook events. Cards behave as Stripe's test
 * cards (docs.stripe.com/testing): 4242… succeeds, 0002 is declined, 3155 "requires authentication
 * for one-time payments; if you set up this card using the Setup Intents API and use the saved card
 * for subsequent payments, no further authentication is needed", 3184 "requires authentication on
 * all transactions, regardless of how the card is set up". Requests are form-encoded with bracketed
 * keys, answered in Stripe's JSON and error shapes.
 */
export type FakeStripe = {
  url: string;
  secretKey: string;
  /** The webhook endpoint's signing secret. */
  webhookSecret: string;
  customers: Map<string, Record<string, unknown>>;
  paymentMethods: Map<string, PaymentMethod>;
  setupIntents: Map<string, SetupIntent>;
  intents: Map<string, Intent>;
  /** Every request body seen, raw (to check that no card number ever reached the API from us). */
  bodies: string[];
  /** Every request as `METHOD /path`. */
  requests: string[];
  /** What Stripe.js's createPaymentMethod does in the browser: a bare card payment method. */
  createPaymentMethod(number: string): string;
  /**
   * What Stripe.js's confirmCardSetup does in the browser with the card element: the card becomes a
   * payment method attached to the SetupIntent's customer and the intent succeeds (the bank's
   * authentication, if any, passed). Returns the payment method's id.
   */
  confirmCardSetup(clientSecret: string, number: string): string;
  /** What Stripe.js does when the payer passes 3-D Secure: the intent succeeds. */
  completeAction(intentId: string): void;
  /** Payments with this payment method stay `processing` until `finishProcessing` (the bank is slow). */
  holdProcessing(paymentMethodId: string): void;
  /** The bank answers a processing payment; returns the webhook event Stripe sends about it. */
  finishProcessing(intentId: string, result: 'succeeded' | 'failed'): SignedEvent;
  /** A webhook event about a payment intent as it stands, signed as Stripe signs it. */
  eventFor(type: string, intentId: string, opts?: { timestamp?: number; secret?: string }): SignedEvent;
  close(): Promise<void>;
};

/** A webhook delivery: the exact body and its Stripe-Signature header. */
export type SignedEvent = { id: string; body: string; signature: string };

type SetupIntent = {
  id: string;
  object: 'setup_intent';
  customer: string;
  usage: string;
  payment_method: string | null;
  status: string;
  client_secret: string;
  metadata: Record<string, string>;
};

type PaymentMethod = {
  id: string;
  object: 'payment_method';
  type: 'card';
  customer: string | null;
  card: { brand: string; last4: string; exp_month: number; exp_year: number };
  number: string;
  /** Set up through a SetupIntent with usage off_session (the bank authenticated it for later charges). */
  offSessionReady: boolean;
};

type Intent = Record<string, unknown> & { id: string; status: string; customer: string };

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/**
 * Stripe's webhook signature (docs.stripe.com/webhooks#verify-manually): the header is
 * `t={timestamp},v1={signature}`, the signature an HMAC-SHA256 with the endpoint secret of
 * "{timestamp}.{raw body}", hex encoded.
 */
export function stripeSignature(body: string, secret: string, timestamp: number): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

/** `a[b][c]=v` form keys into nested objects. */
function parseForm(body: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.split(/\[|\]\[|\]/).filter(Boolean);
    let node = out;
    path.forEach((p, i) => {
      if (i === path.length - 1) node[p] = value;
      else node = (node[p] ??= {}) as Record<string, unknown>;
    });
  }
  return out;
}

/** `now`: Stripe's clock for event timestamps (tests pass the billing clock). */
export async function startFakeStripe(opts: { now?: () => Date } = {}): Promise<FakeStripe> {
  const clock = opts.now ?? (() => new Date());
  const secretKey = 'sk_test_fake_rally';
  const customers = new Map<string, Record<string, unknown>>();
  const paymentMethods = new Map<string, PaymentMethod>();
  const intents = new Map<string, Intent>();
  const setupIntents = new Map<string, SetupIntent>();
  const processingPms = new Set<string>();
  const requests: string[] = [];
  const webhookSecret = 'whsec_fake_rally';
  const byIdempotencyKey = new Map<string, { status: number; body: unknown }>();
  const bodies: string[] = [];

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
    res.end(JSON.stringify(body));
  };
  const error = (res: ServerResponse, status: number, err: Record<string, unknown>) =>
    send(res, status, { error: err });
  const publicPm = ({ number: _n, offSessionReady: _o, ...pm }: PaymentMethod) => pm;
  const missing = (res: ServerResponse, what: string, which: string | undefined) =>
    error(res, 404, {
      type: 'invalid_request_error',
      code: 'resource_missing',
      message: `No such ${what}: '${which ?? ''}'`,
    });

  function createIntent(form: Record<string, unknown>): { status: number; body: unknown } {
    const pm = paymentMethods.get(String(form.payment_method));
    const customer = String(form.customer);
    if (!pm || pm.customer !== customer) {
      return {
        status: 400,
        body: {
          error: {
            type: 'invalid_request_error',
            code: 'resource_missing',
            message: `No such PaymentMethod: '${String(form.payment_method)}'`,
          },
        },
      };
    }
    const intent: Intent = {
      id: id('pi'),
      object: 'payment_intent',
      amount: Number(form.amount),
      currency: String(form.currency),
      customer,
      payment_method: pm.id,
      description: form.description ?? null,
      metadata: (form.metadata as Record<string, string>) ?? {},
      client_secret: '',
      status: 'succeeded',
      last_payment_error: null,
      created: Math.floor(Date.now() / 1000),
    };
    intent.client_secret = `${intent.id}_secret_${randomBytes(8).toString('hex')}`;
    intents.set(intent.id, intent);
    if (pm.number.endsWith('0002')) {
      intent.status = 'requires_payment_method';
      const err = {
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'generic_decline',
        message: 'Your card was declined.',
      };
      intent.last_payment_error = err;
      return { status: 402, body: { error: { ...err, payment_intent: intent } } };
    }
    if (processingPms.has(pm.id)) {
      intent.status = 'processing';
      return { status: 200, body: intent };
    }
    // 3155 asks again off-session only when it was not set up for that; 3184 always asks.
    if ((pm.number.endsWith('3155') && !pm.offSessionReady) || pm.number.endsWith('3184')) {
      intent.status = 'requires_action';
      const err = {
        type: 'card_error',
        code: 'authentication_required',
        message: 'Your card was declined. This transaction requires authentication.',
      };
      intent.last_payment_error = err;
      return { status: 402, body: { error: { ...err, payment_intent: intent } } };
    }
    return { status: 200, body: intent };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    if (req.headers.authorization !== `Bearer ${secretKey}`) {
      return error(res, 401, { type: 'invalid_request_error', message: 'Invalid API Key provided' });
    }
    let raw = '';
    for await (const chunk of req) raw += chunk;
    if (raw) bodies.push(raw);
    const form = parseForm(raw);
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push(`${req.method} ${url.pathname}`);
    const parts = url.pathname.split('/').filter(Boolean); // v1, resource, id, action
    const key = req.headers['idempotency-key'];

    if (req.method === 'POST' && typeof key === 'string' && byIdempotencyKey.has(key)) {
      const first = byIdempotencyKey.get(key)!;
      return send(res, first.status, first.body);
    }
    const remember = (status: number, body: unknown) => {
      if (req.method === 'POST' && typeof key === 'string') byIdempotencyKey.set(key, { status, body });
      send(res, status, body);
    };

    if (parts[1] === 'customers' && req.method === 'POST' && !parts[2]) {
      const customer = {
        id: id('cus'),
        object: 'customer',
        name: form.name ?? null,
        email: form.email ?? null,
        metadata: form.metadata ?? {},
      };
      customers.set(customer.id, customer);
      return remember(200, customer);
    }
    if (parts[1] === 'customers' && req.method === 'POST' && parts[2]) {
      const customer = customers.get(parts[2]);
      if (!customer)
        return error(res, 404, {
          type: 'invalid_request_error',
          code: 'resource_missing',
          message: `No such customer: '${parts[2]}'`,
        });
      Object.assign(customer, form);
      return remember(200, customer);
    }
    // docs.stripe.com/api/setup_intents/create: starts in requires_payment_method with a client secret.
    if (parts[1] === 'setup_intents' && req.method === 'POST' && !parts[2]) {
      const customer = String(form.customer ?? '');
      if (!customers.has(customer)) return missing(res, 'customer', customer);
      const setup: SetupIntent = {
        id: id('seti'),
        object: 'setup_intent',
        customer,
        usage: String(form.usage ?? 'off_session'),
        payment_method: null,
        status: 'requires_payment_method',
        client_secret: '',
        metadata: (form.metadata as Record<string, string>) ?? {},
      };
      setup.client_secret = `${setup.id}_secret_${randomBytes(8).toString('hex')}`;
      setupIntents.set(setup.id, setup);
      return remember(200, setup);
    }
    if (parts[1] === 'setup_intents' && req.method === 'GET' && parts[2]) {
      const setup = setupIntents.get(parts[2]);
      return setup ? send(res, 200, setup) : missing(res, 'setupintent', parts[2]);
    }
    if (parts[1] === 'payment_methods' && req.method === 'GET' && parts[2] && !parts[3]) {
      const pm = paymentMethods.get(parts[2]);
      return pm ? send(res, 200, publicPm(pm)) : missing(res, 'PaymentMethod', parts[2]);
    }
    if (parts[1] === 'payment_methods' && parts[3] === 'attach' && req.method === 'POST') {
      const pm = paymentMethods.get(parts[2] ?? '');
      if (!pm) {
        return error(res, 404, {
          type: 'invalid_request_error',
          code: 'resource_missing',
          message: `No such PaymentMethod: '${parts[2]}'`,
        });
      }
      if (!customers.has(String(form.customer))) {
        return error(res, 404, {
          type: 'invalid_request_error',
          code: 'resource_missing',
          message: 'No such customer',
        });
      }
      pm.customer = String(form.customer);
      return remember(200, publicPm(pm));
    }
    if (parts[1] === 'payment_intents' && req.method === 'POST' && !parts[2]) {
      const made = createIntent(form);
      return remember(made.status, made.body);
    }
    if (parts[1] === 'payment_intents' && req.method === 'GET' && !parts[2]) {
      const customer = url.searchParams.get('customer');
      const data = [...intents.values()].filter((i) => !customer || i.customer === customer).reverse();
      return send(res, 200, { object: 'list', data, has_more: false, url: '/v1/payment_intents' });
    }
    const intent = intents.get(parts[2] ?? '');
    if (parts[1] === 'payment_intents' && !intent) {
      return error(res, 404, {
        type: 'invalid_request_error',
        code: 'resource_missing',
        message: `No such payment_intent: '${parts[2]}'`,
      });
    }
    if (parts[1] === 'payment_intents' && req.method === 'GET' && intent) return send(res, 200, intent);
    if (parts[1] === 'payment_intents' && parts[3] === 'confirm' && req.method === 'POST' && intent) {
      if (intent.status === 'requires_confirmation') intent.status = 'succeeded';
      return remember(200, intent);
    }
    return error(res, 404, {
      type: 'invalid_request_error',
      message: `Unrecognized request URL (${req.method}: ${url.pathname})`,
    });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => error(res, 500, { type: 'api_error', message: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('fake Stripe has no port');

  const makePm = (number: string) => {
    const pm: PaymentMethod = {
      id: id('pm'),
      object: 'payment_method',
      type: 'card',
      customer: null,
      card: {
        brand: number.startsWith('4') ? 'visa' : 'mastercard',
        last4: number.slice(-4),
        exp_month: 12,
        exp_year: 2031,
      },
      number,
      offSessionReady: false,
    };
    paymentMethods.set(pm.id, pm);
    return pm;
  };

  // docs.stripe.com/api/events/object: the event carries the object as it stands in data.object.
  function eventFor(type: string, intentId: string, opts: { timestamp?: number; secret?: string } = {}) {
    const intent = intents.get(intentId);
    if (!intent) throw new Error(`fake Stripe: no intent ${intentId}`);
    const created = Math.floor(clock().getTime() / 1000);
    const event = {
      id: id('evt'),
      object: 'event',
      api_version: '2026-10-28.endive',
      created,
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      data: { object: structuredClone(intent) },
    };
    const body = JSON.stringify(event, null, 2);
    const signature = stripeSignature(body, opts.secret ?? webhookSecret, opts.timestamp ?? created);
    return { id: event.id, body, signature };
  }

  return {
    url: `http://127.0.0.1:${address.port}`,
    secretKey,
    webhookSecret,
    customers,
    paymentMethods,
    setupIntents,
    intents,
    bodies,
    requests,
    createPaymentMethod: (number) => makePm(number).id,
    confirmCardSetup(clientSecret, number) {
      const setup = [...setupIntents.values()].find((s) => s.client_secret === clientSecret);
      if (!setup) throw new Error('fake Stripe: no SetupIntent with this client secret');
      const pm = makePm(number);
      // docs.stripe.com/api/setup_intents/confirm: on success the payment method is attached to
      // the SetupIntent's customer; with usage off_session the bank agreed to later off-session use.
      pm.customer = setup.customer;
      pm.offSessionReady = setup.usage === 'off_session';
      setup.payment_method = pm.id;
      setup.status = 'succeeded';
      return pm.id;
    },
    holdProcessing(paymentMethodId) {
      processingPms.add(paymentMethodId);
    },
    finishProcessing(intentId, result) {
      const intent = intents.get(intentId);
      if (intent?.status !== 'processing') throw new Error(`fake Stripe: ${intentId} is not processing`);
      if (result === 'succeeded') {
        intent.status = 'succeeded';
        return eventFor('payment_intent.succeeded', intentId);
      }
      intent.status = 'requires_payment_method';
      intent.last_payment_error = {
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'insufficient_funds',
        message: 'Your card has insufficient funds.',
      };
      return eventFor('payment_intent.payment_failed', intentId);
    },
    eventFor,
    completeAction(intentId) {
      const intent = intents.get(intentId);
      if (intent?.status === 'requires_action') {
        intent.status = 'succeeded';
        intent.last_payment_error = null;
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
