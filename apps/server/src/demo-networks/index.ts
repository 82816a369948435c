import type { Config } from '../config/env.ts';
import { META_VERSION, startFakeMeta } from './meta-fake.ts';
import type { FakeMeta } from './meta-fake.ts';
import { demoMetaDelivery, loadDemoMetaWorld } from './world.ts';

export {
  DEMO_META_ACCOUNT,
  DEMO_META_AUDIENCE_ID,
  DEMO_META_CAMPAIGNS,
  DEMO_META_PAGE,
  DEMO_META_TOKEN,
  DEMO_META_TOKEN_EXPIRES,
  DEMO_META_USER,
} from './world.ts';
export type { DemoMetaCampaign } from './world.ts';

/**
 * The demo's ad network (decision 0037): the Meta fake, with the demo world loaded, served by the
 * server's own process on loopback, and Rally's Meta configuration pointed at it.
 */
export type DemoNetworks = {
  meta: FakeMeta;
  /** Counts the demo history from this day (YYYY-MM-DD): the day the demo network was seeded. */
  setAnchor: (day: string) => void;
  close: () => Promise<void>;
};

/**
 * Only for the demo (SEED_DEMO) and only when no Meta app is configured: a real META_APP_ID (or a
 * test suite's own fake) always wins, and production never seeds the demo (config/env.ts refuses it).
 * Every process of a split deployment starts its own: the world is the same in each.
 */
export const demoNetworksWanted = (config: Config): boolean => config.seedDemo && !config.vendors.meta.appId;

/** The demo's Meta on loopback (`port` 0: any free one), its world loaded. */
export async function startDemoMeta(port = 0): Promise<DemoNetworks> {
  const world = demoMetaDelivery();
  const meta = await startFakeMeta({ port, delivery: world.delivery, keepRequests: 100 });
  loadDemoMetaWorld(meta);
  return { meta, setAnchor: world.setAnchor, close: meta.close };
}

/** Starts the demo's Meta and returns the configuration that uses it. */
export async function startDemoNetworks(config: Config): Promise<{ config: Config; networks: DemoNetworks }> {
  const networks = await startDemoMeta(config.demoMetaPort);
  const { meta } = networks;
  return {
    config: {
      ...config,
      vendors: {
        ...config.vendors,
        meta: {
          graphUrl: meta.url,
          authUrl: meta.url,
          apiVersion: META_VERSION,
          appId: meta.appId,
          appSecret: meta.appSecret,
        },
      },
    },
    networks,
  };
}
