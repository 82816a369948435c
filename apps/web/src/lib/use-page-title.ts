import { useEffect } from 'react';
import { pageTitle } from '@rally/shared';

/** Sets the document title with the template 'Rally - {page}' (SPEC.md §2). */
export function usePageTitle(page: string): void {
  useEffect(() => {
    document.title = pageTitle(page);
  }, [page]);
}
