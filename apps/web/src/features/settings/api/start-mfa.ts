import { useMutation } from '@tanstack/react-query';
import { mfaEnrolReply } from '@rally/shared/schemas/auth';
import { apiRequest } from '../../../lib/api-client.ts';

/** POST /v1/api/user/mfa: a new TOTP secret, its otpauth URL and a QR code (PNG data URL). */
export const startMfa = () => apiRequest('/v1/api/user/mfa', { method: 'POST', schema: mfaEnrolReply });

export function useStartMfa() {
  return useMutation({ mutationFn: startMfa });
}
