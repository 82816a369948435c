import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { getInvitationsQueryOptions } from './get-invitations.ts';

export type RevokeInvitationInput = { clientId: string; id: string };

/** DELETE /v1/rest/client/user_request?id= (users.write): the invitation link stops working. */
export const revokeInvitation = async ({ clientId, id }: RevokeInvitationInput): Promise<void> => {
  await apiRequest('/v1/rest/client/user_request', { method: 'DELETE', query: { id }, clientId });
};

export function useRevokeInvitation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeInvitation,
    onSuccess: (_r, { clientId }) =>
      queryClient.invalidateQueries({ queryKey: getInvitationsQueryOptions(clientId).queryKey }),
  });
}
