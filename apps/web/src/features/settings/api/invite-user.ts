import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { BuiltInRole } from '@rally/shared';
import { invitationSchema } from '@rally/shared/schemas/auth';
import { apiRequest } from '../../../lib/api-client.ts';
import { getInvitationsQueryOptions } from './get-invitations.ts';

export type InviteUserInput = { clientId: string; email: string; role: BuiltInRole };

/**
 * POST /v1/rest/user_request (users.write): mails an invitation to the current client. Sending it
 * again for the same address renews the link (a resend). 409 means already a member: not retried.
 */
export const inviteUser = ({ clientId, email, role }: InviteUserInput) =>
  apiRequest('/v1/rest/user_request', {
    method: 'POST',
    body: { email, role },
    schema: invitationSchema,
    clientId,
    retries: 0,
  });

/** `toast: false` for the invite form, which shows its error inline. */
export function useInviteUser({ toast = true }: { toast?: boolean } = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: inviteUser,
    meta: { toast },
    onSuccess: (_r, { clientId }) =>
      queryClient.invalidateQueries({ queryKey: getInvitationsQueryOptions(clientId).queryKey }),
  });
}
