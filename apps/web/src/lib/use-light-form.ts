import { useState } from 'react';
import type { ChangeEvent, FormEvent } from 'react';

type Validators<T> = { [K in keyof T]?: (value: string) => string | null };

/**
 * A small form state for the sign-in screen, which is the first download of the app: @mantine/form
 * costs about 6 KB gzip there (issue 19: /login JS ≤ 150 KB). Every other form uses @mantine/form.
 * Values are strings; each validator returns the field's message or null. A field's error clears
 * when it is edited, and the props fit Mantine inputs (`error` ties the message to the input).
 */
export function useLightForm<T extends Record<string, string>>(initial: T, validate: Validators<T>) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<Partial<Record<keyof T, string>>>({});

  const field = (name: keyof T) => ({
    value: values[name],
    error: errors[name],
    onChange: (e: ChangeEvent<HTMLInputElement>) => {
      const value = e.currentTarget.value;
      setValues((v) => ({ ...v, [name]: value }));
      setErrors((er) => ({ ...er, [name]: undefined }));
    },
  });

  const onSubmit = (handler: (values: T) => void) => (e: FormEvent) => {
    e.preventDefault();
    const found: Partial<Record<keyof T, string>> = {};
    for (const name of Object.keys(validate) as (keyof T)[]) {
      const message = validate[name]?.(values[name] ?? '');
      if (message) found[name] = message;
    }
    setErrors(found);
    if (Object.keys(found).length === 0) handler(values);
  };

  return { values, errors, field, onSubmit };
}

/**
 * A call and its pending and error state, for the same screen and reason as useLightForm (the query
 * library's useMutation chunk is another 1 KB of /login's first download). `onSuccess` runs before
 * the pending state ends, so a follow-up (loading the session) keeps the button busy.
 */
export function useLightAction<A, R>(fn: (arg: A) => Promise<R>, onSuccess?: (result: R, arg: A) => unknown) {
  const [state, setState] = useState<{ isPending: boolean; error: unknown }>({
    isPending: false,
    error: null,
  });
  const mutate = (arg: A) => {
    setState({ isPending: true, error: null });
    fn(arg)
      .then(async (result) => {
        await onSuccess?.(result, arg);
        setState({ isPending: false, error: null });
      })
      .catch((error: unknown) => setState({ isPending: false, error }));
  };
  return { mutate, ...state };
}
