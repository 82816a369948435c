type StoredCookie = { value: string; path: string };

/**
 * A browser over real HTTP: follows redirects one by one and keeps cookies per origin and path, so a
 * test walks app → provider → login → app exactly as a user's browser would.
 */
export class HttpBrowser {
  private readonly jar = new Map<string, Map<string, StoredCookie>>();

  cookie(origin: string, name: string): string | undefined {
    return this.jar.get(origin)?.get(name)?.value;
  }

  async get(url: string | URL): Promise<Response> {
    const u = new URL(url);
    const cookies = [...(this.jar.get(u.origin) ?? new Map<string, StoredCookie>())]
      .filter(([, c]) => c.path === '/' || u.pathname === c.path || u.pathname.startsWith(`${c.path}/`))
      .map(([name, c]) => `${name}=${c.value}`);
    const res = await fetch(u, {
      redirect: 'manual',
      headers: cookies.length ? { cookie: cookies.join('; ') } : {},
    });
    for (const line of res.headers.getSetCookie()) this.store(u.origin, line);
    return res;
  }

  /** A write as the app's script makes it: a CSRF token first, then the JSON body with that token. */
  post(url: string | URL, body: unknown): Promise<Response> {
    return this.call('POST', url, { body });
  }

  /**
   * A call as the app's script makes it: the cookies, `x-xsrf-token` on writes (fetched first), a
   * JSON body, and any other headers (`x-client-id`).
   */
  async call(
    method: string,
    url: string | URL,
    opts: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const u = new URL(url);
    const headers: Record<string, string> = { ...opts.headers };
    if (method !== 'GET') {
      headers['x-xsrf-token'] =
        (await this.get(`${u.origin}/v1/api/auth/csrf`)).headers.get('x-xsrf-token') ?? '';
    }
    const cookies = [...(this.jar.get(u.origin) ?? new Map<string, StoredCookie>())]
      .filter(([, c]) => c.path === '/' || u.pathname === c.path || u.pathname.startsWith(`${c.path}/`))
      .map(([name, c]) => `${name}=${c.value}`);
    if (cookies.length) headers.cookie = cookies.join('; ');
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(u, {
      method,
      redirect: 'manual',
      headers,
      ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
    });
    for (const line of res.headers.getSetCookie()) this.store(u.origin, line);
    return res;
  }

  /** Follows redirects from `url` until `stop` says so or a page answers; returns where it ended. */
  async navigate(
    url: string | URL,
    stop: (u: URL) => boolean = () => false,
  ): Promise<{ url: URL; res?: Response }> {
    let at = new URL(url);
    for (let hop = 0; hop < 20; hop++) {
      if (stop(at)) return { url: at };
      const res = await this.get(at);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { url: at, res };
      at = new URL(location, at);
    }
    throw new Error('too many redirects');
  }

  private store(origin: string, line: string) {
    const [pair = '', ...attributes] = line.split(';').map((s) => s.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const attr = (key: string) =>
      attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
    const maxAge = attr('max-age');
    const expires = attr('expires');
    const gone =
      value === '' ||
      (maxAge !== undefined && Number(maxAge) <= 0) ||
      (expires !== undefined && Date.parse(expires) < Date.now());
    const cookies = this.jar.get(origin) ?? new Map<string, StoredCookie>();
    this.jar.set(origin, cookies);
    if (gone) cookies.delete(name);
    else cookies.set(name, { value, path: attr('path') ?? '/' });
  }
}

/** Stops a walk at the app's OAuth return page. */
export const atSpaCallback = (u: URL) => u.pathname === '/auth/callback';
