import type { z } from 'zod';

/** 'is not a valid hex color' → 'This is not a valid hex color' (as the form shows a server 422). */
export function sentence(message: string): string {
  return /^(is|must|has) /.test(message)
    ? `This ${message}`
    : message.charAt(0).toUpperCase() + message.slice(1);
}

/**
 * Form errors from a shared request schema, keyed by the dotted path of the field (the forms
 * mirror the request body), so the browser says exactly what the server would.
 */
export function schemaErrors(schema: z.ZodType, value: unknown): Record<string, string> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return {};
  const errors: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const path = issue.path.map(String).join('.');
    errors[path] ??= sentence(issue.message);
  }
  return errors;
}
