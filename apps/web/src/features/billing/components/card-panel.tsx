import { useEffect, useRef, useState } from 'react';
import { Alert, Badge, Button, Group, Modal, Skeleton, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconCreditCard } from '@tabler/icons-react';
import { cardBrand, luhnValid } from '@rally/shared/schemas/billing';
import type { CardSummary } from '@rally/shared/schemas/billing';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { PanelError } from '../../../components/panel-states.tsx';
import { getRuntimeConfig } from '../../../lib/runtime-config.ts';
import { useCard, useSetCard, useStartCardSetup } from '../api/billing.ts';
import { brandName } from '../format.ts';
import { SettingsBox } from './settings-box.tsx';
import { loadStripe } from './stripe-js.ts';
import type { StripeCardElement } from './stripe-js.ts';

/** The local provider's test cards (README "Billing"). */
export const TEST_CARDS = [
  { number: '4242 4242 4242 4242', what: 'payments succeed' },
  { number: '4000 0000 0000 0002', what: 'payments are declined' },
  { number: '4000 0025 0000 3155', what: 'each payment asks you to confirm it' },
];

function CardLine({ card }: { card: CardSummary }) {
  return (
    <Group gap="sm" data-testid="card-on-file">
      <IconCreditCard size={28} stroke={1.5} aria-hidden />
      <div>
        <Text fw={600}>
          {brandName(card.brand)} ending in {card.last4}
        </Text>
        <Text size="sm" c="dimmed">
          Expires {String(card.exp_month).padStart(2, '0')}/{card.exp_year}
        </Text>
      </div>
    </Group>
  );
}

/** Card on file and "Replace card" (SPEC.md §7 card calls). */
export function CardPanel({ clientId, canWrite }: { clientId: string; canWrite: boolean }) {
  const card = useCard(clientId);
  const [open, setOpen] = useState(false);
  const current = card.data?.card ?? null;

  return (
    <SettingsBox
      title="Card on file"
      description="Invoices are charged to this card."
      action={
        canWrite && card.data ? (
          <Button size="xs" variant="light" onClick={() => setOpen(true)}>
            {current ? 'Replace card' : 'Add a card'}
          </Button>
        ) : null
      }
    >
      {card.isPending ? (
        <Skeleton height={44} role="status" aria-label="Loading the card on file" />
      ) : card.isError ? (
        <PanelError error={card.error} what="the card on file" onRetry={() => void card.refetch()} />
      ) : current ? (
        <CardLine card={current} />
      ) : (
        <Text c="dimmed" size="sm">
          No card on file yet. {canWrite ? 'Add one so invoices can be paid.' : 'An owner can add one.'}
        </Text>
      )}
      <Modal opened={open} onClose={() => setOpen(false)} title={current ? 'Replace card' : 'Add a card'}>
        {card.data?.provider === 'stripe' ? (
          <StripeCardForm clientId={clientId} onDone={() => setOpen(false)} />
        ) : (
          <LocalCardForm clientId={clientId} onDone={() => setOpen(false)} />
        )}
      </Modal>
    </SettingsBox>
  );
}

