import { render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Icon } from './icon.tsx';

afterEach(() => vi.restoreAllMocks());

describe('Icon', () => {
  it('renders a known icon', () => {
    const { container } = render(<Icon name="settings" />);
    expect(container.querySelector('svg')).not.toBeNull();
  });

  it('logs "Icon doesn\'t exist" for a missing name and renders nothing (SPEC.md §8)', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { container } = render(<Icon name="no-such-icon" />);
    expect(container).toBeEmptyDOMElement();
    expect(warn).toHaveBeenCalledWith("Icon doesn't exist", 'no-such-icon');
  });
});
