import { useState } from 'react';
import { SegmentedControl } from '@mantine/core';
import { RunOnNetworks } from './run-on-networks.tsx';

/** "Run on networks" for a journey: one stage at a time (its accounts' members), chosen above. */
export function RunStagesOnNetworks({
  clientId,
  stages,
  canWrite,
}: {
  clientId: string;
  stages: readonly { id: string; name: string }[];
  canWrite: boolean;
}) {
  const [chosen, setChosen] = useState(stages[0]?.id ?? '');
  const stage = stages.find((s) => s.id === chosen) ?? stages[0];
  if (!stage) return null;
  return (
    <RunOnNetworks
      clientId={clientId}
      source={{ kind: 'journey_stage', id: stage.id }}
      canWrite={canWrite}
      members={`the members of the accounts in “${stage.name}”`}
      picker={
        <SegmentedControl
          aria-label="Stage"
          size="xs"
          data={stages.map((s) => ({ value: s.id, label: s.name }))}
          value={stage.id}
          onChange={setChosen}
          style={{ alignSelf: 'flex-start', maxWidth: '100%', overflowX: 'auto' }}
        />
      }
    />
  );
}
