import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import {
  activityDefinitionReply,
  crmOwnerSchema,
  crmRedirectReply,
  crmSettingsSchema,
  crmStageSchema,
  marketoConnectionReply,
  stageSelectionReply,
} from '@rally/shared/schemas/crm';
import type {
  CrmSettings,
  CrmSourceName,
  MarketoConnectionBody,
  SalesforceLogin,
} from '@rally/shared/schemas/crm';
import { apiRequest } from '../../../lib/api-client.ts';
import { refreshIntegrations } from '../../../lib/auth/store.ts';
import { SYNC_POLL_MS } from './integrations.ts';

const settingsKey = (clientId: string, source: CrmSourceName) => ['crm-settings', clientId, source];

/** GET /v1/integration/crm/{source}/client/{id}/settings; polls while a sync runs (the progress bar). */
export function useCrmSettings(clientId: string, source: CrmSourceName) {
  return useQuery({
    queryKey: settingsKey(clientId, source),
    queryFn: ({ signal }) =>
      apiRequest(`/v1/integration/crm/${source}/client/${clientId}/settings`, {
        schema: crmSettingsSchema,
        signal,
        clientId,
      }),
    refetchInterval: (q) => (q.state.data?.integration?.is_syncing ? SYNC_POLL_MS : false),
  });
}

function useRefresh(clientId: string, source: CrmSourceName) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: settingsKey(clientId, source) }),
      queryClient.invalidateQueries({ queryKey: ['integrations', clientId] }),
      queryClient.invalidateQueries({ queryKey: ['crm-stages', clientId] }),
      queryClient.invalidateQueries({ queryKey: ['marketo-connection', clientId] }),
      refreshIntegrations().catch(() => undefined),
    ]);
}

/** Salesforce and HubSpot: GET …/redirect, then the browser goes to the CRM's consent screen. */
export function useCrmRedirect(clientId: string) {
  return useMutation({
    mutationFn: (input: {
      source: CrmSourceName;
      returnTo: 'integration' | 'connections';
      /** Salesforce: where the org logs in (production, sandbox or its My Domain). */
      login?: SalesforceLogin;
      myDomain?: string;
    }) =>
      apiRequest(`/v1/integration/crm/${input.source}/client/${clientId}/redirect`, {
        query: {
          return_to: input.returnTo,
          ...(input.login ? { login: input.login } : {}),
          ...(input.login === 'my_domain' ? { my_domain: input.myDomain ?? '' } : {}),
        },
        schema: crmRedirectReply,
        clientId,
      }),
    meta: { toast: false },
    onSuccess: (reply) => window.location.assign(reply.redirect_url),
  });
}

/** GET /v1/integration/crm/marketo/client/{id}/connection. */
export function useMarketoConnection(clientId: string) {
  return useQuery({
    queryKey: ['marketo-connection', clientId],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/integration/crm/marketo/client/${clientId}/connection`, {
        schema: marketoConnectionReply,
        signal,
        clientId,
      }),
  });
}

/** POST …/marketo/…/connection: checked against Marketo before anything is stored. */
export function useMarketoConnect(clientId: string) {
  const refresh = useRefresh(clientId, 'marketo');
  return useMutation({
    mutationFn: (body: MarketoConnectionBody) =>
      apiRequest(`/v1/integration/crm/marketo/client/${clientId}/connection`, {
        method: 'POST',
        body,
        schema: marketoConnectionReply,
        clientId,
      }),
    meta: { toast: false },
    onSuccess: refresh,
  });
}

/** POST …/settings {sync_now: true}. */
export function useCrmSyncNow(clientId: string, source: CrmSourceName) {
  const queryClient = useQueryClient();
  const refresh = useRefresh(clientId, source);
  return useMutation({
    mutationFn: () =>
      apiRequest(`/v1/integration/crm/${source}/client/${clientId}/settings`, {
        method: 'POST',
        body: { sync_now: true },
        schema: crmSettingsSchema,
        clientId,
      }),
    onSuccess: async (settings: CrmSettings) => {
      queryClient.setQueryData(settingsKey(clientId, source), settings);
      await refresh();
    },
  });
}

/** DELETE …/settings: the CRM's tokens are revoked and forgotten; synced data stays. */
export function useCrmDisconnect(clientId: string, source: CrmSourceName) {
  const refresh = useRefresh(clientId, source);
  return useMutation({
    mutationFn: () =>
      apiRequest(`/v1/integration/crm/${source}/client/${clientId}/settings`, {
        method: 'DELETE',
        clientId,
      }),
    onSuccess: refresh,
  });
}

/** GET /v1/rest/client/{id}/crm/opportunity/stage?integration_id. */
export function useCrmStages(clientId: string, integrationId: number | null) {
  return useQuery({
    queryKey: ['crm-stages', clientId, integrationId],
    enabled: integrationId !== null,
    queryFn: ({ signal }) =>
      apiRequest(`/v1/rest/client/${clientId}/crm/opportunity/stage`, {
        query: { integration_id: String(integrationId) },
        schema: z.array(crmStageSchema),
        signal,
        clientId,
      }),
  });
}

export type StageSet = 'selected' | 'valuable';
const STAGE_SET_PATH: Record<StageSet, string> = {
  selected: 'opportunity/selected_stages',
  valuable: 'pipeline/stages/valuable',
};

/** GET …/opportunity/selected_stages or …/pipeline/stages/valuable (the client's, over all CRMs). */
export function useStageSet(clientId: string, set: StageSet) {
  return useQuery({
    queryKey: ['crm-stages', clientId, set],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/rest/client/${clientId}/${STAGE_SET_PATH[set]}`, {
        schema: stageSelectionReply,
        signal,
        clientId,
      }),
  });
}

