import type { ComponentType } from 'react';
import { Stack, Text, Title } from '@mantine/core';
import type { ClientSettings } from '@rally/shared/schemas/content';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useClientSettings } from '../api/get-client-settings.ts';
import { PermissionNote, hasPermission } from './permission-note.tsx';

export type SettingsFormProps = { clientId: string; settings: ClientSettings; canWrite: boolean };

/**
 * A page of /client-settings (the settings navigation links them): its title, why a user without settings.write cannot change
 * anything, and its form once the client's settings are loaded.
 */
export function BrandSettingsScreen({
  title,
  description,
  what,
  form,
}: {
  title: string;
  description: string;
  /** What the settings are called: "brand settings", "Facebook settings". */
  what: string;
  /** The tab's form, given the loaded settings. */
  form: ComponentType<SettingsFormProps>;
}) {
  const auth = useAuth();
  const clientId = auth.currentClient;
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  const canWrite = hasPermission(auth.currentRole.permissions, 'settings.write');
  return (
    <Stack gap="lg">
      <div>
        <Title order={1}>{title}</Title>
        <Text c="dimmed">{description}</Text>
      </div>
      {!canWrite && <PermissionNote permission="settings.write" what={`the ${what}`} />}
      <SettingsLoader clientId={clientId} canWrite={canWrite} what={what} form={form} />
    </Stack>
  );
}

function SettingsLoader({
  clientId,
  canWrite,
  what,
  form: Form,
}: {
  clientId: string;
  canWrite: boolean;
  what: string;
  form: ComponentType<SettingsFormProps>;
}) {
  const settings = useClientSettings(clientId);
  if (settings.isPending) return <PanelLoading label={`Loading ${what}`} />;
  if (settings.isError)
    return <PanelError error={settings.error} what={what} onRetry={() => void settings.refetch()} />;
  return <Form key={clientId} clientId={clientId} settings={settings.data} canWrite={canWrite} />;
}
