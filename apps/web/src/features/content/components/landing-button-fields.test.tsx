import { screen } from '@testing-library/react';
import { useForm } from '@mantine/form';
import { describe, expect, it } from 'vitest';
import { renderWithRouter } from '../../../testing/render.tsx';
import { LandingButtonFields } from './landing-button-fields.tsx';

function Harness({ field, type }: { field: string; type: string }) {
  const form = useForm({
    initialValues: {
      landing_button_name: 'Book a meeting',
      landing_trigger_field: field,
      landing_trigger_type: type,
    },
  });
  return <LandingButtonFields inputProps={(k) => form.getInputProps(k)} disabled={false} />;
}

describe("a landing page's button in plain words (issue 42 item 8)", () => {
  it('names where the button links to and how it shows, never calendar_url or button', () => {
    renderWithRouter(<Harness field="calendar_url" type="button" />);
    expect(screen.getByRole('combobox', { name: 'Button links to' })).toHaveValue(
      "The sales rep's calendar link",
    );
    expect(screen.getByRole('combobox', { name: 'Shows as' })).toHaveValue('A button');
    expect(screen.queryByText('Trigger field')).not.toBeInTheDocument();
  });

  it('keeps a value stored earlier that is not one of the choices, as written', () => {
    renderWithRouter(<Harness field="booking_url" type="link" />);
    expect(screen.getByRole('combobox', { name: 'Button links to' })).toHaveValue('booking_url');
    expect(screen.getByRole('combobox', { name: 'Shows as' })).toHaveValue('A text link');
  });
});
