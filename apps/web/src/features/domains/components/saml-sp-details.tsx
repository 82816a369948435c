import { Alert, Button, Group, Text } from '@mantine/core';
import { IconAlertTriangle, IconDownload } from '@tabler/icons-react';
import type { SamlSettings } from '@rally/shared/schemas/saml';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

/**
 * Rally's certificate for this client (signing and encryption: the same one in both KeyDescriptors
 * of our metadata), to download and upload at the identity provider (docs/saml.md).
 */
export function SamlSpCertificate({ settings }: { settings: SamlSettings }) {
  const href = `data:application/x-pem-file;charset=utf-8,${encodeURIComponent(settings.sp_certificate)}`;
  return (
    <div>
      <Text size="sm" fw={500}>
        Rally’s certificate (signing and encryption)
      </Text>
      <Text size="xs" c="dimmed" style={{ wordBreak: 'break-all' }}>
        {settings.sp_certificate_fingerprint}
      </Text>
      <Button
        component="a"
        href={href}
        download="rally-saml-certificate.pem"
        variant="light"
        size="xs"
        mt={4}
        leftSection={<IconDownload size={14} />}
      >
        Download certificate
      </Button>
    </div>
  );
}

/** The daily re-fetch of the metadata URL: when it last worked, and why the last try failed. */
export function SamlMetadataRefresh({ settings }: { settings: SamlSettings }) {
  if (!settings.metadata_url) return null;
  return (
    <div role="status" aria-label="Metadata refresh">
      <Group gap="xs">
        <Text size="sm" fw={500}>
          Metadata refresh
        </Text>
        <Text size="xs" c="dimmed">
          daily, from the metadata URL
        </Text>
      </Group>
      <Text size="xs">
        Last fetched: {when(settings.metadata_fetched_at)} · last tried: {when(settings.metadata_checked_at)}
      </Text>
      {settings.metadata_error && (
        <Alert color="red" variant="light" mt={4} icon={<IconAlertTriangle size={16} />}>
          The last fetch failed: {settings.metadata_error}. The last good metadata is still in use.
        </Alert>
      )}
    </div>
  );
}
