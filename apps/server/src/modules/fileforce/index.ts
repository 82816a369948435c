export { fileforceRoutes } from './routes.ts';
export { IMPORT_JOB, importCsvFile } from './service.ts';
export type { FileforceDeps, ImportCsvFileOptions } from './service.ts';
