import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FileImport } from '@rally/shared/schemas/fileforce';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderWithRouter } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { CsvImportStep } from './csv-steps.tsx';

const ACME = CLIENT_IDS.acme;
const IMPORT_ID = '0190a4d4-5a5e-7c3d-8e8e-1a2b3c4d5e6f';
const base = `/v1/integration/crm/fileforce/client/${ACME}/imports/${IMPORT_ID}`;

const done = (patch: Partial<FileImport> = {}): FileImport => ({
  id: IMPORT_ID,
  integration_id: 7,
  kind: 'targets',
  status: 'done',
  file_name: 'spring list.csv',
  byte_size: 120,
  columns: ['Email', 'Cadence'],
  mapping: { email: 'Email', cadence: 'Cadence' },
  total_rows: 5,
  processed_rows: 5,
  imported_rows: 4,
  error_rows: 1,
  suppressed_rows: 0,
  failure_reason: null,
  created_by: null,
  created_at: '2026-12-05T10:00:00Z',
  updated_at: '2026-12-05T10:01:00Z',
  finished_at: '2026-12-05T10:01:00Z',
  errors: [{ row: 3, field: 'email', reason: 'is not a valid e-mail address' }],
  ...patch,
});

afterEach(() => {
  resetAuth();
  vi.unstubAllGlobals();
});

async function show(imp: FileImport) {
  const server = fakeServer({
    ...acmeSession('purple_owner'),
    [`GET ${base}`]: { body: imp },
    [`GET ${base}/skipped.csv`]: { body: 'Row,Problem\r\n', headers: { 'content-type': 'text/csv' } },
  });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  renderWithRouter(<CsvImportStep clientId={ACME} importId={IMPORT_ID} onDone={() => undefined} />);
  return server;
}

describe('the import step after an import (issue 42 items 8 and 15)', () => {
  it('says "1 row had problems" in one word each, names the field in plain words, and downloads the skipped rows', async () => {
    const server = await show(done());
    expect(await screen.findByText('4 rows imported')).toBeInTheDocument();
    expect(screen.getByText('1 row had problems and was skipped; it is listed below.')).toBeInTheDocument();
    const table = screen.getByRole('table', { name: 'Rows skipped' });
    expect(within(table).getByText('E-mail address')).toBeInTheDocument();
    expect(within(table).queryByText('email')).not.toBeInTheDocument();

    const createObjectURL = vi.fn(() => 'blob:skipped');
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    await userEvent.click(screen.getByRole('button', { name: 'Download the skipped rows (CSV)' }));
    await vi.waitFor(() => expect(click).toHaveBeenCalled());
    expect(server.calls.some((c) => c.url === `${base}/skipped.csv`)).toBe(true);
    expect((click.mock.instances[0] as unknown as HTMLAnchorElement).download).toBe(
      'spring_list-skipped-rows.csv',
    );
    click.mockRestore();
  });

  it('offers no download when every row was imported', async () => {
    await show(done({ imported_rows: 1, error_rows: 0, errors: [] }));
    expect(await screen.findByText('1 row imported')).toBeInTheDocument();
    expect(screen.getByText('Every row was imported.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /skipped rows/ })).not.toBeInTheDocument();
  });
});
