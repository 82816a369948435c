import { useMutation } from '@tanstack/react-query';
import { selfReply } from '@rally/shared/schemas/auth';
import { apiRequest } from '../../../lib/api-client.ts';
import { refreshUser } from '../../../lib/auth/store.ts';

export type UpdateSelfInput = {
  first_name?: string;
  last_name?: string;
  password?: string;
  current_password?: string;
};

/** PATCH /v1/api/user/self: name or password (a new password ends the account's other sessions). */
export const updateSelf = (body: UpdateSelfInput) =>
  apiRequest('/v1/api/user/self', { method: 'PATCH', body, schema: selfReply });

/** The profile and password forms show their own errors inline, so no toast. */
export function useUpdateSelf() {
  return useMutation({
    mutationFn: updateSelf,
    meta: { toast: false },
    // The header shows the name; a failed refresh only leaves it stale until the next load.
    onSuccess: () => refreshUser().catch(() => undefined),
  });
}
