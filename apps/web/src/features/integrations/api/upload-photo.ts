import { useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import { ApiError, apiRequest } from '../../../lib/api-client.ts';

const uploadSchema = z.object({ id: z.string(), url: z.string() });

/** Thrown when this server has no upload endpoint, so the form can offer a pasted URL instead. */
export class UploadsUnavailableError extends Error {
  constructor() {
    super('Photo upload is not available on this server. Paste the address of an image instead.');
    this.name = 'UploadsUnavailableError';
  }
}

/** POST /v1/rest/client/{id}/uploads, kind photo: the image is checked and stored; its url is ours. */
export async function uploadPhoto({ clientId, file }: { clientId: string; file: File }) {
  const form = new FormData();
  form.set('kind', 'photo');
  form.set('file', file);
  try {
    return await apiRequest(`/v1/rest/client/${clientId}/uploads`, {
      method: 'POST',
      query: { kind: 'photo' },
      body: form,
      schema: uploadSchema,
      clientId,
      retries: 0,
    });
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 405))
      throw new UploadsUnavailableError();
    throw err;
  }
}

export const useUploadPhoto = () => useMutation({ mutationFn: uploadPhoto, meta: { toast: false } });
