import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { getMembersQueryOptions } from './get-members.ts';

export type RemoveMemberInput = { clientId: string; userId: string };

/** DELETE /v1/rest/user/{id} (users.write): removes the member from the current client only. */
export const removeMember = async ({ clientId, userId }: RemoveMemberInput): Promise<void> => {
  await apiRequest(`/v1/rest/user/${userId}`, { method: 'DELETE', clientId, retries: 0 });
};

export function useRemoveMember() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: removeMember,
    onSuccess: (_r, { clientId }) =>
      queryClient.invalidateQueries({ queryKey: getMembersQueryOptions(clientId).queryKey }),
  });
}
