import { apiRequest } from '../../../lib/api-client.ts';

const replies = () => import('./auth-replies.ts');

/** Calls of SPEC.md §7 "Authentication and users" used by the sign-in screens. */

export const signIn = async (body: { email: string; password: string }) =>
  apiRequest('/v1/api/auth', { method: 'POST', body, schema: (await replies()).loginReply, retries: 0 });

export const verifyMfa = async (code: string) =>
  apiRequest('/v1/api/auth/mfa', {
    method: 'POST',
    body: { code },
    schema: (await replies()).mfaReply,
    retries: 0,
  });

export const requestMagicLink = async (email: string) =>
  apiRequest('/v1/api/auth/link', {
    method: 'POST',
    body: { email },
    schema: (await replies()).messageReply,
  });

export const register = async (body: {
  first_name: string;
  last_name: string;
  email: string;
  password: string;
  company_name: string;
}) => apiRequest('/v1/api/register', { method: 'POST', body, schema: (await replies()).messageReply });

/** Finishes a sign-up from its e-mailed link; the reply signs in. */
export const confirmRegistration = async (token: string, password: string) =>
  apiRequest('/v1/api/register/confirm', {
    method: 'POST',
    body: { token, password },
    schema: (await replies()).selfReply,
    retries: 0,
  });

export const requestPasswordReset = async (email: string) =>
  apiRequest('/v1/api/user/reset_password', {
    method: 'POST',
    body: { email },
    schema: (await replies()).messageReply,
  });

export const resetPassword = async (hash: string, password: string) =>
  apiRequest('/v1/api/user/reset_password', {
    method: 'PATCH',
    body: { hash, password },
    schema: (await replies()).messageReply,
    retries: 0,
  });

export const changePassword = async (body: { current_password: string; password: string }) =>
  apiRequest('/v1/api/user/self', { method: 'PATCH', body, schema: (await replies()).selfReply });

export const getInvitationQueryOptions = (hash: string) => ({
  queryKey: ['user_request', hash] as const,
  queryFn: async ({ signal }: { signal: AbortSignal }) =>
    apiRequest(`/v1/api/user_request/${encodeURIComponent(hash)}`, {
      schema: (await replies()).invitationLookupReply,
      signal,
    }),
  retry: false,
});

export const acceptInvitation = async (body: {
  hash: string;
  first_name?: string;
  last_name?: string;
  password?: string;
}) => apiRequest('/v1/api/signup', { method: 'POST', body, schema: (await replies()).selfReply, retries: 0 });

export const ssoStartUrl = (username: string) => `/v1/api/auth/sso?username=${encodeURIComponent(username)}`;
