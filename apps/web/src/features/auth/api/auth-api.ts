import { z } from 'zod';
import { invitationLookupReply, loginReply, messageReply, selfReply } from '@rally/shared/schemas/auth';
import { apiRequest } from '../../../lib/api-client.ts';

/** Calls of SPEC.md §7 "Authentication and users" used by the sign-in screens. */

export const signIn = (body: { email: string; password: string }) =>
  apiRequest('/v1/api/auth', { method: 'POST', body, schema: loginReply, retries: 0 });

export const verifyMfa = (code: string) =>
  apiRequest('/v1/api/auth/mfa', {
    method: 'POST',
    body: { code },
    schema: z.object({ ok: z.literal(true) }),
    retries: 0,
  });

export const requestMagicLink = (email: string) =>
  apiRequest('/v1/api/auth/link', { method: 'POST', body: { email }, schema: messageReply });

export const register = (body: {
  first_name: string;
  last_name: string;
  email: string;
  password: string;
  company_name: string;
}) => apiRequest('/v1/api/register', { method: 'POST', body, schema: selfReply });

export const requestPasswordReset = (email: string) =>
  apiRequest('/v1/api/user/reset_password', { method: 'POST', body: { email }, schema: messageReply });

export const resetPassword = (hash: string, password: string) =>
  apiRequest('/v1/api/user/reset_password', {
    method: 'PATCH',
    body: { hash, password },
    schema: messageReply,
    retries: 0,
  });

export const changePassword = (body: { current_password: string; password: string }) =>
  apiRequest('/v1/api/user/self', { method: 'PATCH', body, schema: selfReply });

export const getInvitationQueryOptions = (hash: string) => ({
  queryKey: ['user_request', hash] as const,
  queryFn: ({ signal }: { signal: AbortSignal }) =>
    apiRequest(`/v1/api/user_request/${encodeURIComponent(hash)}`, { schema: invitationLookupReply, signal }),
  retry: false,
});

export const acceptInvitation = (body: {
  hash: string;
  first_name?: string;
  last_name?: string;
  password?: string;
}) => apiRequest('/v1/api/signup', { method: 'POST', body, schema: selfReply, retries: 0 });

export const ssoStartUrl = (username: string) => `/v1/api/auth/sso?username=${encodeURIComponent(username)}`;
