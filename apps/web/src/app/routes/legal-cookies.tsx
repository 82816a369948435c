import { List, Text } from '@mantine/core';
import { LegalPage } from './legal-page.tsx';

export default function CookiesScreen() {
  return (
    <LegalPage
      title="Cookies"
      updated="21 November 2026"
      intro="Rally uses a small number of cookies to keep you signed in and to keep your account safe. We do not use cookies to sell or share your data."
      sections={[
        {
          heading: 'Cookies we always set',
          body: (
            <List spacing={4}>
              <List.Item>
                <Text span fw={600}>
                  rally_auth_token
                </Text>{' '}
                keeps you signed in. It cannot be read by scripts and expires when your session ends or after
                a period of inactivity.
              </List.Item>
              <List.Item>
                A security token that protects your account against cross-site request forgery.
              </List.Item>
            </List>
          ),
        },
        {
          heading: 'Product analytics',
          body: 'When your organisation enables product analytics, a first-party cookie measures which screens are used so we can improve them. You can decline it and Rally works the same.',
        },
        {
          heading: 'Landing pages and ads',
          body: 'Personalised ads and landing pages count impressions and clicks through the link itself, not through third-party cookies.',
        },
      ]}
    />
  );
}
