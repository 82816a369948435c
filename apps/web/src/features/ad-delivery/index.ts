export { getAdFieldsQueryOptions, useAdFields, AD_FIELDS_POLL_MS } from './api/get-ad-fields.ts';
export { getAvailableAdFieldsQueryOptions, useAvailableAdFields } from './api/get-available-ad-fields.ts';
export { useUpdateAdFields } from './api/update-ad-fields.ts';
export { createFieldsInstructions, useCreateAdFields } from './api/create-ad-fields.ts';
export { AdFieldsPanel } from './components/ad-fields-panel.tsx';