function LocalCardForm({ clientId, onDone }: { clientId: string; onDone: () => void }) {
  const save = useSetCard(clientId);
  const form = useForm({
    initialValues: { number: '', expiry: '', cvc: '' },
    validate: {
      number: (v) => (luhnValid(v) ? null : 'Enter a valid card number'),
      expiry: (v) =>
        /^(0[1-9]|1[0-2])\s*\/\s*(\d{2}|\d{4})$/.test(v.trim()) ? null : 'Enter the expiry as MM/YY',
      cvc: (v, values) =>
        (cardBrand(values.number) === 'amex' ? /^\d{4}$/ : /^\d{3}$/).test(v.trim())
          ? null
          : cardBrand(values.number) === 'amex'
            ? 'Enter the 4-digit CVC'
            : 'Enter the 3-digit CVC',
    },
  });
  return (
    <form
      noValidate
      onSubmit={form.onSubmit((v) => {
        const [mm, yy] = v.expiry.split('/').map((s) => s.trim()) as [string, string];
        const year = yy.length === 2 ? 2000 + Number(yy) : Number(yy);
        save.mutate(
          { number: v.number.replace(/\s/g, ''), exp_month: Number(mm), exp_year: year, cvc: v.cvc.trim() },
          {
            onSuccess: (reply) => {
              notifications.show({
                color: 'green',
                message: `${brandName(reply.card?.brand ?? '')} ending in ${reply.card?.last4 ?? ''} is now on file.`,
              });
              onDone();
            },
            onError: (error) => {
              const fields = fieldErrorsOf(error);
              form.setErrors({
                number: fields.number,
                expiry: fields.exp_month ?? fields.exp_year,
                cvc: fields.cvc,
              });
            },
          },
        );
      })}
    >
      <Stack gap="md">
        <TextInput
          // The dialog opens on the field to type in, not on its close button.
          data-autofocus
          label="Card number"
          inputMode="numeric"
          autoComplete="cc-number"
          placeholder="4242 4242 4242 4242"
          {...form.getInputProps('number')}
        />
        <Group grow>
          <TextInput
            label="Expiry (MM/YY)"
            placeholder="12/30"
            autoComplete="cc-exp"
            {...form.getInputProps('expiry')}
          />
          <TextInput
            label="CVC"
            inputMode="numeric"
            autoComplete="cc-csc"
            placeholder="123"
            {...form.getInputProps('cvc')}
          />
        </Group>
        <Alert variant="light" color="gray" title="Test cards (built-in payment provider)">
          <Stack gap={2}>
            {TEST_CARDS.map((c) => (
              <Text size="xs" key={c.number}>
                <Text span ff="monospace" size="xs">
                  {c.number}
                </Text>{' '}
                — {c.what}
              </Text>
            ))}
            <Text size="xs" c="dimmed">
              Any future expiry and any CVC. Nothing leaves this server; only the brand, last four digits and
              expiry are kept.
            </Text>
          </Stack>
        </Alert>
        {save.isError && Object.keys(fieldErrorsOf(save.error)).length === 0 && (
          <FormError error={save.error} />
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending}>
            Save card
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * Stripe: the card element lives in Stripe's iframe. The card is confirmed against a SetupIntent
 * made for off-session charges (the bank may ask the payer to authenticate once, here, rather than
 * declining later charges); we receive only the SetupIntent's id.
 */
function StripeCardForm({ clientId, onDone }: { clientId: string; onDone: () => void }) {
  const save = useSetCard(clientId);
  const startSetup = useStartCardSetup(clientId);
  const mountRef = useRef<HTMLDivElement>(null);
  const [element, setElement] = useState<StripeCardElement | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let card: StripeCardElement | null = null;
    let cancelled = false;
    getRuntimeConfig()
      .then(async (config) => {
        if (!config.stripe_publishable_key)
          throw new Error('Card payments are not configured on this server.');
        const stripe = await loadStripe(config.stripe_publishable_key);
        if (cancelled || !mountRef.current) return;
        card = stripe.elements().create('card', { hidePostalCode: true });
        card.mount(mountRef.current);
        card.on('change', (e) => setError(e.error?.message ?? null));
        setElement(card);
      })
      .catch((err: unknown) => setError(err instanceof Error ? err.message : String(err)));
    return () => {
      cancelled = true;
      card?.destroy();
    };
  }, []);

  async function submit() {
    if (!element) return;
    setBusy(true);
    setError(null);
    try {
      const config = await getRuntimeConfig();
      const stripe = await loadStripe(config.stripe_publishable_key ?? '');
      const setup = await startSetup.mutateAsync();
      const confirmed = await stripe.confirmCardSetup(setup.client_secret, {
        payment_method: { card: element },
      });
      if (confirmed.error || confirmed.setupIntent?.status !== 'succeeded')
        throw new Error(confirmed.error?.message ?? 'The card was not confirmed by its bank.');
      await save.mutateAsync({ setup_intent_id: confirmed.setupIntent.id });
      notifications.show({ color: 'green', message: 'Your new card is on file.' });
      onDone();
    } catch (err) {
      const fields = fieldErrorsOf(err);
      setError(fields.setup_intent_id ?? (err instanceof Error ? err.message : String(err)));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Stack gap="md">
      <div>
        <Text size="sm" fw={500} mb={4}>
          Card
        </Text>
        <div
          ref={mountRef}
          style={{ padding: 10, border: '1px solid var(--mantine-color-default-border)', borderRadius: 4 }}
        />
        {!element && !error && (
          <Skeleton height={20} mt={-30} role="status" aria-label="Loading the card form" />
        )}
      </div>
      {error && (
        <Alert color="red" variant="light" role="alert">
          {error}
        </Alert>
      )}
      <Badge variant="light" color="gray" size="sm">
        Secured by Stripe
      </Badge>
      <Group justify="flex-end">
        <Button variant="default" onClick={onDone}>
          Cancel
        </Button>
        <Button onClick={() => void submit()} loading={busy} disabled={!element}>
          Save card
        </Button>
      </Group>
    </Stack>
  );
}
