import { buildApp } from '../apps/server/src/app.ts';
import { clients } from '../apps/server/src/db/schema/index.ts';
import { connectMetaDirectly } from '../apps/server/test/ad-network-kit.ts';
import type { startFakeMeta } from '../apps/server/test/fakes/meta.ts';
import { benchConfig } from './lib.ts';

/**
 * The ad benches' shared start: the app pointed at the Meta fake (no job workers), a client, and
 * that client's Meta connection made directly with a 60-day token from the fake.
 */
export async function metaBenchApp(
  fake: Awaited<ReturnType<typeof startFakeMeta>>,
  databaseUrl: string | undefined,
) {
  const app = await buildApp(
    benchConfig(databaseUrl, {
      META_APP_ID: fake.appId,
      META_APP_SECRET: fake.appSecret,
      META_GRAPH_URL: fake.url,
      META_AUTH_URL: fake.url,
      META_API_VERSION: fake.version,
    }),
    { workers: false },
  );
  await app.ready();
  const [client] = await app.db.insert(clients).values({ name: 'Bench' }).returning({ id: clients.id });
  const clientId = client!.id;
  const token = fake.mintToken(60 * 24 * 3600);
  const connection = await connectMetaDirectly(app, clientId, {
    accessToken: token,
    expiresAt: new Date(Date.now() + 60 * 24 * 3600_000).toISOString(),
  });
  return { app, clientId, token, connection };
}
