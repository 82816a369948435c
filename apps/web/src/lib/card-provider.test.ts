import { beforeEach, describe, expect, it } from 'vitest';
import { loadCardProvider } from './card-provider.ts';

const stripeScripts = () => document.querySelectorAll('script[src="https://js.stripe.com/v3"]');

beforeEach(() => {
  document.head.innerHTML = '';
});

describe('loadCardProvider (SPEC.md §2)', () => {
  it('loads nothing without a publishable key', () => {
    expect(loadCardProvider(null)).toBe(false);
    expect(stripeScripts()).toHaveLength(0);
  });

  it('adds Stripe.js once when a key is configured', () => {
    expect(loadCardProvider('pk_test_123')).toBe(true);
    expect(loadCardProvider('pk_test_123')).toBe(false);
    expect(stripeScripts()).toHaveLength(1);
  });
});
