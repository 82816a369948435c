// The ads are written as plain element objects (what JSX compiles to), since the server runs
// TypeScript without a JSX transform. Satori reads `type`, `props.style` and `props.children`.

export type Style = Record<string, string | number>;
export type Child = AdNode | string | null | undefined | false;
export type AdNode = { type: string; props: Record<string, unknown> & { style?: Style; children?: Child[] } };

/** A flex box (satori lays out every div as flex unless told otherwise). */
export function box(style: Style, ...children: Child[]): AdNode {
  // border-box, so a width given in a template includes the padding, as the layouts assume.
  return {
    type: 'div',
    props: {
      style: { display: 'flex', boxSizing: 'border-box', ...style },
      children: children.filter(Boolean),
    },
  };
}

/**
 * Text wrapped to at most `lines` lines, the last one ending in an ellipsis when it does not fit,
 * so a long headline never spills out of its box.
 */
export function paragraph(text: string, lines: number, style: Style): AdNode {
  return {
    type: 'div',
    props: {
      style: {
        display: 'block',
        lineClamp: lines,
        overflow: 'hidden',
        wordBreak: 'break-word',
        ...style,
      },
      children: [text],
    },
  };
}

/** One line of text, cut with an ellipsis at the box's width (names, titles, websites). */
export function line(text: string, style: Style): AdNode {
  return {
    type: 'div',
    props: {
      style: {
        display: 'block',
        whiteSpace: 'nowrap',
        overflow: 'hidden',
        textOverflow: 'ellipsis',
        ...style,
      },
      children: [text],
    },
  };
}

export function image(src: string, width: number, height: number, style: Style = {}): AdNode {
  return {
    type: 'img',
    props: { src, width, height, style: { width, height, objectFit: 'cover', ...style } },
  };
}

/** A right arrow drawn as a path (the arrow glyph is not in Inter's latin subset). */
export function arrow(size: number, color: string): AdNode {
  return {
    type: 'svg',
    props: {
      width: size,
      height: size,
      viewBox: '0 0 24 24',
      style: { width: size, height: size },
      children: [
        {
          type: 'path',
          props: {
            d: 'M4 12h15M13 5.5l6.5 6.5-6.5 6.5',
            fill: 'none',
            stroke: color,
            strokeWidth: 2.6,
            strokeLinecap: 'round',
            strokeLinejoin: 'round',
          },
        },
      ],
    },
  };
}

/** A bold opening quotation mark drawn as a path (the glyph looks thin and slanted at display sizes). */
export function quoteMark(size: number, color: string): AdNode {
  return {
    type: 'svg',
    props: {
      width: size,
      height: size * 0.75,
      viewBox: '0 0 32 24',
      style: { width: size, height: size * 0.75, flexShrink: 0 },
      children: [
        {
          type: 'path',
          props: {
            d: 'M0 24V14.4C0 6.2 4.4 1.4 12.6 0l1.4 3.4C9.5 4.7 7.4 7.3 7.1 11H13v13H0zm18 0V14.4C18 6.2 22.4 1.4 30.6 0L32 3.4c-4.5 1.3-6.6 3.9-6.9 7.6H31v13H18z',
            fill: color,
          },
        },
      ],
    },
  };
}
