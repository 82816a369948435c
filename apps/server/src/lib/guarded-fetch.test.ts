import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FetchBlockedError,
  GuardedFetchError,
  blockedAddressRange,
  checkFetchableUrl,
  guardedFetch,
} from './guarded-fetch.ts';

/** Every spelling of an internal address the guard must refuse (the list and more). */
export const REFUSED_URLS = [
  'http://127.0.0.1/',
  'http://127.1/',
  'http://2130706433/',
  'http://0x7f.1/',
  'http://0x7f000001/',
  'http://017700000001/',
  'http://0.0.0.0/',
  'http://0/',
  'http://10.0.0.1/',
  'http://172.16.0.1/',
  'http://172.31.255.254/',
  'http://192.168.1.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://169.254.0.1/',
  'http://100.64.0.1/',
  'http://100.127.255.254/',
  'http://224.0.0.1/',
  'http://239.255.255.250/',
  'http://255.255.255.255/',
  'http://192.0.0.1/',
  'http://192.0.2.1/',
  'http://198.18.0.1/',
  'http://240.0.0.1/',
  'http://[::1]/',
  'http://[::]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[::ffff:10.0.0.1]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[::127.0.0.1]/',
  'http://[::7f00:1]/',
  'http://[64:ff9b::7f00:1]/',
  'http://[64:ff9b::127.0.0.1]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[64:ff9b:1::1]/',
  'http://[2002:7f00:1::]/',
  'http://[2002:a00:1::1]/',
  'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
  'http://[fe80::1]/',
  'http://[fc00::1]/',
  'http://[fd00::1]/',
  'http://[fd00:ec2::254]/',
  'http://[ff02::1]/',
  'http://[fec0::1]/',
  'http://[2001:db8::1]/',
];

function server(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const s = http.createServer(handler);
  return new Promise((resolve) =>
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((r) => {
            s.closeAllConnections();
            s.close(() => r());
          }),
      });
    }),
  );
}

describe('blockedAddressRange', () => {
  it('refuses internal addresses and lets public ones through', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '::1', '::ffff:7f00:1', '::127.0.0.1', '64:ff9b::7f00:1']) {
      expect(blockedAddressRange(a), a).not.toBeNull();
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808']) {
      expect(blockedAddressRange(a), a).toBeNull();
    }
    expect(blockedAddressRange('2002:808:808::1')).toBeNull();
  });
});

