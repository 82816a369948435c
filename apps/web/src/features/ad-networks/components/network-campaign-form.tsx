import { useState } from 'react';
import type { FormEvent } from 'react';
import {
  Button,
  Group,
  Image,
  NumberInput,
  Paper,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import {
  CAMPAIGN_OBJECTIVE_KEYS,
  CAMPAIGN_OBJECTIVE_LABELS,
} from '@rally/shared/schemas/ad-network-campaigns';
import type { AdCampaign, AdCampaignCreateBody } from '@rally/shared/schemas/ad-network-campaigns';
import type { AdNetworkKey } from '@rally/shared/schemas/ad-networks';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useCampaignAds, useCampaignOptions, useCreateNetworkCampaign } from '../api/campaigns.ts';

const DAY = 86_400_000;
const dayOf = (ms: number) => {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};
export const money = (minor: number) => (minor / 100).toFixed(2);

/**
 * A new campaign for one network audience: name, ad (with its render per placement), objective,
 * budget and days. It is made paused at the network; launching is a separate, deliberate step.
 */
export function NetworkCampaignForm({
  clientId,
  network,
  networkLabel,
  audienceId,
  audienceName,
  onDone,
}: {
  clientId: string;
  network: AdNetworkKey;
  networkLabel: string;
  audienceId: string;
  audienceName: string;
  onDone: (made: AdCampaign) => void;
}) {
  const options = useCampaignOptions(clientId, network);
  const contents = useCampaignAds(clientId);
  const create = useCreateNetworkCampaign(clientId);
  const [now] = useState(() => Date.now());
  const [name, setName] = useState(`${audienceName} on ${networkLabel}`);
  const [contentId, setContentId] = useState<string | null>(null);
  const [objective, setObjective] = useState<AdCampaign['objective']>('traffic');
  const [kind, setKind] = useState<'daily' | 'lifetime'>('daily');
  const [amount, setAmount] = useState<number | string>(20);
  const [startsOn, setStartsOn] = useState(dayOf(now));
  const [endsOn, setEndsOn] = useState(dayOf(now + 14 * DAY));
  if (options.isPending || contents.isPending) return <PanelLoading label="Loading the campaign options" />;
  if (options.isError)
    return (
      <PanelError error={options.error} what="the campaign options" onRetry={() => void options.refetch()} />
    );
  if (contents.isError)
    return <PanelError error={contents.error} what="your ads" onRetry={() => void contents.refetch()} />;
  const o = options.data;
  const ads = contents.data.items;
  const chosen = ads.find((c) => c.id === (contentId ?? ads[0]?.id));
  const errors = fieldErrorsOf(create.error);
  const fieldError = (f: string) => errors[f] || undefined;
  const minimum = money(o.minimum_daily_budget_minor);
  // A network may take one kind only (Google Ads: daily).
  const kinds = o.budget_kinds;
  const budgetKind = kinds.includes(kind) ? kind : (kinds[0] ?? 'daily');
  // Every image an ad carries, in placement order (Google's one ad holds a landscape and a square).
  const tiles = o.placements.flatMap((p) => [p.size, ...p.also].map((size) => ({ size, label: p.label })));

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!chosen) return;
    const start = new Date(`${startsOn}T00:00:00`).getTime();
    const body: AdCampaignCreateBody = {
      audience_id: audienceId,
      content_id: chosen.id,
      name,
      objective,
      budget_kind: budgetKind,
      budget_minor: Math.round(Number(amount) * 100),
      // A first day of today starts now: midnight has passed.
      starts_at: new Date(Math.max(start, Date.now() + 60_000)).toISOString(),
      ends_at: endsOn ? new Date(`${endsOn}T23:59:59`).toISOString() : null,
    };
    create.mutate(body, { onSuccess: onDone });
  }

  if (!ads.length)
    return (
      <Text size="sm">
        Make an ad in Content first: a campaign shows one of your ads, rendered at each placement.
      </Text>
    );
  return (
    <form onSubmit={submit} noValidate aria-label="New network campaign">
      <Stack gap="md">
        <TextInput
          label="Name"
          required
          maxLength={120}
          value={name}
          error={fieldError('name')}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <Select
          label="Ad"
          description={
            o.needs_page
              ? `Shown as ${o.page_name ?? 'your page'}; each personalisation tag shows its fallback.`
              : `${networkLabel} shows your ad account's name as the advertiser; each personalisation tag shows its fallback.`
          }
          data={ads.map((c) => ({ value: c.id, label: c.name || c.title || 'Untitled ad' }))}
          value={chosen?.id ?? null}
          allowDeselect={false}
          error={fieldError('content_id')}
          onChange={setContentId}
        />
        {chosen && (
          <div>
            <Text size="sm" fw={500} mb={4}>
              Creatives per placement
            </Text>
            <SimpleGrid cols={{ base: 1, sm: tiles.length }}>
              {tiles.map((p) => (
                <Paper key={p.size} withBorder radius="sm" p="xs">
                  <Image
                    src={`${chosen.preview_paths[p.size] ?? ''}.png`}
                    alt={`${p.label} (${p.size}) preview`}
                    fit="contain"
                    h={140}
                  />
                  <Text size="xs" c="dimmed" ta="center" mt={4}>
                    {p.label} · {p.size}
                  </Text>
                </Paper>
              ))}
            </SimpleGrid>
          </div>
        )}
        <Select
          label="Objective"
          data={CAMPAIGN_OBJECTIVE_KEYS.map((k) => ({ value: k, label: CAMPAIGN_OBJECTIVE_LABELS[k] }))}
          value={objective}
          allowDeselect={false}
          error={fieldError('objective')}
          onChange={(v) => v && setObjective(v as AdCampaign['objective'])}
        />
        <div>
          <Text size="sm" fw={500} mb={4}>
            Budget
          </Text>
          <Group align="flex-start" gap="sm">
            {kinds.length > 1 && (
              <SegmentedControl
                aria-label="Budget kind"
                value={budgetKind}
                onChange={(v) => setKind(v as 'daily' | 'lifetime')}
                data={[
                  { value: 'daily', label: 'Per day' },
                  { value: 'lifetime', label: 'For the whole schedule' },
                ]}
              />
            )}
            <NumberInput
              aria-label="Budget amount"
              min={0}
              decimalScale={2}
              fixedDecimalScale
              w={140}
              value={amount}
              onChange={setAmount}
              error={fieldError('budget_minor')}
            />
          </Group>
          <Text size="xs" c="dimmed" mt={4}>
            {kinds.length > 1 ? '' : 'A budget per day. '}In the ad account&apos;s currency. {networkLabel}{' '}
            needs at least {minimum} a day.
          </Text>
        </div>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            type="date"
            label="First day"
            required
            value={startsOn}
            error={fieldError('starts_at')}
            onChange={(e) => setStartsOn(e.currentTarget.value)}
          />
          <TextInput
            type="date"
            label="Last day"
            description={budgetKind === 'daily' ? 'Leave empty to run until paused.' : undefined}
            value={endsOn}
            error={fieldError('ends_at')}
            onChange={(e) => setEndsOn(e.currentTarget.value)}
          />
        </SimpleGrid>
        <FormError error={Object.keys(errors).length ? null : create.error} />
        <Group justify="flex-end">
          <Button type="submit" loading={create.isPending}>
            Create paused
          </Button>
        </Group>
        <Text size="xs" c="dimmed">
          Nothing is spent until you launch it.
        </Text>
      </Stack>
    </form>
  );
}
