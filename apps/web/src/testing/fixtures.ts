import { BUILT_IN_ROLES } from '@rally/shared';
import type { Membership, Self } from '@rally/shared/schemas/auth';
import type { fakeServer } from './render.tsx';

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

export type Routes = Parameters<typeof fakeServer>[0];
export type Role = keyof typeof BUILT_IN_ROLES;

/** The replies that sign Dana in to Acme, her default and only client, with `role` (no integrations). */
export function acmeSession(role: Role): Routes {
  const acme = CLIENT_IDS.acme;
  return {
    'GET /v1/api/user/self': {
      body: selfFixture([
        {
          client_id: acme,
          client_name: 'Acme',
          is_default: true,
          role,
          permissions: [...BUILT_IN_ROLES[role]],
        },
      ]),
    },
    '/v1/rest/client': { body: [{ id: acme, name: 'Acme', parent_id: null, role, is_default: true }] },
    [`/v1/rest/client/${acme}/integrations`]: { body: [] },
    '/v1/api/config': { body: EVERYTHING_SET_UP },
  };
}

/** GET /v1/api/config of an installation with every sign-in provider and vendor app set up. */
export const EVERYTHING_SET_UP = {
  analytics: null,
  gtm_id: null,
  stripe_publishable_key: null,
  sign_in: { google: true, microsoft: true },
  connect: { salesloft: true, outreach: true, salesforce: true, hubspot: true },
};
