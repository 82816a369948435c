/** The product's name lives here only (ARCHITECTURE.md: keep the working name in one constant). */
export const PRODUCT_NAME = 'Rally';

/** SPEC.md §2: the page title template is '{product} - {page}'. */
export function pageTitle(page: string): string {
  return `${PRODUCT_NAME} - ${page}`;
}

/** Session cookie; its name ends with `auth_token` (SPEC.md §4, ARCHITECTURE.md §4). */
export const SESSION_COOKIE = 'rally_auth_token';

/** Written by each web build; the app polls it to detect a new deployment (SPEC.md §4). */
export const LATEST_BUILD_FILE = 'latest-build';
