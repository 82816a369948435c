import type { VendorsConfig } from '../../config/env.ts';
import type { AdapterOptions } from '../integrations/registry.ts';
import { createHubSpotAdapter } from './adapters/hubspot/adapter.ts';
import { createMarketoAdapter } from './adapters/marketo/adapter.ts';
import { createSalesforceAdapter } from './adapters/salesforce/adapter.ts';
import type { CrmAdapter, CrmSource } from './port.ts';

/**
 * One adapter per CRM source, built from configuration (tests point the URLs at fakes). A source
 * without an adapter yet is absent: connecting it answers that it is not available.
 */
export function createCrmAdapters(
  vendors: VendorsConfig,
  opts: AdapterOptions = {},
): Partial<Record<CrmSource, CrmAdapter>> {
  return {
    salesforce: createSalesforceAdapter(vendors.salesforce, opts),
    hubspot: createHubSpotAdapter(vendors.hubspot, opts),
    marketo: createMarketoAdapter(opts),
  };
}
