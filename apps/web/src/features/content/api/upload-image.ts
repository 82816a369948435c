import { useMutation } from '@tanstack/react-query';
import { uploadReply } from '@rally/shared/schemas/content';
import type { UploadKind } from '@rally/shared/schemas/content';
import { apiRequest } from '../../../lib/api-client.ts';

export type UploadImageInput = { clientId: string; kind: UploadKind; file: File };

/**
 * POST /v1/rest/client/{id}/uploads (multipart: file and kind). The server checks the bytes, not
 * the name, and answers 422 with the reason (not an image, too large, too small…).
 */
export function uploadImage({ clientId, kind, file }: UploadImageInput) {
  const form = new FormData();
  form.set('kind', kind);
  form.set('file', file);
  return apiRequest(`/v1/rest/client/${clientId}/uploads`, {
    method: 'POST',
    query: { kind },
    body: form,
    schema: uploadReply,
    clientId,
    retries: 0,
  });
}

export const useUploadImage = () => useMutation({ mutationFn: uploadImage, meta: { toast: false } });
