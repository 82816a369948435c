import type { VendorsConfig } from '../../config/env.ts';
import type { AdNetwork } from './port.ts';

/**
 * Whether this installation has each network's app set up (decision 0023: unset, the network is not
 * offered), and the variables to name in the log when a connect is refused.
 */
const SET_UP: Record<AdNetwork, { ready: (v: VendorsConfig) => boolean; env: string }> = {
  meta: { ready: (v) => Boolean(v.meta.appId && v.meta.appSecret), env: 'META_APP_ID and META_APP_SECRET' },
  linkedin: {
    ready: (v) => Boolean(v.linkedin.clientId && v.linkedin.clientSecret),
    env: 'LINKEDIN_CLIENT_ID and LINKEDIN_CLIENT_SECRET',
  },
  google: {
    ready: (v) => Boolean(v.google.appId && v.google.appSecret && v.google.developerToken),
    env: 'GOOGLE_ADS_CLIENT_ID, GOOGLE_ADS_CLIENT_SECRET and GOOGLE_ADS_DEVELOPER_TOKEN',
  },
};

export const adNetworkSetUp = (vendors: VendorsConfig, network: AdNetwork): boolean =>
  SET_UP[network].ready(vendors);

/** The configuration variables that offer `network`, for the log. */
export const adNetworkEnv = (network: AdNetwork): string => SET_UP[network].env;
