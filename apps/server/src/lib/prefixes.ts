import type { ServiceName } from '../config/env.ts';

/** URL prefix of each API base (SPEC.md §7). */
export const SERVICE_PREFIXES: Record<ServiceName, string> = { main: '/v1', sc: '/sc', biller: '/biller' };

export const API_PREFIXES: readonly string[] = Object.values(SERVICE_PREFIXES);
