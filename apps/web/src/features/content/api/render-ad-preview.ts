import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { AdRenderBody, AdSize } from '@rally/shared/schemas/content';
import { apiBlob } from '../../../lib/api-client.ts';

/** A data: URL holds the picture itself, so nothing needs revoking when the cache lets it go. */
const dataUrlOf = (blob: Blob) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('Could not read the preview'));
    reader.readAsDataURL(blob);
  });

/** POST /sc/content/render?size=…: the PNG of unsaved ad fields (as a data: URL), drawn as saved ads are. */
export const renderAdPreview = async (
  clientId: string,
  size: AdSize,
  body: AdRenderBody,
  signal?: AbortSignal,
) =>
  dataUrlOf(
    await apiBlob('/sc/content/render', {
      method: 'POST',
      query: { size },
      body,
      clientId,
      signal,
      retries: 1,
    }),
  );

/**
 * One size of the live preview. The previous image stays while the next renders, so the preview
 * does not flash empty on every keystroke; `body` is null while the fields are invalid.
 */
export const useAdPreview = (clientId: string, size: AdSize, body: AdRenderBody | null) =>
  useQuery({
    queryKey: ['content-render', clientId, size, body],
    queryFn: ({ signal }) => renderAdPreview(clientId, size, body as AdRenderBody, signal),
    enabled: body !== null,
    placeholderData: keepPreviousData,
    staleTime: Infinity,
    gcTime: 60_000,
    meta: { toast: false },
  });
