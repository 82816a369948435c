import { apiBlob } from '../../../lib/api-client.ts';

/** The file name the server gives (email-ads/service.ts exportName), for the browser's save. */
export function targetsFileName(kind: 'cadence' | 'cohort', name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/[\s_]+/g, '-')
    .toLowerCase()
    .slice(0, 60);
  return `${kind}-${slug || 'targets'}-ad-urls.csv`;
}

/**
 * GET …/{cadence|cohort}/{id}/targets/export: every target with its ad image and click URLs as CSV,
 * fetched (the call needs the client header) and handed to the browser as a download.
 */
export async function downloadTargets(
  clientId: string,
  kind: 'cadence' | 'cohort',
  id: number | string,
  name: string,
): Promise<void> {
  const blob = await apiBlob(`/v1/rest/client/${clientId}/${kind}/${id}/targets/export`, { clientId });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = targetsFileName(kind, name);
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked after the click has handed the file over.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
