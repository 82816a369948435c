import { render, screen } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { describe, expect, it } from 'vitest';
import { ReadOnlyNote, rolesThatCan } from './read-only-note.tsx';

describe('ReadOnlyNote (issue 42 item 9)', () => {
  it('names the roles that may change it, from the built-in roles', () => {
    expect(rolesThatCan('settings.write')).toBe('owners and admins');
    expect(rolesThatCan('cadence.write')).toBe('owners, admins and managers');
    expect(rolesThatCan('billing_details.write')).toBe('owners');
  });

  it('says in one line why the screen is read-only, in plain words', () => {
    render(
      <MantineProvider>
        <ReadOnlyNote permission="settings.write" />
      </MantineProvider>,
    );
    expect(screen.getByRole('note')).toHaveTextContent(
      'Only owners and admins can change this: your role does not have permission to change the settings.',
    );
  });
});
