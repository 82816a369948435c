import { LegalPage } from './legal-page.tsx';

export default function TermsScreen() {
  return (
    <LegalPage
      title="Terms of use"
      updated="21 November 2026"
      intro="These terms govern your use of Rally. By signing in you agree to them on behalf of yourself and the organisation you work for."
      sections={[
        {
          heading: 'Your account',
          body: 'Keep your sign-in details to yourself and tell your organisation’s owner at once if you think someone else has used them.',
        },
        {
          heading: 'Acceptable use',
          body: 'Use Rally only to reach prospects you may lawfully contact, with content you have the right to publish. Do not probe, overload or work around the service’s security.',
        },
        {
          heading: 'Billing',
          body: 'Usage is billed per superprospect at the price shown in your billing settings. Invoices are issued as usage accrues and at the end of each month.',
        },
        {
          heading: 'Changes',
          body: 'We may update these terms; material changes are announced in the product at least 30 days before they apply.',
        },
      ]}
    />
  );
}
