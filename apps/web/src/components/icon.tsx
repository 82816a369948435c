import {
  IconAlertTriangle,
  IconBuilding,
  IconCheck,
  IconChartBar,
  IconCurrencyDollar,
  IconInfoCircle,
  IconLayoutList,
  IconLogout,
  IconPhoto,
  IconRoute,
  IconSettings,
  IconUsers,
  IconUsersGroup,
  IconX,
} from '@tabler/icons-react';
import { useEffect } from 'react';

const ICONS = {
  alert: IconAlertTriangle,
  cadences: IconRoute,
  check: IconCheck,
  clients: IconBuilding,
  cohorts: IconUsersGroup,
  close: IconX,
  content: IconPhoto,
  feed: IconLayoutList,
  info: IconInfoCircle,
  logout: IconLogout,
  prospects: IconUsers,
  reports: IconChartBar,
  revenue: IconCurrencyDollar,
  settings: IconSettings,
};

export type IconName = keyof typeof ICONS;

type IconProps = {
  /** Usually an IconName; names from data are accepted and a missing one renders nothing. */
  name: IconName | (string & {});
  size?: number | string;
  stroke?: number;
  color?: string;
  title?: string;
};

function isIconName(name: string): name is IconName {
  return Object.hasOwn(ICONS, name);
}

/** One icon by name. A missing name logs "Icon doesn't exist" (SPEC.md §8) and renders nothing. */
export function Icon({ name, size = 18, stroke = 1.75, color, title }: IconProps) {
  const known = isIconName(name);
  useEffect(() => {
    if (!known) console.warn("Icon doesn't exist", name);
  }, [known, name]);
  if (!known) return null;
  const Svg = ICONS[name];
  return (
    <Svg size={size} stroke={stroke} color={color} aria-hidden={title ? undefined : true} title={title} />
  );
}
