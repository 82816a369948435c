export { fileforceRoutes } from './routes.ts';
export { IMPORT_JOB, importCsvFile } from './service.ts';
export type { FileforceDeps, ImportCsvFileOptions } from './service.ts';
export { runImportInChild } from './child-process.ts';
export type { ChildRun } from './child-process.ts';
