import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';

// The files of a worker share one jsdom window and one module graph (isolate: false in
// vite.config.ts: a fresh process and window per file cost more than the tests themselves). This
// file runs before each test file, so each starts as a new page load would: the app's own modules
// evaluated anew (their page-load state: the auth store, the add-ons' configuration, the CSRF
// token; libraries stay loaded), no globals stubbed, real timers, empty storage and cookies, '/'.
vi.resetModules();
vi.unstubAllGlobals();
vi.useRealTimers();
localStorage.clear();
sessionStorage.clear();
for (const cookie of document.cookie.split(';')) {
  const name = cookie.split('=')[0]?.trim();
  if (name) document.cookie = `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
}
window.history.replaceState(null, '', '/');
document.head.innerHTML = '';
document.body.innerHTML = '';
document.title = '';

// findBy* and waitFor give up after 1 s by default: a screen that renders in 100 ms alone took
// several seconds while the PostgreSQL API suite and the PGlite one shared the two cores (9 tests
// failed so, none of them broken). A passing wait ends as soon as it sees its element.
configure({ asyncUtilTimeout: 10_000 });

// Mantine reads these browser APIs, which jsdom lacks.
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  }),
});
window.ResizeObserver ??= class {
  observe() {}
  unobserve() {}
  disconnect() {}
};
window.HTMLElement.prototype.scrollIntoView ??= () => {};

// STYLE.md: a console.error during a test fails it.
let errorSpy: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  errorSpy = vi.spyOn(console, 'error');
});
afterEach(() => {
  cleanup();
  const calls = errorSpy.mock.calls;
  errorSpy.mockRestore();
  if (calls.length)
    throw new Error(
      `console.error was called: ${calls.map((c: unknown[]) => c.map(String).join(' ')).join('\n')}`,
    );
});

// The app loads the query cache's code after its first screen (lib/query-loader.ts); screen tests
// render with AppProviders and read queries at once, so it is there from the start.
const { loadQueryModule } = await import('./src/lib/query-loader.ts');
await loadQueryModule();
