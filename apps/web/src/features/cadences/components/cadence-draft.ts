import type { Cadence, UpdateCadenceBody } from '@rally/shared/schemas/cadences';

/**
 * The editable part of a cadence screen (its reps and its days' content and transition actions),
 * kept apart from the server's copy until saved.
 */

export type DraftAction = {
  key: string;
  action_type: string;
  action_rule: string;
  /** '' while the field is being typed. */
  action_rule_value: number | '';
  target_day_number: number | null;
};
export type DraftContentDay = { key: string; content_id: string | null; actions: DraftAction[] };
export type CadenceDraft = { selected_sdrs: string[]; days: Record<number, DraftContentDay[]> };

let seq = 0;
export const newKey = () => `k${++seq}`;

export function draftOf(cadence: Cadence): CadenceDraft {
  return {
    selected_sdrs: [...cadence.selected_sdrs],
    days: Object.fromEntries(
      cadence.days.map((d) => [
        d.day_number,
        d.content_days.map((cd) => ({
          key: newKey(),
          content_id: cd.content_id,
          actions: cd.day_transition_actions.map((a) => ({
            key: newKey(),
            action_type: a.action_type,
            action_rule: a.action_rule,
            action_rule_value: a.action_rule_value,
            target_day_number: a.target_day_number ?? null,
          })),
        })),
      ]),
    ),
  };
}

/** The draft without its local keys, to compare with what the server holds. */
export function comparable(d: CadenceDraft): string {
  return JSON.stringify({
    s: [...d.selected_sdrs].sort(),
    d: Object.entries(d.days).map(([day, cds]) => [
      day,
      cds.map((cd) => [
        cd.content_id,
        cd.actions.map((a) => [a.action_type, a.action_rule, a.action_rule_value, a.target_day_number]),
      ]),
    ]),
  });
}

/** Problems the form can see before asking the server, keyed `day.content.action` (or `day.content`). */
export function draftProblems(d: CadenceDraft): Map<string, string> {
  const out = new Map<string, string>();
  for (const [day, cds] of Object.entries(d.days)) {
    cds.forEach((cd, i) => {
      if (!cd.content_id) out.set(`${day}.${i}`, 'Choose the content to show');
      cd.actions.forEach((a, j) => {
        if (a.action_rule_value === '' || a.action_rule_value < 0)
          out.set(`${day}.${i}.${j}`, 'Give a number of 0 or more');
        else if (a.action_type === 'move_to_day' && a.target_day_number === null)
          out.set(`${day}.${i}.${j}`, 'Choose the day to move to');
      });
    });
  }
  return out;
}

/** The PUT body: every day, so what the screen shows is exactly what is stored. */
export function bodyOf(d: CadenceDraft): UpdateCadenceBody {
  return {
    selected_sdrs: d.selected_sdrs,
    days: Object.entries(d.days).map(([day, cds]) => ({
      day_number: Number(day),
      content_days: cds.flatMap((cd) =>
        cd.content_id
          ? [
              {
                content_id: cd.content_id,
                day_transition_actions: cd.actions.map((a) => ({
                  action_type: a.action_type as 'move_to_day' | 'finish',
                  action_rule: a.action_rule as 'impressions_gte' | 'clicks_gte' | 'days_on_day_gte',
                  action_rule_value: Number(a.action_rule_value),
                  ...(a.action_type === 'move_to_day' && a.target_day_number !== null
                    ? { target_day_number: a.target_day_number }
                    : {}),
                })),
              },
            ]
          : [],
      ),
    })),
  };
}
