import { z } from 'zod';
import { clientSchema, integrationSchema, selfReply } from '@rally/shared/schemas/auth';

/**
 * The replies the auth store checks, in a chunk of their own: the validation library is a quarter of
 * the first download otherwise, and /login has no session to check (issue 19: /login JS budget).
 */
export { selfReply };
export const clientsReply = z.array(clientSchema);
export const integrationsReply = z.array(integrationSchema);
