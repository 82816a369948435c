import type { WebhookEventType } from '@rally/shared/schemas/hookly';

/**
 * The `data` of each event, as the product emits it (docs/webhooks.md lists the fields). The test
 * export sends these samples, with the same fields and made-up values, marked `"test": true`.
 */
export function engagementData(item: {
  target_id: string;
  prospect_id: string;
  cadence_id: number;
  sales_rep_id: string | null;
  created_at: string;
  data: Record<string, unknown>;
}): Record<string, unknown> {
  const d = item.data;
  return {
    target_id: item.target_id,
    prospect_id: item.prospect_id,
    cadence_id: item.cadence_id,
    sales_rep_id: item.sales_rep_id,
    first_name: d.first_name ?? null,
    last_name: d.last_name ?? null,
    company_name: d.company_name ?? null,
    cadence_name: d.cadence_name ?? null,
    sales_rep_name: d.sales_rep_name ?? null,
    day_number: d.day_number ?? null,
    impressions: d.impressions ?? null,
    clicks: d.clicks ?? null,
    views: d.views ?? null,
    ...(d.reason ? { reason: d.reason } : {}),
    occurred_at: item.created_at,
  };
}

export function sampleData(type: WebhookEventType, clientId: string, at: Date): Record<string, unknown> {
  const when = at.toISOString();
  const engagement = engagementData({
    target_id: '00000000-0000-4000-8000-000000000001',
    prospect_id: '00000000-0000-4000-8000-000000000002',
    cadence_id: 1,
    sales_rep_id: '00000000-0000-4000-8000-000000000003',
    created_at: when,
    data: {
      first_name: 'Ada',
      last_name: 'Lovelace',
      company_name: 'Analytical Engines Ltd',
      cadence_name: 'Sample cadence',
      sales_rep_name: 'Sam Rep',
      day_number: 3,
      impressions: 15,
      clicks: 1,
      views: type === 'landing_page_view' ? 1 : 0,
      ...(type === 'superprospect' ? { reason: 'click' } : {}),
    },
  });
  const base = { test: true, client_id: clientId };
  switch (type) {
    case 'superprospect':
    case 'click':
    case 'landing_page_view':
      return { ...base, ...engagement };
    case 'sync_finished':
      return {
        ...base,
        integration_id: 1,
        source: 'salesforce',
        status: 'succeeded',
        error: null,
        finished_at: when,
      };
    case 'import_finished':
      return {
        ...base,
        import_id: '00000000-0000-4000-8000-000000000004',
        file_name: 'prospects.csv',
        kind: 'targets',
        status: 'done',
        imported_rows: 120,
        error_rows: 2,
        failure_reason: null,
        finished_at: when,
      };
    case 'invoice':
      return {
        ...base,
        invoice_id: '00000000-0000-4000-8000-000000000005',
        number: 'R-00001',
        status: 'paid',
        amount_cents: 40000,
        currency: 'usd',
        period: when.slice(0, 7),
        reason: 'threshold',
        failure_reason: null,
      };
  }
}