describe('guardedFetch', () => {
  let fake: Awaited<ReturnType<typeof server>>;
  let hits = 0;
  beforeAll(async () => {
    fake = await server((req, res) => {
      hits++;
      if (req.url === '/silent') return; // never answers
      if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(64 * 1024, 1);
        let sent = 0;
        const pump = () => {
          while (sent < 2 * 1024 * 1024) {
            sent += chunk.length;
            if (!res.write(chunk)) return res.once('drain', pump);
          }
          res.end();
        };
        return pump();
      }
      if (req.url?.startsWith('/redirect?to=')) {
        res.writeHead(302, { location: decodeURIComponent(req.url.slice('/redirect?to='.length)) });
        return res.end();
      }
      if (req.url === '/echo') {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ method: req.method, body: Buffer.concat(chunks).toString() }));
        });
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('hello');
    });
  });
  afterAll(() => fake.close());

  it.each(REFUSED_URLS)('refuses %s without connecting', async (url) => {
    const err = await guardedFetch(url, {}, { timeoutMs: 2000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchBlockedError);
    expect((err as FetchBlockedError).reason).toBe('address');
  });

  it('refuses the loopback fake itself, and a name that resolves to loopback (localhost)', async () => {
    const before = hits;
    await expect(guardedFetch(`${fake.url}/`)).rejects.toMatchObject({ reason: 'address' });
    const port = new URL(fake.url).port;
    await expect(guardedFetch(`http://localhost:${port}/`)).rejects.toMatchObject({ reason: 'address' });
    // A resolver that answers a public-looking name with an internal address.
    const lookup = async () => [{ address: '127.0.0.1', family: 4 }];
    await expect(guardedFetch(`http://images.example.com:${port}/`, {}, { lookup })).rejects.toMatchObject({
      name: 'FetchBlockedError',
      reason: 'address',
    });
    // One internal address among public ones refuses the host.
    const mixed = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '::1', family: 6 },
    ];
    await expect(checkFetchableUrl('http://mixed.example.com/', { lookup: mixed })).rejects.toMatchObject({
      reason: 'address',
    });
    expect(hits).toBe(before);
  });

  it('refuses schemes other than http(s)', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'gopher://127.0.0.1:70/', 'data:,x']) {
      await expect(guardedFetch(url), url).rejects.toMatchObject({ reason: 'scheme' });
    }
  });

  it('connects to the address it checked, not to a second DNS answer', async () => {
    // The resolver answers once with the fake's address; were a second lookup made, it would fail.
    let calls = 0;
    const port = new URL(fake.url).port;
    const lookup = async () => {
      calls++;
      if (calls > 1) throw new Error('second lookup');
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const res = await guardedFetch(`http://pinned.test:${port}/`, {}, { lookup, allowPrivate: true });
    expect(await res.text()).toBe('hello');
    expect(calls).toBe(1);
  });

  it('with ALLOW_PRIVATE_FETCH reaches a loopback fake: status, headers, body, POST', async () => {
    const res = await guardedFetch(`${fake.url}/`, {}, { allowPrivate: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(await res.text()).toBe('hello');
    const echo = await guardedFetch(
      `${fake.url}/echo`,
      { method: 'POST', body: new URLSearchParams({ a: '1' }) },
      { allowPrivate: true },
    );
    expect(await echo.json()).toEqual({ method: 'POST', body: 'a=1' });
  });

  it('re-checks each redirect: an allowed URL that redirects to an internal one is refused', async () => {
    // The fake stands in for a public host (only its exact address is trusted); private addresses
    // stay refused, so each redirect target below is judged by the rules.
    const port = new URL(fake.url).port;
    const opts = { trustAddress: (a: string) => a === '127.0.0.1' };
    const lookup = async () => [{ address: '127.0.0.1', family: 4 }];
    const first = `http://public.test:${port}`;
    expect(await (await guardedFetch(`${first}/`, {}, { ...opts, lookup })).text()).toBe('hello');
    for (const to of [
      `http://127.0.0.2:${port}/`,
      `http://[::1]:${port}/`,
      'http://169.254.169.254/latest/meta-data/',
      `http://2130706434:${port}/`, // 127.0.0.2
    ]) {
      const err = await guardedFetch(
        `${first}/redirect?to=${encodeURIComponent(to)}`,
        {},
        { ...opts, lookup },
      ).catch((e: unknown) => e);
      expect(err, to).toBeInstanceOf(FetchBlockedError);
      expect((err as FetchBlockedError).reason, to).toBe('address');
    }
    // With private addresses allowed a redirect is followed…
    const ok = await guardedFetch(
      `${fake.url}/redirect?to=${encodeURIComponent('/')}`,
      {},
      { allowPrivate: true },
    );
    expect(ok.redirected).toBe(true);
    expect(await ok.text()).toBe('hello');
    // …but never to another scheme.
    await expect(
      guardedFetch(
        `${fake.url}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`,
        {},
        { allowPrivate: true },
      ),
    ).rejects.toMatchObject({ reason: 'scheme' });
  });

  it('stops after maxRedirects', async () => {
    const loop = `${fake.url}/redirect?to=${encodeURIComponent('/redirect?to=%2Fredirect%3Fto%3D%252F')}`;
    await expect(guardedFetch(loop, {}, { allowPrivate: true, maxRedirects: 1 })).rejects.toMatchObject({
      reason: 'redirects',
    });
  });

  it('gives up on a silent server at the total timeout', async () => {
    const started = Date.now();
    const err = await guardedFetch(`${fake.url}/silent`, {}, { allowPrivate: true, timeoutMs: 300 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GuardedFetchError);
    expect((err as GuardedFetchError).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('aborts a body over the size cap', async () => {
    await expect(
      guardedFetch(`${fake.url}/big`, {}, { allowPrivate: true, maxBytes: 100_000 }),
    ).rejects.toMatchObject({ reason: 'too_large' });
    const whole = await guardedFetch(`${fake.url}/big`, {}, { allowPrivate: true });
    expect((await whole.arrayBuffer()).byteLength).toBe(2 * 1024 * 1024);
  });

  it('answers a closed port at once with a network error', async () => {
    const closed = await server(() => undefined);
    const url = closed.url;
    await closed.close();
    const started = Date.now();
    await expect(guardedFetch(url, {}, { allowPrivate: true })).rejects.toMatchObject({ reason: 'network' });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
