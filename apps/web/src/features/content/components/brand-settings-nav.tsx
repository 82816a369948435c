import { Tabs } from '@mantine/core';
import { useNavigate } from 'react-router';

const TABS = [
  { value: 'website', label: 'Website' },
  { value: 'facebook', label: 'Facebook' },
  { value: 'sales-reps', label: 'Sales reps' },
  { value: 'notifications', label: 'Notifications' },
] as const;

/** SPEC.md §2 "/client-settings | Children: website, facebook, sales-reps": tabs between them. */
export function BrandSettingsNav({
  clientId,
  current,
}: {
  clientId: string;
  current: (typeof TABS)[number]['value'];
}) {
  const navigate = useNavigate();
  return (
    <Tabs
      value={current}
      onChange={(v) => v && v !== current && navigate(`/client-settings/${v}?client_id=${clientId}`)}
    >
      <Tabs.List aria-label="Client settings">
        {TABS.map((t) => (
          <Tabs.Tab key={t.value} value={t.value}>
            {t.label}
          </Tabs.Tab>
        ))}
      </Tabs.List>
    </Tabs>
  );
}
