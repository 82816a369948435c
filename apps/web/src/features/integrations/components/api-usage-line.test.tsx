import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithRouter } from '../../../testing/render.tsx';
import { ApiUsageLine } from './api-usage-line.tsx';

/** Issue 40 items 7 and 1: Salesforce's org calls against its allocation; Marketo's calls Rally made today. */
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

  it("Marketo: Rally's calls since midnight US Central; a figure from an earlier Central day is none today", () => {
    const now = Date.parse('2026-12-05T18:00:00.000Z'); // noon in Chicago
    const { unmount } = renderWithRouter(
      <ApiUsageLine
        usage={{ used: 45_000, max: 50_000, at: '2026-12-05T06:30:00.000Z' }}
        label="Marketo"
        source="marketo"
        now={now}
      />,
    );
    expect(screen.getByTestId('api-usage')).toHaveTextContent(
      "Marketo API calls Rally made today (since midnight US Central): 45,000 of 50,000 (90 %) — Adobe's default daily quota, shared with the subscription's other integrations.",
    );
    unmount();
    // 05:30 UTC on 5 December is 23:30 on the 4th in Chicago: the day before.
    renderWithRouter(
      <ApiUsageLine
        usage={{ used: 45_000, max: 50_000, at: '2026-12-05T05:30:00.000Z' }}
        label="Marketo"
        source="marketo"
        now={now}
      />,
    );
    expect(screen.getByTestId('api-usage')).toHaveTextContent(/: 0 of 50,000 \(0 %\)/);
  });
});
