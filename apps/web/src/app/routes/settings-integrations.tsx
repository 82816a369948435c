import { useParams } from 'react-router';
import { AdFieldsPanel } from '../../features/ad-delivery/index.ts';
import { IntegrationSettingsScreen } from '../../features/integrations/index.ts';
import { useAuth } from '../../lib/auth/store.ts';
import { WebhooksScreen } from '../../features/webhooks/index.ts';

/** /settings/integrations/* (catch-all): a connection's settings, or the webhooks at …/webhooks. */
export default function SettingsIntegrationsRoute() {
  const params = useParams();
  const auth = useAuth();
  const first = (params['*'] ?? '').split('/')[0];
  if (first === 'webhooks') return <WebhooksScreen />;
  const clientId = auth.currentClient;
  const canWrite = Boolean(auth.currentRole?.permissions.includes('integration.write'));
  return (
    <IntegrationSettingsScreen
      extra={(source) =>
        clientId ? <AdFieldsPanel clientId={clientId} source={source} canWrite={canWrite} /> : null
      }
    />
  );
}
