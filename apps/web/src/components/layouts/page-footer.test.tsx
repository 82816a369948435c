import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithRouter } from '../../testing/render.tsx';
import { PageFooter } from './page-footer.tsx';

describe('PageFooter', () => {
  it('"shows the current year, a copyright line and links to cookies, privacy and terms of use"', async () => {
    renderWithRouter(<PageFooter />);
    expect(await screen.findByText(new RegExp(`© ${new Date().getFullYear()} Rally`))).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Cookies' })).toHaveAttribute('href', '/legal/cookies');
    expect(screen.getByRole('link', { name: 'Privacy' })).toHaveAttribute('href', '/legal/privacy');
    expect(screen.getByRole('link', { name: 'Terms of use' })).toHaveAttribute('href', '/legal/terms');
  });
});
