import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { crmStageSchema } from '@rally/shared/schemas/crm';
import { ApiError, apiRequest } from '../../../lib/api-client.ts';

const contentItem = z.object({
  id: z.string(),
  name: z.string().nullable().optional(),
  title: z.string().optional(),
  status: z.string(),
  is_archived: z.boolean().optional(),
  preview_paths: z.record(z.string(), z.string()).optional(),
});
export type ContentOption = { value: string; label: string; preview: string | null };

/** GET /sc/content?status=published: the ads a stage can show, with their 300×250 preview. */
export const useStageContent = (clientId: string) =>
  useQuery({
    queryKey: ['journeys', clientId, 'content'],
    queryFn: async ({ signal }): Promise<ContentOption[]> => {
      try {
        const reply = await apiRequest('/sc/content', {
          query: { status: 'published' },
          schema: z.object({ items: z.array(contentItem.passthrough()) }),
          signal,
          clientId,
        });
        return reply.items
          .filter((c) => c.status === 'published' && !c.is_archived)
          .map((c) => ({
            value: c.id,
            label: c.name?.trim() || c.title?.trim() || 'Untitled content',
            preview: c.preview_paths?.['300x250'] ? `${c.preview_paths['300x250']}.png` : null,
          }));
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return [];
        throw err;
      }
    },
  });

/** GET /v1/rest/client/{id}/crm/opportunity/stage: the CRM stages a rule can name. */
export const useCrmStageOptions = (clientId: string) =>
  useQuery({
    queryKey: ['journeys', clientId, 'crm_stages'],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/rest/client/${clientId}/crm/opportunity/stage`, {
        schema: z.array(crmStageSchema),
        signal,
        clientId,
      }),
    select: (stages) =>
      stages
        .filter((s) => s.is_active)
        .map((s) => ({
          value: s.id,
          label: `${s.label}${s.pipeline_label && s.pipeline_label !== 'Default' ? ` (${s.pipeline_label})` : ''}`,
        })),
  });
