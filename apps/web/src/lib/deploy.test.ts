import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

async function freshModule(replies: (() => Response)[]) {
  let i = 0;
  vi.stubGlobal('fetch', async () => (replies[Math.min(i++, replies.length - 1)] as () => Response)());
  return import('./deploy.ts');
}

describe('"A new deployment is detected by polling a latest-build file"', () => {
  it('marks the app stale when the build id changes, not before', async () => {
    const m = await freshModule([
      () => new Response('build-1'),
      () => new Response('build-1'),
      () => new Response('build-2'),
    ]);
    expect(await m.checkForNewBuild()).toBe(false);
    expect(await m.checkForNewBuild()).toBe(false);
    expect(await m.checkForNewBuild()).toBe(true);
    expect(m.isStale()).toBe(true);
  });

  it('"Build-manifest fetch errors 404 and 403 are tolerated"', async () => {
    const m = await freshModule([
      () => new Response('build-1'),
      () => new Response('nope', { status: 404 }),
      () => new Response('nope', { status: 403 }),
      () => new Response('build-1'),
    ]);
    for (let i = 0; i < 4; i++) expect(await m.checkForNewBuild()).toBe(false);
  });

  it('recognises stale chunk load errors', async () => {
    const m = await freshModule([() => new Response('x')]);
    expect(
      m.isChunkLoadError(new TypeError('Failed to fetch dynamically imported module: /assets/feed-abc.js')),
    ).toBe(true);
    expect(m.isChunkLoadError(new Error('Something else'))).toBe(false);
  });
});
