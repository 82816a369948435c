import { z } from 'zod';

/**
 * The replies the sign-in calls check, loaded with the first call rather than with the screen, so the
 * validation library is not part of /login's first download (issue 19).
 */
export { invitationLookupReply, loginReply, messageReply, selfReply } from '@rally/shared/schemas/auth';
export const mfaReply = z.object({ ok: z.literal(true) });
