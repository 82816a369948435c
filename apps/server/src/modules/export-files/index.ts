import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { exportFileRoutes } from './routes.ts';
import { createExportFileService } from './service.ts';
import type { ExportFileService } from './service.ts';

export type { ExportFileService } from './service.ts';

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyInstance {
    exportFiles: ExportFileService;
  }
}

/** Creates the export file service and registers its job (before the queue starts). */
export function setupExportFiles(app: FastifyInstance): void {
  app.decorate('exportFiles', createExportFileService(app));
}

/** The export file calls under /v1; their files download through the campaigns' `/download/{id}`. */
export const exportFileApiRoutes: FastifyPluginAsync = async (app) => {
  await app.register(exportFileRoutes(app.exportFiles));
};
