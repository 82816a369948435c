import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Assignee } from '@rally/shared/schemas/content';
import { CalendarLinkWarning } from './calendar-link-warning.tsx';

const rep = (patch: Partial<Assignee> = {}): Assignee => ({
  first_name: 'Jane',
  last_name: 'Cooper',
  title: 'AE',
  company_name: 'Acme',
  website: '',
  calendar_url: '',
  ...patch,
});
const show = (assignee: Assignee, buttonName = '') =>
  render(
    <MantineProvider>
      <CalendarLinkWarning assignee={assignee} buttonName={buttonName} />
    </MantineProvider>,
  );

describe('the landing page editor warns of a button with no calendar (issue 42 item 14)', () => {
  it('names the button and where it goes instead', () => {
    show(rep({ website: 'https://acme.example' }));
    const note = screen.getByRole('status');
    expect(note).toHaveTextContent('“Book a meeting” has no calendar to open');
    expect(note).toHaveTextContent('open https://acme.example instead of a booking page');
  });

  it("uses the page's own button name, and the brand's website when the rep has none", () => {
    show(rep(), 'Say hello');
    expect(screen.getByRole('status')).toHaveTextContent(/“Say hello” has no calendar.*your brand's website/);
  });

  it('says nothing when the rep has a calendar link', () => {
    show(rep({ calendar_url: 'https://cal.example/jane' }));
    expect(screen.queryByRole('status')).toBeNull();
  });
});
