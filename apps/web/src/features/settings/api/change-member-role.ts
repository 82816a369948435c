import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { BuiltInRole } from '@rally/shared';
import { memberSchema } from '@rally/shared/schemas/auth';
import { apiRequest } from '../../../lib/api-client.ts';
import { getAuthState, refreshUser } from '../../../lib/auth/store.ts';
import { getMembersQueryOptions } from './get-members.ts';

export type ChangeMemberRoleInput = { clientId: string; userId: string; role: BuiltInRole };

/**
 * PATCH /v1/rest/client/{clientId}/user/{id} (users.write). 403 when a non-owner touches the owner
 * role, 409 when it would remove the last owner: answers, not glitches, so they are not retried.
 */
export const changeMemberRole = ({ clientId, userId, role }: ChangeMemberRoleInput) =>
  apiRequest(`/v1/rest/client/${clientId}/user/${userId}`, {
    method: 'PATCH',
    body: { role },
    schema: memberSchema,
    retries: 0,
  });

export function useChangeMemberRole() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: changeMemberRole,
    onSuccess: async (_member, { clientId, userId }) => {
      // A change of one's own role changes one's permissions on this very screen.
      if (userId === getAuthState().user?.id) await refreshUser().catch(() => undefined);
      await queryClient.invalidateQueries({ queryKey: getMembersQueryOptions(clientId).queryKey });
    },
  });
}
