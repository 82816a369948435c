import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { refreshUser } from '../../../lib/auth/store.ts';

/** DELETE /v1/api/user/mfa {code}: turns MFA off (a current code proves the device is at hand). */
export const disableMfa = async (code: string): Promise<void> => {
  await apiRequest('/v1/api/user/mfa', { method: 'DELETE', body: { code }, retries: 0 });
};

export function useDisableMfa() {
  return useMutation({
    mutationFn: disableMfa,
    meta: { toast: false },
    onSuccess: () => refreshUser().catch(() => undefined),
  });
}
