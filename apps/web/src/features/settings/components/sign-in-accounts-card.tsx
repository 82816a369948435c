import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { IconBrandGoogleFilled, IconBrandWindows } from '@tabler/icons-react';
import { useSearchParams } from 'react-router';
import { OAUTH_PROVIDERS } from '@rally/shared/schemas/sso';
import type { OAuthProvider } from '@rally/shared/schemas/sso';
import { FormError } from '../../../components/form-error.tsx';
import { useLinkProvider, useSignInAccounts, useUnlinkProvider } from '../api/sign-in-accounts.ts';
import { SettingsCard } from './settings-card.tsx';

const NAMES: Record<OAuthProvider, string> = { google: 'Google', microsoft: 'Microsoft' };
const ICONS: Record<OAuthProvider, typeof IconBrandWindows> = {
  google: IconBrandGoogleFilled,
  microsoft: IconBrandWindows,
};
const LINK_ERRORS: Record<string, string> = {
  identity_taken: 'That account already signs in another Rally user.',
  invalid_state: 'Linking took too long or was interrupted. Please try again.',
};

/**
 * Which Google and Microsoft accounts sign the user in (docs/decisions/0015). Linking here is how a
 * work account whose provider does not vouch for its address gets to sign in.
 */
export function SignInAccountsCard() {
  const [params] = useSearchParams();
  const accounts = useSignInAccounts();
  const link = useLinkProvider();
  const unlink = useUnlinkProvider();
  const linked = params.get('linked');
  const linkError = params.get('link_error');
  return (
    <SettingsCard
      title="Google and Microsoft sign-in"
      description="Accounts linked here sign you in, even if their address changes. Others cannot."
    >
      {linked && linked in NAMES && (
        <Alert color="green" role="status">
          {NAMES[linked as OAuthProvider]} account linked.
        </Alert>
      )}
      {linkError && (
        <FormError error={new Error(LINK_ERRORS[linkError] ?? 'Linking failed. Please try again.')} />
      )}
      <Stack gap="sm">
        {OAUTH_PROVIDERS.map((provider) => {
          const account = accounts.data?.identities.find((i) => i.provider === provider);
          const Icon = ICONS[provider];
          return (
            <Group key={provider} justify="space-between">
              <Group gap="xs">
                <Icon size={16} aria-hidden />
                <Text size="sm">
                  {NAMES[provider]}: {account ? account.email : 'not linked'}
                </Text>
              </Group>
              {account ? (
                <Button
                  variant="default"
                  size="xs"
                  loading={unlink.isPending && unlink.variables === provider}
                  onClick={() => unlink.mutate(provider)}
                >
                  Unlink {NAMES[provider]}
                </Button>
              ) : (
                <Button
                  variant="default"
                  size="xs"
                  loading={link.isPending && link.variables === provider}
                  onClick={() => link.mutate(provider)}
                >
                  Link {NAMES[provider]}
                </Button>
              )}
            </Group>
          );
        })}
      </Stack>
      <FormError error={link.error ?? unlink.error} />
    </SettingsCard>
  );
}
