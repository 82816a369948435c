/**
 * SPEC.md §5: "Sales rep email must be a valid e-mail address." One test for every source of an
 * address (CSV rows, sequence-platform users, CRM owners): a local part, an @ and a domain of dotted
 * labels ending in a letter, 254 characters at most.
 */
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z][A-Za-z0-9-]*[A-Za-z0-9]$/;

export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}
