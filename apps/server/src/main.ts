import { enableCompileCache, flushCompileCache } from 'node:module';
import type { Config } from './config/env.ts';
import { restartWithMallocTrim } from './config/malloc.ts';

// Embedded mode on Linux: the process starts again at once, with malloc told to give freed memory back
// (config/malloc.ts).
restartWithMallocTrim();

// V8's compiled code and the type-stripped source of every module, kept on disk between starts
// (NODE_COMPILE_CACHE names the folder, else the OS temp folder; NODE_DISABLE_COMPILE_CACHE=1 turns
// it off): a restart compiles and strips nothing it compiled before (bench/README.md "Embedded mode").
// It only covers modules loaded after this call, so everything else below is imported dynamically.
enableCompileCache();

const { default: closeWithGrace } = await import('close-with-grace');
const { ConfigError, loadConfig } = await import('./config/env.ts');
const { registerFastResolve } = await import('./lib/module-hooks.ts');

// Before any module that reaches drizzle-orm or date-fns (@rally/shared does) is resolved.
registerFastResolve();

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}

// The app's module graph loads after the configuration is checked, so bad configuration is
// refused at once, not after seconds of loading every module.
const { PRODUCT_NAME } = await import('@rally/shared');
const { buildApp } = await import('./app.ts');
const { DEMO_EMAIL, DEMO_PASSWORD, seedDemoAll } = await import('./db/seed.ts');
// Decision 0037: the demo's Meta, served in this process on loopback when no Meta app is set up.
const { demoNetworksWanted, startDemoNetworks } = await import('./demo-networks/index.ts');
const demo = demoNetworksWanted(config) ? await startDemoNetworks(config) : null;
const app = await buildApp(demo?.config ?? config, { deferWorkers: true });
if (demo) app.addHook('onClose', () => demo.networks.close());
if (config.seedDemo && config.services.includes('main')) {
  app.log.info({ seed: await seedDemoAll(app, { networks: demo?.networks }) }, 'demo seed');
}
await app.listen({ host: config.host, port: config.port });

const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : config.port;
const url =
  config.publicUrl.replace(/:\d+$/, '') === 'http://localhost'
    ? `http://localhost:${port}`
    : config.publicUrl;
const lines = [
  `${PRODUCT_NAME} is ready at ${url} (${Math.round(performance.now())} ms after start; database: ${app.database.driver})`,
  ...(config.seedDemo ? [`Demo sign-in: ${DEMO_EMAIL} / ${DEMO_PASSWORD}`] : []),
];
console.log(`\n  ${lines.join('\n  ')}\n`);
// The job workers start once the server listens: their first fetches (one per queue) ran in the
// middle of the start and the demo seed's checks before.
await app.queue.startWorkers();
// Node writes the cache at exit; written now, a server that is killed still leaves it for the next start.
flushCompileCache();

// SIGTERM/SIGINT: stop accepting, let in-flight requests finish, stop jobs, close the database.
closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'shutting down after an error');
  else app.log.info({ signal }, 'shutting down');
  await app.close();
});
