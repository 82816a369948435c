import { Radio, Stack, Text, TextInput } from '@mantine/core';
import type { SalesforceLogin } from '@rally/shared/schemas/crm';
import { fieldErrorsOf } from '../../../components/form-error.tsx';

export type SalesforceLoginChoice = { login: SalesforceLogin; myDomain: string };

const OPTIONS: { value: SalesforceLogin; label: string; description: string }[] = [
  { value: 'production', label: 'Production', description: 'login.salesforce.com' },
  { value: 'sandbox', label: 'Sandbox', description: 'test.salesforce.com' },
  {
    value: 'my_domain',
    label: 'My Domain',
    description: "Your org's own login address, for orgs that block the two above",
  },
];

/**
 * The connect step's choice of where the Salesforce org logs in (issue 40 item 2): production, a
 * sandbox or the org's My Domain (typed in; the server checks it is a *.my.salesforce.com host).
 * `error` is the redirect call's failure: a 422 on `my_domain` shows under the field.
 */
export function SalesforceLoginPicker({
  value,
  onChange,
  error,
}: {
  value: SalesforceLoginChoice;
  onChange: (next: SalesforceLoginChoice) => void;
  error: unknown;
}) {
  const fieldErrors = fieldErrorsOf(error);
  return (
    <Stack gap="xs">
      <Radio.Group
        label="Where does your org log in?"
        value={value.login}
        onChange={(login) => onChange({ ...value, login: login as SalesforceLogin })}
        error={fieldErrors['querystring.login']}
      >
        <Stack gap={6} mt={4}>
          {OPTIONS.map((o) => (
            <Radio key={o.value} value={o.value} label={o.label} description={o.description} />
          ))}
        </Stack>
      </Radio.Group>
      {value.login === 'my_domain' && (
        <TextInput
          label="My Domain"
          placeholder="https://acme.my.salesforce.com"
          value={value.myDomain}
          onChange={(e) => onChange({ ...value, myDomain: e.currentTarget.value })}
          error={fieldErrors['querystring.my_domain']}
          maw={420}
        />
      )}
      {value.login === 'my_domain' && !fieldErrors['querystring.my_domain'] && (
        <Text size="xs" c="dimmed">
          Setup › My Domain shows it, for example https://acme.my.salesforce.com.
        </Text>
      )}
    </Stack>
  );
}
