import type {
  FakeSalesloftSeed,
  SeedCadence,
  SeedMembership,
  SeedPerson,
} from '../apps/server/test/fakes/salesloft.ts';

/** Days of every generated cadence's steps (about two weeks of outreach over ten days). */
export const STEP_DAYS = [1, 1, 2, 3, 5, 7, 8, 10];

/** The day generated membership `id` starts on (see generateTeam). */
export const dayOf = (id: number) => STEP_DAYS[Math.floor((id - 1) / 10) % STEP_DAYS.length]!;

/**
 * A generated Salesloft team: 20 reps, 10 cadences, `memberships` people across ~2,000 accounts,
 * each person on one cadence, spread over the cadence's days. Deterministic (no randomness) so runs
 * compare; built as plain arrays in one pass.
 */
export function generateTeam(memberships: number): FakeSalesloftSeed {
  const users = Array.from({ length: 20 }, (_, i) => ({
    id: i + 1,
    first_name: `Rep${i + 1}`,
    last_name: 'Bench',
    email: `rep${i + 1}@bench.example`,
    team_admin: i === 0,
  }));
  const accountCount = Math.max(1, Math.round(memberships / 25));
  const accounts = Array.from({ length: accountCount }, (_, i) => ({
    id: i + 1,
    name: `Company ${i + 1}`,
    domain: `company${i + 1}.example`,
  }));
  const cadences: SeedCadence[] = Array.from({ length: 10 }, (_, c) => ({
    id: c + 1,
    name: `Cadence ${c + 1}`,
    owner_id: (c % users.length) + 1,
    steps: STEP_DAYS.map((day, s) => ({
      id: c * 100 + s + 1,
      day,
      type: s % 2 ? ('phone' as const) : ('email' as const),
    })),
  }));
  const people: SeedPerson[] = new Array(memberships);
  const list: SeedMembership[] = new Array(memberships);
  for (let i = 0; i < memberships; i++) {
    people[i] = {
      id: i + 1,
      first_name: `First${i}`,
      last_name: `Last${i}`,
      email_address: `person${i}@company${(i % accountCount) + 1}.example`,
      title: i % 3 ? 'VP Sales' : 'CTO',
      account_id: (i % accountCount) + 1,
      owner_id: (i % users.length) + 1,
    };
    const cadence = cadences[i % cadences.length]!;
    const step = cadence.steps![Math.floor(i / cadences.length) % STEP_DAYS.length]!;
    list[i] = {
      id: i + 1,
      cadence_id: cadence.id!,
      person_id: i + 1,
      user_id: (i % users.length) + 1,
      current_state: i % 50 === 0 ? 'completed' : 'active',
      step_id: step.id!,
      counts: { sent_emails: Number(step.day) > 1 ? 1 : 0 },
    };
  }
  return { team: { name: 'Bench Team' }, users, accounts, people, cadences, memberships: list };
}
