export { samlRoutes } from './routes.ts';
export { samlSettingsRoutes } from './settings-routes.ts';
export { SAML_METADATA_JOB, refreshSamlMetadata, setupSamlMetadataRefresh } from './metadata-refresh.ts';
