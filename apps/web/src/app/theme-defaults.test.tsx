import { Button, MantineProvider, Menu, Tooltip } from '@mantine/core';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MENU_HIDE_DELAY_MS, TOOLTIP_DISTANCE_PX, TOOLTIP_SHOW_DELAY_MS } from '../config/widgets.ts';
import { theme } from './providers.tsx';

afterEach(() => vi.useRealTimers());

describe('menus and tooltips follow SPEC.md §9 by default (the theme), not per use', () => {
  it('has the constants in the theme', () => {
    expect(TOOLTIP_SHOW_DELAY_MS).toBe(200);
    expect(TOOLTIP_DISTANCE_PX).toBe(5);
    expect(MENU_HIDE_DELAY_MS).toBe(400);
    expect(theme.components?.Tooltip?.defaultProps).toMatchObject({ openDelay: 200, offset: 5 });
    expect(theme.components?.Menu?.defaultProps).toMatchObject({ closeDelay: 400 });
  });

  it('a tooltip shows 200 ms after the pointer arrives', () => {
    vi.useFakeTimers();
    render(
      <MantineProvider theme={theme}>
        <Tooltip label="Full number" transitionProps={{ duration: 0 }}>
          <Button>12K</Button>
        </Tooltip>
      </MantineProvider>,
    );
    fireEvent.mouseEnter(screen.getByRole('button', { name: '12K' }));
    act(() => vi.advanceTimersByTime(TOOLTIP_SHOW_DELAY_MS - 10));
    expect(screen.queryByText('Full number')).toBeNull();
    act(() => vi.advanceTimersByTime(20));
    expect(screen.getByText('Full number')).toBeInTheDocument();
  });

  it('a hover menu stays 400 ms after the pointer leaves', () => {
    vi.useFakeTimers();
    render(
      <MantineProvider theme={theme}>
        <Menu trigger="hover" transitionProps={{ duration: 0 }}>
          <Menu.Target>
            <Button>Account</Button>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item>Log out</Menu.Item>
          </Menu.Dropdown>
        </Menu>
      </MantineProvider>,
    );
    const target = screen.getByRole('button', { name: 'Account' });
    fireEvent.mouseEnter(target);
    act(() => vi.advanceTimersByTime(50));
    expect(screen.getByText('Log out')).toBeInTheDocument();
    fireEvent.mouseLeave(target);
    act(() => vi.advanceTimersByTime(MENU_HIDE_DELAY_MS - 10));
    expect(screen.getByText('Log out')).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(20));
    expect(screen.queryByText('Log out')).toBeNull();
  });
});
