import { DownloadButton } from '../../../components/download-button.tsx';
import { downloadTargets } from '../api/export-targets.ts';

/** "Download targets with ad URLs (CSV)" for a cohort or cadence (the bulk export, issue 38). */
export function TargetsExportButton({
  clientId,
  kind,
  id,
  name,
}: {
  clientId: string;
  kind: 'cadence' | 'cohort';
  id: number | string;
  name: string;
}) {
  return (
    <DownloadButton
      label="Download targets with ad URLs (CSV)"
      onDownload={() => downloadTargets(clientId, kind, id, name)}
    />
  );
}
