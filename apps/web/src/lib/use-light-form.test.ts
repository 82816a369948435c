import { act, renderHook, waitFor } from '@testing-library/react';
import type { ChangeEvent, FormEvent } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { useLightAction, useLightForm } from './use-light-form.ts';

const submitEvent = () => ({ preventDefault: vi.fn() }) as unknown as FormEvent;
const changeEvent = (value: string) => ({ currentTarget: { value } }) as ChangeEvent<HTMLInputElement>;

describe('useLightForm', () => {
  const validate = { email: (v: string) => (v.includes('@') ? null : 'Enter a valid e-mail address') };

  it('refuses to submit while a field is invalid and names the field', () => {
    const handler = vi.fn();
    const { result } = renderHook(() => useLightForm({ email: '' }, validate));
    act(() => result.current.onSubmit(handler)(submitEvent()));
    expect(handler).not.toHaveBeenCalled();
    expect(result.current.field('email').error).toBe('Enter a valid e-mail address');
  });

  it('clears the error on edit and submits the values once valid', () => {
    const handler = vi.fn();
    const { result } = renderHook(() => useLightForm({ email: '' }, validate));
    act(() => result.current.onSubmit(handler)(submitEvent()));
    act(() => result.current.field('email').onChange(changeEvent('a@b.co')));
    expect(result.current.field('email').error).toBeUndefined();
    act(() => result.current.onSubmit(handler)(submitEvent()));
    expect(handler).toHaveBeenCalledWith({ email: 'a@b.co' });
  });
});

describe('useLightAction', () => {
  it('is pending during the call and its success handler, then idle', async () => {
    let release!: () => void;
    const onSuccess = vi.fn(() => new Promise<void>((r) => (release = r)));
    const { result } = renderHook(() => useLightAction(async (n: number) => n * 2, onSuccess));
    act(() => result.current.mutate(21));
    expect(result.current.isPending).toBe(true);
    await waitFor(() => expect(onSuccess).toHaveBeenCalledWith(42, 21));
    expect(result.current.isPending).toBe(true);
    await act(async () => release());
    await waitFor(() => expect(result.current.isPending).toBe(false));
    expect(result.current.error).toBeNull();
  });

  it('keeps the error of a failed call', async () => {
    const failure = new Error('Invalid email or password');
    const { result } = renderHook(() => useLightAction(() => Promise.reject(failure)));
    act(() => result.current.mutate(undefined));
    await waitFor(() => expect(result.current.error).toBe(failure));
    expect(result.current.isPending).toBe(false);
  });
});
