import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Button, MantineProvider } from '@mantine/core';
import type { ReactElement } from 'react';
import { DataTable } from './data-table.tsx';
import type { DataColumn } from './columns.ts';
import { tableCsv } from './download-csv.ts';

type Deal = { id: string; name: string; company: string; stage: string; amount: number };
const DEALS: Deal[] = [
  { id: 'a', name: 'Alpha', company: 'Brightline', stage: 'Proposal', amount: 500 },
  { id: 'b', name: '=HYPERLINK("http://evil","x")', company: 'Northwind', stage: 'Won', amount: 70 },
  { id: 'c', name: 'Gamma', company: 'Harbor', stage: 'Qualification', amount: 9000 },
];
const COLUMNS: DataColumn<Deal>[] = [
  { id: 'name', label: 'Name', key: true, csv: (d) => d.name, render: (d) => d.name },
  { id: 'company', label: 'Company', csv: (d) => d.company, render: (d) => d.company },
  { id: 'stage', label: 'Stage', key: true, csv: (d) => d.stage, render: (d) => d.stage },
  {
    id: 'amount',
    label: 'Amount',
    key: true,
    align: 'right',
    csv: (d) => d.amount,
    render: (d) => `$${d.amount}`,
  },
];

// Mantine alone: the app's providers load the toast host after the first screen, which mounts the
// tree again and closes an open popover under the test's hands.
const renderWithRouter = (ui: ReactElement) => render(<MantineProvider>{ui}</MantineProvider>);

const names = () =>
  within(screen.getByRole('table', { name: 'Deals' }))
    .getAllByRole('row')
    .slice(1)
    .map((r) => within(r).getAllByRole('cell').at(1)?.textContent);
const headers = () =>
  within(screen.getByRole('table', { name: 'Deals' }))
    .getAllByRole('columnheader')
    .map((h) => h.textContent);

/** The CSV handed to the browser by the last export. */
let saved: Blob[] = [];
beforeEach(() => {
  window.localStorage.clear();
  saved = [];
  vi.stubGlobal(
    'URL',
    Object.assign(URL, {
      createObjectURL: vi.fn((b: Blob) => {
        saved.push(b);
        return 'blob:csv';
      }),
      revokeObjectURL: vi.fn(),
    }),
  );
});
afterEach(() => vi.unstubAllGlobals());

const table = (props: Partial<Parameters<typeof DataTable<Deal>>[0]> = {}) => (
  <DataTable
    tableId="deals"
    label="Deals"
    rows={DEALS}
    rowId={(d) => d.id}
    rowName={(d) => d.name}
    columns={COLUMNS}
    selectable
    exportName="deals.csv"
    {...props}
  />
);

describe('DataTable (issue 42 item 11)', () => {
  it('sorts by any column in the browser, numbers first largest, and says so in aria-sort', async () => {
    renderWithRouter(table());
    expect(names()).toEqual(['Alpha', '=HYPERLINK("http://evil","x")', 'Gamma']);
    await userEvent.click(screen.getByRole('button', { name: 'Sort by amount' }));
    expect(names()).toEqual(['Gamma', 'Alpha', '=HYPERLINK("http://evil","x")']);
    expect(screen.getByRole('columnheader', { name: /Amount/ })).toHaveAttribute('aria-sort', 'descending');
    await userEvent.click(screen.getByRole('button', { name: 'Sort by amount' }));
    expect(names()).toEqual(['=HYPERLINK("http://evil","x")', 'Alpha', 'Gamma']);
    await userEvent.click(screen.getByRole('button', { name: 'Sort by company' }));
    expect(names()).toEqual(['Alpha', 'Gamma', '=HYPERLINK("http://evil","x")']);
  });

  it('a server-sorted table asks for the column and shows the order it is given', async () => {
    const onSort = vi.fn();
    renderWithRouter(table({ sort: { by: 'stage', order: 'asc' }, onSort }));
    expect(screen.getByRole('columnheader', { name: /Stage/ })).toHaveAttribute('aria-sort', 'ascending');
    await userEvent.click(screen.getByRole('button', { name: 'Sort by name' }));
    expect(onSort).toHaveBeenCalledWith('name');
    expect(names()).toEqual(['Alpha', '=HYPERLINK("http://evil","x")', 'Gamma']);
  });

  it('picked rows get the bulk actions and export alone, formula-safe', async () => {
    const act = vi.fn();
    renderWithRouter(
      table({
        bulkActions: (rows) => (
          <Button size="xs" onClick={() => act(rows.map((r) => r.id))}>
            Archive
          </Button>
        ),
      }),
    );
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select Alpha' }));
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select =HYPERLINK("http://evil","x")' }));
    const bar = screen.getByRole('group', { name: 'Selected rows' });
    expect(bar).toHaveTextContent('2 selected');
    await userEvent.click(within(bar).getByRole('button', { name: 'Archive' }));
    expect(act).toHaveBeenCalledWith(['a', 'b']);
    await userEvent.click(screen.getByRole('button', { name: 'Export 2 selected' }));
    expect(saved).toHaveLength(1);
    expect(tableCsv(COLUMNS, DEALS.slice(0, 2))).toBe(
      'Name,Company,Stage,Amount\r\nAlpha,Brightline,Proposal,500\r\n' +
        '"\'=HYPERLINK(""http://evil"",""x"")",Northwind,Won,70\r\n',
    );
    // Every row shown, picked at once, and let go.
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select every row shown' }));
    expect(bar).toHaveTextContent('3 selected');
    await userEvent.click(screen.getByRole('button', { name: 'Clear selection' }));
    expect(screen.queryByRole('group', { name: 'Selected rows' })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Export shown (CSV)' }));
    expect(saved).toHaveLength(2);
  });

  it('the column chooser hides a column, keeps the key ones, and remembers the choice', async () => {
    const first = renderWithRouter(table());
    await userEvent.click(screen.getByRole('button', { name: 'Columns' }));
    expect(await screen.findByRole('checkbox', { name: /Stage/ })).toBeDisabled();
    await userEvent.click(screen.getByRole('checkbox', { name: 'Company' }));
    expect(headers()).toEqual(['', 'Name', 'Stage', 'Amount']);
    first.unmount();
    renderWithRouter(table());
    expect(headers()).toEqual(['', 'Name', 'Stage', 'Amount']);
    expect(window.localStorage.getItem('rally.table.anon.none.deals.columns.desktop')).toBe(
      '["name","stage","amount"]',
    );
  });

  it('saves the current view under a name and opens it again', async () => {
    const apply = vi.fn();
    renderWithRouter(table({ views: { state: 'filter=won&sort=amount', apply } }));
    await userEvent.click(screen.getByRole('button', { name: 'Views' }));
    await userEvent.type(await screen.findByLabelText('Save what is shown as'), 'Big wins');
    await userEvent.click(screen.getByRole('button', { name: 'Save view' }));
    expect(screen.getByRole('button', { name: 'View: Big wins' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Big wins' }));
    expect(apply).toHaveBeenCalledWith('filter=won&sort=amount');
  });

  it('on a phone it opens on the key columns (name, stage, amount)', () => {
    const real = window.matchMedia;
    window.matchMedia = ((query: string) => ({
      ...real(query),
      matches: query.includes('max-width: 48em'),
    })) as typeof window.matchMedia;
    try {
      renderWithRouter(table({ selectable: false }));
      expect(headers()).toEqual(['Name', 'Stage', 'Amount']);
    } finally {
      window.matchMedia = real;
    }
  });
});
