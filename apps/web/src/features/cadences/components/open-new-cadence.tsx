import { Button } from '@mantine/core';
import { IconArrowRight } from '@tabler/icons-react';
import type { CadenceListItem } from '@rally/shared/schemas/cadences';
import { useCadences } from '../api/get-cadences.ts';
import { cadenceHref } from './cadences-screen.tsx';

/**
 * The cadence a setup just brought in: of the source just connected (or imported), the newest (ids
 * grow as cadences are made); undefined while there is none.
 */
export function newestCadenceOf(list: CadenceListItem[], source: string | null): CadenceListItem | undefined {
  return list.filter((c) => !source || c.source === source).sort((a, b) => b.id - a.id)[0];
}

/**
 * Onboarding's last step (issue 42 item 15): "Open “Spring Push”", the cadence the import or first
 * sync made, where ads are switched on. Nothing while the list loads or holds none of that source.
 */
export function OpenNewCadenceButton({
  clientId,
  source,
  onOpen,
}: {
  clientId: string;
  source: string | null;
  /** Goes to the path once the app knows of the new connection (so the page is not gated). */
  onOpen: (path: string) => void;
}) {
  const list = useCadences(clientId);
  const cadence = list.data ? newestCadenceOf(list.data, source) : undefined;
  if (!cadence) return null;
  return (
    <Button
      size="md"
      rightSection={<IconArrowRight size={16} />}
      onClick={() => onOpen(cadenceHref(clientId, cadence))}
    >
      Open “{cadence.name}”
    </Button>
  );
}
