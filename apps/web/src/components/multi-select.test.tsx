import { MantineProvider } from '@mantine/core';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { MULTISELECT } from '../config/widgets.ts';
import { MultiSelect } from './multi-select.tsx';

const options = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ value: `v${i}`, label: `Rep ${i + 1}` }));

function open(data: { value: string; label: string }[], value: string[] = []) {
  render(
    <MantineProvider>
      <MultiSelect label="Sales reps" data={data} value={value} onChange={() => {}} />
    </MantineProvider>,
  );
  const input = screen.getByRole('combobox', { name: 'Sales reps' });
  fireEvent.click(input);
  return input;
}

describe('the multiselect (SPEC.md §9)', () => {
  it('has the specified constants in one place', () => {
    expect(MULTISELECT).toEqual({
      optionsLimit: 1000,
      maxHeightPx: 300,
      optionHeightPx: 40,
      placeholder: 'Select option',
      emptyText: 'List is empty.',
      noMatchText: 'No elements found. Consider changing the search query.',
    });
  });

  // A thousand options take seconds to render on jsdom, longer on a loaded machine.
  it(
    'renders at most 1000 options: the 1,001st is not there until the search finds it',
    { timeout: 90_000 },
    async () => {
      const input = open(options(1001));
      // Role queries over a thousand options are slow on jsdom; the DOM is counted directly.
      const listed = () => document.querySelectorAll('[role="option"]');
      await waitFor(() => expect(listed().length).toBeGreaterThan(0));
      expect(listed()).toHaveLength(1000);
      expect(screen.getByText('Rep 1000')).toBeInTheDocument();
      expect(screen.queryByText('Rep 1001')).toBeNull();
      fireEvent.change(input, { target: { value: 'Rep 1001' } });
      await waitFor(() => expect(listed()).toHaveLength(1));
      expect(screen.getByText('Rep 1001')).toBeInTheDocument();
    },
  );

  it('options are 40 px high in a list at most 300 px high', async () => {
    open(options(20));
    const [first] = await screen.findAllByRole('option');
    expect(first).toHaveStyle({ minHeight: '40px' });
    const scroller = first?.closest('[style*="max-height"]');
    expect(scroller?.getAttribute('style')).toMatch(/max-height:\s*(calc\(18\.75rem|300px)/);
  });

  it("says 'Select option' while nothing is chosen", () => {
    open(options(3));
    expect(screen.getByRole('combobox', { name: 'Sales reps' })).toHaveAttribute(
      'placeholder',
      'Select option',
    );
  });

  it("no longer says 'Select option' once something is chosen", () => {
    open(options(3), ['v1']);
    expect(screen.getByRole('combobox', { name: 'Sales reps' })).not.toHaveAttribute('placeholder');
  });

  it("says 'List is empty.' with nothing to choose", async () => {
    open([]);
    expect(await screen.findByText('List is empty.')).toBeInTheDocument();
  });

  it('says what to do when the search finds nothing', async () => {
    const input = open(options(3));
    fireEvent.change(input, { target: { value: 'nobody' } });
    expect(
      await screen.findByText('No elements found. Consider changing the search query.'),
    ).toBeInTheDocument();
  });
});