export function useSaveStageSet(clientId: string, set: StageSet) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (stageIds: string[]) =>
      apiRequest(`/v1/rest/client/${clientId}/${STAGE_SET_PATH[set]}`, {
        method: 'PUT',
        body: { stage_ids: stageIds },
        schema: stageSelectionReply,
        clientId,
      }),
    onSuccess: (reply) => queryClient.setQueryData(['crm-stages', clientId, set], reply),
  });
}

/** POST …/settings {write_back}: Rally's superprospects written back to the CRM after each sync. */
export function useCrmWriteBack(clientId: string, source: CrmSourceName) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (writeBack: boolean) =>
      apiRequest(`/v1/integration/crm/${source}/client/${clientId}/settings`, {
        method: 'POST',
        body: { write_back: writeBack },
        schema: crmSettingsSchema,
        clientId,
      }),
    onSuccess: (settings: CrmSettings) => queryClient.setQueryData(settingsKey(clientId, source), settings),
  });
}

export type ActivityKind = 'outreach' | 'meeting_activity';

/** GET …/outreach or …/meeting_activity: the chosen activity types and those synced. */
export function useActivityDefinition(clientId: string, source: CrmSourceName, kind: ActivityKind) {
  return useQuery({
    queryKey: ['crm-activity', clientId, source, kind],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/integration/crm/${source}/client/${clientId}/${kind}`, {
        schema: activityDefinitionReply,
        signal,
        clientId,
      }),
  });
}

export function useSaveActivityDefinition(clientId: string, source: CrmSourceName, kind: ActivityKind) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (types: string[]) =>
      apiRequest(`/v1/integration/crm/${source}/client/${clientId}/${kind}`, {
        method: 'PUT',
        body: { activity_types: types },
        schema: activityDefinitionReply,
        clientId,
      }),
    onSuccess: (reply) => queryClient.setQueryData(['crm-activity', clientId, source, kind], reply),
  });
}

/** GET …/owners/active: the CRM's active owners with the sales rep each maps to. */
export function useCrmOwners(clientId: string, source: CrmSourceName) {
  return useQuery({
    queryKey: ['crm-owners', clientId, source],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/integration/crm/${source}/client/${clientId}/owners/active`, {
        schema: z.array(crmOwnerSchema),
        signal,
        clientId,
      }),
  });
}

/** PUT …/owners/{ownerId} {sales_rep_id}: a mapping by hand (null: back to matching by e-mail). */
export function useMapOwner(clientId: string, source: CrmSourceName) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { ownerId: string; salesRepId: string | null }) =>
      apiRequest(`/v1/integration/crm/${source}/client/${clientId}/owners/${input.ownerId}`, {
        method: 'PUT',
        body: { sales_rep_id: input.salesRepId },
        schema: crmOwnerSchema,
        clientId,
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['crm-owners', clientId, source] }),
  });
}
