import { LegalPage } from './legal-page.tsx';

export default function PrivacyScreen() {
  return (
    <LegalPage
      title="Privacy"
      updated="21 November 2026"
      intro="This notice explains what personal data Rally processes, why, and the choices you have."
      sections={[
        {
          heading: 'What we process',
          body: 'Account data (name, e-mail address, role), data your organisation imports from its sequence platform or CRM (prospects, cadences, sales reps, opportunities), and engagement events (impressions, clicks and landing page views).',
        },
        {
          heading: 'Why',
          body: 'To run the service your organisation subscribed to: showing personalised ads and landing pages, reporting engagement and pipeline, and billing. We act as a processor for the prospect data our customers bring.',
        },
        {
          heading: 'Security',
          body: 'Passwords are stored as argon2id hashes, integration credentials are encrypted at rest, and every query is scoped to the organisation it belongs to.',
        },
        {
          heading: 'Your choices',
          body: 'You can update your profile at any time, and ask your organisation’s owner or our support team to export or delete your data.',
        },
      ]}
    />
  );
}
