/**
 * The CSRF token: replaced by every response's X-Xsrf-Token header and shared with the other tabs
 * through the BroadcastChannel named 'csrf' (SPEC.md §3, §7).
 */
const CHANNEL = 'csrf';
let token: string | null = null;
let channel: BroadcastChannel | null = null;

function ensureChannel(): BroadcastChannel | null {
  if (channel || typeof BroadcastChannel === 'undefined') return channel;
  channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (e: MessageEvent<unknown>) => {
    if (typeof e.data === 'string') token = e.data;
  };
  return channel;
}

export function getCsrfToken(): string | null {
  ensureChannel();
  return token;
}

export function setCsrfToken(next: string): void {
  ensureChannel();
  if (next === token) return;
  token = next;
  channel?.postMessage(next);
}
