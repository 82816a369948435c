import { useParams } from 'react-router';
import { IntegrationSettingsScreen } from '../../features/integrations/index.ts';
import { WebhooksScreen } from '../../features/webhooks/index.ts';

/** /settings/integrations/* (catch-all): a connection's settings, or the webhooks at …/webhooks. */
export default function SettingsIntegrationsRoute() {
  const params = useParams();
  const first = (params['*'] ?? '').split('/')[0];
  return first === 'webhooks' ? <WebhooksScreen /> : <IntegrationSettingsScreen />;
}
