import { Stack, Text, Title } from '@mantine/core';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { MfaCard } from './mfa-card.tsx';
import { PasswordCard } from './password-card.tsx';
import { ProfileCard } from './profile-card.tsx';
import { SignInAccountsCard } from './sign-in-accounts-card.tsx';

/** /settings/profile: the signed-in user's name, password and two-step verification. */
export function ProfileScreen() {
  const { user } = useAuth();
  // The route gate renders this only once self has loaded; the loader covers a brief refresh.
  if (!user) return <ScreenLoader />;
  return (
    <Stack gap="lg" maw={760}>
      <div>
        <Title order={1}>Profile</Title>
        <Text c="dimmed">Your name, password and how you sign in.</Text>
      </div>
      <ProfileCard key={user.id} user={user} />
      <PasswordCard hasPassword={user.has_password} />
      <MfaCard enabled={user.mfa_enabled} />
      {!user.sso_client_id && <SignInAccountsCard />}
    </Stack>
  );
}
