/**
 * Work that must not compete with the first screen for the network: the add-ons' configuration, the
 * toast container. It starts once the first screen has been committed and painted (the router
 * calls firstScreenShown), so /login's download is only what /login needs (issue 19).
 */
let shown = false;
const waiting: (() => void)[] = [];

export function afterFirstScreen(fn: () => void): void {
  if (shown) fn();
  else waiting.push(fn);
}

export function firstScreenShown(): void {
  if (shown) return;
  shown = true;
  // In the first idle moment after the screen's commit and paint (or within a second on a busy page).
  const run = () => waiting.splice(0).forEach((fn) => fn());
  if (typeof requestIdleCallback === 'function') requestIdleCallback(run, { timeout: 1000 });
  else setTimeout(run, 50);
}
