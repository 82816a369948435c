import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  BALANCE_CACHE_MS,
  balanceReply,
  billingAddressReply,
  billingInfoReply,
  cardReply,
  cardSetupReply,
  invoiceDetailReply,
  invoiceListReply,
  paymentIntentReply,
  subscriptionReply,
  usageReply,
} from '@rally/shared/schemas/billing';
import type { BillingAddress, BillingInfo, SetCardBody } from '@rally/shared/schemas/billing';
import { apiRequest } from '../../../lib/api-client.ts';

const biller = (clientId: string, path: string) => `/biller/client/${clientId}/${path}`;

/** GET /biller/client/{id}/balance: cents; SPEC.md §9 "Cached balance valid 10 minutes". */
export const balanceQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['billing', clientId, 'balance'],
    queryFn: ({ signal }) =>
      apiRequest(biller(clientId, 'balance'), { schema: balanceReply, signal, clientId }),
    staleTime: BALANCE_CACHE_MS,
    gcTime: BALANCE_CACHE_MS,
  });
export const useBalance = (clientId: string) => useQuery(balanceQueryOptions(clientId));

export const cardQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['billing', clientId, 'card'],
    queryFn: ({ signal }) => apiRequest(biller(clientId, 'card'), { schema: cardReply, signal, clientId }),
  });
export const useCard = (clientId: string) => useQuery(cardQueryOptions(clientId));

export const subscriptionQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['billing', clientId, 'subscription'],
    queryFn: ({ signal }) =>
      apiRequest(biller(clientId, 'subscription'), { schema: subscriptionReply, signal, clientId }),
  });
export const useSubscription = (clientId: string) => useQuery(subscriptionQueryOptions(clientId));

export const billingAddressQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['billing', clientId, 'address'],
    queryFn: ({ signal }) =>
      apiRequest(biller(clientId, 'chargebee/billing_address'), {
        schema: billingAddressReply,
        signal,
        clientId,
      }),
  });
export const useBillingAddress = (clientId: string) => useQuery(billingAddressQueryOptions(clientId));

/** SPEC.md §7 spells this path with /biller twice. */
const billingInfoPath = (clientId: string) => `/biller/biller/client/${clientId}/billing_info`;
export const billingInfoQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['billing', clientId, 'info'],
    queryFn: ({ signal }) =>
      apiRequest(billingInfoPath(clientId), { schema: billingInfoReply, signal, clientId }),
  });
export const useBillingInfo = (clientId: string) => useQuery(billingInfoQueryOptions(clientId));

export const invoicesQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['billing', clientId, 'invoices'],
    queryFn: ({ signal }) =>
      apiRequest(biller(clientId, 'invoices'), { schema: invoiceListReply, signal, clientId }),
  });
export const useInvoices = (clientId: string) => useQuery(invoicesQueryOptions(clientId));

export const invoiceQueryOptions = (clientId: string, invoiceId: string) =>
  queryOptions({
    queryKey: ['billing', clientId, 'invoices', invoiceId],
    queryFn: ({ signal }) =>
      apiRequest(biller(clientId, `invoices/${invoiceId}`), { schema: invoiceDetailReply, signal, clientId }),
  });
export const useInvoice = (clientId: string, invoiceId: string) =>
  useQuery(invoiceQueryOptions(clientId, invoiceId));

/** The usage report for a range in epoch seconds (SPEC.md §9); no range: the current billing month. */
export const usageQueryOptions = (clientId: string, range: { from?: number; to?: number } = {}) =>
  queryOptions({
    queryKey: ['billing', clientId, 'usage', range.from ?? null, range.to ?? null],
    queryFn: ({ signal }) =>
      apiRequest(biller(clientId, 'usage'), { schema: usageReply, signal, clientId, query: range }),
    placeholderData: keepPreviousData,
  });
export const useUsage = (clientId: string, range: { from?: number; to?: number } = {}) =>
  useQuery(usageQueryOptions(clientId, range));

/** After money moved: the balance is refreshed at once, whatever its cache time. */
function useRefreshBilling(clientId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: ['billing', clientId] });
}

/** Stripe: a SetupIntent for Stripe.js to confirm the new card against (off-session use). */
export function useStartCardSetup(clientId: string) {
  return useMutation({
    mutationFn: () =>
      apiRequest(biller(clientId, 'card/setup_intent'), {
        method: 'POST',
        body: {},
        schema: cardSetupReply,
        clientId,
        retries: 0,
      }),
    meta: { toast: false },
  });
}

export function useSetCard(clientId: string) {
  const queryClient = useQueryClient();
  const refresh = useRefreshBilling(clientId);
  return useMutation({
    mutationFn: (body: SetCardBody) =>
      apiRequest(biller(clientId, 'card'), { method: 'POST', body, schema: cardReply, clientId, retries: 0 }),
    meta: { toast: false },
    onSuccess: (reply) => {
      queryClient.setQueryData(cardQueryOptions(clientId).queryKey, reply);
      // A new card retries failed invoices on the server within moments.
      setTimeout(() => void refresh(), 2000);
      void refresh();
    },
  });
}

export function usePayInvoice(clientId: string) {
  const refresh = useRefreshBilling(clientId);
  return useMutation({
    mutationFn: (body: { invoice_id: string; confirm?: boolean }) =>
      apiRequest(biller(clientId, 'payment_intent'), {
        method: 'POST',
        body,
        schema: paymentIntentReply,
        clientId,
        // A 409 here means "already paid" or "being charged": never retried blindly.
        retries: 0,
      }),
    meta: { toast: false },
    onSettled: () => void refresh(),
  });
}

export function useUpdateSubscription(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (cancelAtPeriodEnd: boolean) =>
      apiRequest(biller(clientId, 'subscription'), {
        method: 'PUT',
        body: { cancel_at_period_end: cancelAtPeriodEnd },
        schema: subscriptionReply,
        clientId,
      }),
    onSuccess: (reply) => queryClient.setQueryData(subscriptionQueryOptions(clientId).queryKey, reply),
  });
}

export function useSaveBillingAddress(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (address: BillingAddress) =>
      apiRequest(biller(clientId, 'chargebee/billing_address'), {
        method: 'PUT',
        body: address,
        schema: billingAddressReply,
        clientId,
      }),
    meta: { toast: false },
    onSuccess: (reply) => queryClient.setQueryData(billingAddressQueryOptions(clientId).queryKey, reply),
  });
}

export function useSaveBillingInfo(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (info: BillingInfo) =>
      apiRequest(billingInfoPath(clientId), {
        method: 'PUT',
        body: info,
        schema: billingInfoReply,
        clientId,
      }),
    meta: { toast: false },
    onSuccess: (reply) => {
      queryClient.setQueryData(billingInfoQueryOptions(clientId).queryKey, reply);
      // The time zone moves the billing month and the usage dates.
      void queryClient.invalidateQueries({ queryKey: ['billing', clientId, 'usage'] });
      void queryClient.invalidateQueries({ queryKey: ['billing', clientId, 'subscription'] });
    },
  });
}
