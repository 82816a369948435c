import classes from './skip-link.module.css';

/** The first stop of the Tab key: straight to the screen, past the header's links (WCAG 2.4.1). */
export function SkipLink({ target = 'content' }: { target?: string }) {
  return (
    <a className={classes.skip} href={`#${target}`}>
      Skip to content
    </a>
  );
}
