import { useMutation } from '@tanstack/react-query';
import { mfaConfirmReply } from '@rally/shared/schemas/auth';
import { apiRequest } from '../../../lib/api-client.ts';
import { refreshUser } from '../../../lib/auth/store.ts';

/** POST /v1/api/user/mfa/confirm: the first code turns MFA on and returns ten recovery codes. */
export const confirmMfa = (code: string) =>
  apiRequest('/v1/api/user/mfa/confirm', {
    method: 'POST',
    body: { code },
    schema: mfaConfirmReply,
    retries: 0,
  });

export function useConfirmMfa() {
  return useMutation({
    mutationFn: confirmMfa,
    meta: { toast: false },
    onSuccess: () => refreshUser().catch(() => undefined),
  });
}
