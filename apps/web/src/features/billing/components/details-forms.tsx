import { useMemo } from 'react';
import { Button, Group, Select, SimpleGrid, Skeleton, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import type { BillingAddress, BillingInfo } from '@rally/shared/schemas/billing';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { PanelError } from '../../../components/panel-states.tsx';
import {
  useBillingAddress,
  useBillingInfo,
  useSaveBillingAddress,
  useSaveBillingInfo,
} from '../api/billing.ts';
import { SettingsBox } from './settings-box.tsx';

const EMPTY_ADDRESS: BillingAddress = {
  first_name: '',
  last_name: '',
  company: '',
  line1: '',
  line2: '',
  city: '',
  state: '',
  zip: '',
  country: '',
};

export function BillingAddressPanel({ clientId, canWrite }: { clientId: string; canWrite: boolean }) {
  const address = useBillingAddress(clientId);
  return (
    <SettingsBox title="Billing address" description="Printed on your invoices.">
      {address.isPending ? (
        <Skeleton height={160} role="status" aria-label="Loading the billing address" />
      ) : address.isError ? (
        <PanelError error={address.error} what="the billing address" onRetry={() => void address.refetch()} />
      ) : (
        <AddressForm
          clientId={clientId}
          canWrite={canWrite}
          initial={address.data.billing_address ?? EMPTY_ADDRESS}
        />
      )}
    </SettingsBox>
  );
}

function AddressForm({
  clientId,
  canWrite,
  initial,
}: {
  clientId: string;
  canWrite: boolean;
  initial: BillingAddress;
}) {
  const save = useSaveBillingAddress(clientId);
  const form = useForm({
    initialValues: initial,
    validate: {
      line1: (v) => (v.trim() ? null : 'Enter the street address'),
      city: (v) => (v.trim() ? null : 'Enter the city'),
      country: (v) => (/^[A-Za-z]{2}$/.test(v.trim()) ? null : 'Enter a two-letter country code, e.g. US'),
    },
  });
  const input = (field: keyof BillingAddress) => ({ ...form.getInputProps(field), readOnly: !canWrite });
  return (
    <form
      noValidate
      onSubmit={form.onSubmit((v) =>
        save.mutate(v, {
          onSuccess: (reply) => {
            form.setValues(reply.billing_address ?? v);
            form.resetDirty(reply.billing_address ?? v);
            notifications.show({ color: 'green', message: 'The billing address has been saved.' });
          },
          onError: (error) => form.setErrors(fieldErrorsOf(error)),
        }),
      )}
    >
      <Stack gap="sm">
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextInput label="First name" {...input('first_name')} />
          <TextInput label="Last name" {...input('last_name')} />
        </SimpleGrid>
        <TextInput label="Company" {...input('company')} />
        <TextInput label="Address" required {...input('line1')} />
        <TextInput label="Address line 2" {...input('line2')} />
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
          <TextInput label="City" required {...input('city')} />
          <TextInput label="State or region" {...input('state')} />
          <TextInput label="Postal code" {...input('zip')} />
        </SimpleGrid>
        <TextInput label="Country code" required maxLength={2} w={140} {...input('country')} />
        {save.isError && Object.keys(fieldErrorsOf(save.error)).length === 0 && (
          <FormError error={save.error} />
        )}
        {canWrite && (
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending} disabled={!form.isDirty()}>
              Save address
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}

const EMPTY_INFO: BillingInfo = {
  billing_email: '',
  company_name: '',
  tax_id: '',
  po_number: '',
  time_zone: 'UTC',
};

export function BillingInfoPanel({ clientId, canWrite }: { clientId: string; canWrite: boolean }) {
  const info = useBillingInfo(clientId);
  return (
    <SettingsBox
      title="Billing details"
      description="Who receives invoices, what they show, and the time zone whose month end triggers the charge."
    >
      {info.isPending ? (
        <Skeleton height={160} role="status" aria-label="Loading the billing details" />
      ) : info.isError ? (
        <PanelError error={info.error} what="the billing details" onRetry={() => void info.refetch()} />
      ) : (
        <InfoForm
          clientId={clientId}
          canWrite={canWrite}
          initial={info.data.billing_info ?? { ...EMPTY_INFO, time_zone: info.data.time_zone }}
        />
      )}
    </SettingsBox>
  );
}

function InfoForm({
  clientId,
  canWrite,
  initial,
}: {
  clientId: string;
  canWrite: boolean;
  initial: BillingInfo;
}) {
  const save = useSaveBillingInfo(clientId);
  const zones = useMemo(() => {
    const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
    return [...new Set(['UTC', ...all, initial.time_zone])];
  }, [initial.time_zone]);
  const form = useForm({
    initialValues: initial,
    validate: {
      billing_email: (v) =>
        /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v.trim()) ? null : 'Enter a valid e-mail address',
    },
  });
  const input = (field: keyof BillingInfo) => ({ ...form.getInputProps(field), readOnly: !canWrite });
  return (
    <form
      noValidate
      onSubmit={form.onSubmit((v) =>
        save.mutate(v, {
          onSuccess: () => {
            form.resetDirty();
            notifications.show({ color: 'green', message: 'The billing details have been saved.' });
          },
          onError: (error) => form.setErrors(fieldErrorsOf(error)),
        }),
      )}
    >
      <Stack gap="sm">
        <TextInput label="Invoice e-mail" required type="email" {...input('billing_email')} />
        <TextInput label="Company name on invoices" {...input('company_name')} />
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextInput label="Tax ID (VAT, EIN…)" {...input('tax_id')} />
          <TextInput label="PO number" {...input('po_number')} />
        </SimpleGrid>
        <Select
          label="Billing time zone"
          searchable
          data={zones}
          allowDeselect={false}
          limit={60}
          readOnly={!canWrite}
          {...form.getInputProps('time_zone')}
        />
        {save.isError && Object.keys(fieldErrorsOf(save.error)).length === 0 && (
          <FormError error={save.error} />
        )}
        {canWrite && (
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending} disabled={!form.isDirty()}>
              Save details
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}
