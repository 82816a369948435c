import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithRouter } from '../../../testing/render.tsx';
import { ApiUsageLine } from './api-usage-line.tsx';

/** Issue 40 item 7: Salesforce's calls used today against the org's allocation, and Rally's stop line. */
describe('ApiUsageLine', () => {
  it("Salesforce: the org's calls of the last 24 hours, the share, and where Rally stops", () => {
    renderWithRouter(
      <ApiUsageLine
        usage={{ used: 1234, max: 15_000, at: '2026-12-05T10:00:00.000Z' }}
        label="Salesforce"
        source="salesforce"
      />,
    );
    expect(screen.getByTestId('api-usage')).toHaveTextContent(
      "Salesforce API calls in the last 24 hours: 1,234 of 15,000 (8 %) — Rally stops at 85 % to leave the rest to the org's other integrations.",
    );
  });
});
