import type { Membership, Self } from '@rally/shared/schemas/auth';

/** Ids of the demo clients and user, as the tests' fake servers use them. */
export const CLIENT_IDS = {
  northwind: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000001',
  acme: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000002',
  globex: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000003',
} as const;
export const DANA_ID = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c0000aa';

/** The self reply of Dana Reyes with these memberships (and any field overridden). */
export function selfFixture(clients: Membership[], patch: Partial<Self> = {}): Self {
  return {
    id: DANA_ID,
    email: 'dana@example.com',
    first_name: 'Dana',
    last_name: 'Reyes',
    mfa_enabled: false,
    has_password: true,
    clients,
    ...patch,
  };
}
