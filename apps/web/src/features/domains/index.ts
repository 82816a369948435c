export { getDomainsQueryOptions, useDomains } from './api/domains.ts';
export { getSsoQueryOptions, useSso } from './api/sso.ts';
export { VerifiedDomainsPanel } from './components/verified-domains-panel.tsx';
export { SsoPanel } from './components/sso-panel.tsx';
export type { SsoAccess } from './components/sso-panel.tsx';
export { ScimPanel } from './components/scim-panel.tsx';
export { SamlPanel } from './components/saml-panel.tsx';
