import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AbbreviatedNumber } from './abbreviated-number.tsx';

const show = (ui: React.ReactElement) => render(<MantineProvider>{ui}</MantineProvider>);

describe('AbbreviatedNumber (SPEC.md §9: K, MM, B, T, P, E)', () => {
  it('shows the abbreviation, with the full number as its title and for screen readers', () => {
    show(<AbbreviatedNumber value={12_400} />);
    const shown = screen.getByText('12.4K');
    expect(shown).toHaveAttribute('aria-hidden', 'true');
    expect(shown.parentElement).toHaveAttribute('title', '12,400');
    expect(screen.getByText('12,400')).toBeInTheDocument();
  });

  it('covers every suffix and a currency prefix', () => {
    show(
      <>
        <AbbreviatedNumber value={2_000_000} />
        <AbbreviatedNumber value={3_400_000_000} />
        <AbbreviatedNumber value={5e12} />
        <AbbreviatedNumber value={6.7e15} />
        <AbbreviatedNumber value={8e18} />
        <AbbreviatedNumber value={1_234_567} prefix="$" full="$1,234,567.00" />
      </>,
    );
    for (const s of ['2MM', '3.4B', '5T', '6.7P', '8E', '$1.2MM'])
      expect(screen.getByText(s)).toBeInTheDocument();
    expect(screen.getByText('$1.2MM').parentElement).toHaveAttribute('title', '$1,234,567.00');
  });

  it('leaves a number under 1,000 as it is, once', () => {
    show(
      <div data-testid="n">
        <AbbreviatedNumber value={999} />
      </div>,
    );
    expect(screen.getByTestId('n').innerHTML).toBe('999');
  });
});
