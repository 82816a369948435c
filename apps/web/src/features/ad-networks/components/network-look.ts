import { IconBrandGoogle, IconBrandLinkedin, IconBrandMeta } from '@tabler/icons-react';
import type { Icon } from '@tabler/icons-react';
import type { AdNetworkKey } from '@rally/shared/schemas/ad-networks';

/** How each ad network is named and drawn on the screens (issue 39, decision 0025). */
export type NetworkLook = {
  Icon: Icon;
  /** Short name for buttons and messages ("Connect LinkedIn"). */
  name: string;
  /** What the network calls a matched audience. */
  audiences: string;
  /** The page the ads speak as, and where it comes from; null where there is none (Google Ads). */
  page: string | null;
  pageHelp: string;
  /** What the network calls the account audiences are created in. */
  account?: string;
};

export const NETWORK_LOOK: Record<AdNetworkKey, NetworkLook> = {
  meta: {
    Icon: IconBrandMeta,
    name: 'Meta',
    audiences: 'Custom audiences',
    page: 'Facebook page',
    pageHelp: 'The page your ads speak as',
  },
  linkedin: {
    Icon: IconBrandLinkedin,
    name: 'LinkedIn',
    audiences: 'Matched audiences',
    page: 'Company page',
    pageHelp: 'The LinkedIn page your ads speak as (pages you administer)',
  },
  google: {
    Icon: IconBrandGoogle,
    name: 'Google Ads',
    audiences: 'Customer Match lists',
    // Google Ads speaks as the advertiser: no page to choose.
    page: null,
    pageHelp: '',
    account: 'Google Ads account',
  },
};

/** The look of a network named in a URL (`?connected=`), or null for a name Rally does not know. */
export const lookOf = (network: string | null): NetworkLook | null =>
  network && Object.hasOwn(NETWORK_LOOK, network) ? NETWORK_LOOK[network as AdNetworkKey] : null;
