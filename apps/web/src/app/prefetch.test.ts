import { afterEach, describe, expect, it, vi } from 'vitest';
import { installPrefetch } from './prefetch.ts';

let uninstall: (() => void) | undefined;
afterEach(() => {
  uninstall?.();
  document.body.innerHTML = '';
  Reflect.deleteProperty(navigator, 'connection');
});

function setConnection(connection: { saveData?: boolean; effectiveType?: string } | undefined) {
  Object.defineProperty(navigator, 'connection', { value: connection, configurable: true });
}

function hover(href: string) {
  const a = document.createElement('a');
  a.href = href;
  const span = document.createElement('span');
  a.appendChild(span);
  document.body.appendChild(a);
  span.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
}

describe('prefetch on link hover (SPEC.md §2)', () => {
  it("loads a route's screen once, however often its links are hovered", () => {
    const load = vi.fn(async () => ({}));
    uninstall = installPrefetch(document, load);
    hover('/clients?client_id=abc');
    hover('/clients');
    hover('/cadence/42');
    expect(load).toHaveBeenCalledTimes(2);
    expect(load).toHaveBeenNthCalledWith(1, 'clients');
    expect(load).toHaveBeenNthCalledWith(2, 'cadence');
  });

  it('ignores other origins and paths outside the route table', () => {
    const load = vi.fn(async () => ({}));
    uninstall = installPrefetch(document, load);
    hover('https://example.com/clients');
    hover('/no/such/page/here');
    expect(load).not.toHaveBeenCalled();
  });

  it.each([{ saveData: true }, { effectiveType: '2g' }, { effectiveType: 'slow-2g' }])(
    'skips a slow or data-saving connection (%j)',
    (connection) => {
      setConnection(connection);
      const load = vi.fn(async () => ({}));
      uninstall = installPrefetch(document, load);
      hover('/clients');
      expect(load).not.toHaveBeenCalled();
    },
  );

  it('prefetches on a fast connection', () => {
    setConnection({ saveData: false, effectiveType: '4g' });
    const load = vi.fn(async () => ({}));
    uninstall = installPrefetch(document, load);
    hover('/clients');
    expect(load).toHaveBeenCalledOnce();
  });
});
