import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A small fake of the Stripe API on loopback, only what the stripe payment provider uses:
 * customers (create, update), payment methods (attach; `createPaymentMethod` stands in for
 * Stripe.js making one in the browser), payment intents (create with `Idempotency-Key`, retrieve,
 * confirm, list by customer). Cards behave as Stripe's test cards: 4242… succeeds, 0002 is
 * declined, 3155 needs the payer's authentication off-session. Requests are form-encoded with
 * bracketed keys, answered in Stripe's JSON and error shapes.
 */
export type FakeStripe = {
  url: string;
  secretKey: string;
  customers: Map<string, Record<string, unknown>>;
  paymentMethods: Map<string, PaymentMethod>;
  intents: Map<string, Intent>;
  /** Every request body seen, raw (to check that no card number ever reached the API from us). */
  bodies: string[];
  /** What Stripe.js does in the browser: makes a card payment method from the card element. */
  createPaymentMethod(number: string): string;
  /** What Stripe.js does when the payer passes 3-D Secure: the intent succeeds. */
  completeAction(intentId: string): void;
  close(): Promise<void>;
};

type PaymentMethod = {
  id: string;
  object: 'payment_method';
  type: 'card';
  customer: string | null;
  card: { brand: string; last4: string; exp_month: number; exp_year: number };
  number: string;
};

type Intent = Record<string, unknown> & { id: string; status: string; customer: string };

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

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

export async function startFakeStripe(): Promise<FakeStripe> {
  const secretKey = 'sk_test_fake_rally';
  const customers = new Map<string, Record<string, unknown>>();
  const paymentMethods = new Map<string, PaymentMethod>();
  const intents = new Map<string, Intent>();
  const byIdempotencyKey = new Map<string, { status: number; body: unknown }>();
  const bodies: string[] = [];

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
    res.end(JSON.stringify(body));
  };
  const error = (res: ServerResponse, status: number, err: Record<string, unknown>) =>
    send(res, status, { error: err });
  const publicPm = ({ number: _n, ...pm }: PaymentMethod) => pm;

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
    if (pm.number.endsWith('3155')) {
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

  return {
    url: `http://127.0.0.1:${address.port}`,
    secretKey,
    customers,
    paymentMethods,
    intents,
    bodies,
    createPaymentMethod(number) {
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
      };
      paymentMethods.set(pm.id, pm);
      return pm.id;
    },
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
