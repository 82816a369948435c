// SPEC.md §5: "Content text fields are escaped (HTML entities) when sent and unescaped when read.
// A tag with a data-id attribute in content text is replaced by a mapped value, or empty if unmapped."

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

// A Map, so names such as "constructor" are not read from a prototype.
const NAMED_ENTITIES = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
]);

/** Escapes the five HTML-significant characters: & < > " and ' (as &#39;). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

/**
 * Reverses `escapeHtml` in one pass (so '&amp;lt;' reads '&lt;', not '<'). Also reads &apos; and
 * numeric entities such as &#39; or &#x27;; other named entities and invalid code points stay as written.
 */
export function unescapeHtml(text: string): string {
  return text.replace(
    /&(?:#(\d+)|#[xX]([0-9a-fA-F]+)|([a-zA-Z]+));/g,
    (entity: string, dec?: string, hex?: string, name?: string) => {
      if (name !== undefined) return NAMED_ENTITIES.get(name) ?? entity;
      const codePoint = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex ?? '', 16);
      return codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : entity;
    },
  );
}

// One attribute: a name, then optionally = and a double-quoted, single-quoted or bare value.
const ATTRIBUTE = String.raw`\s+[^\s"'<>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>\x60]+))?`;
// The same, capturing the name and the value (in whichever of the three quoting styles).
const ATTRIBUTE_PARTS = String.raw`\s+([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>\x60]+)))?`;
// Any opening tag; groups: tag name, its attributes, a self-closing slash. Tags are matched one by
// one (not whole elements), so a data-id element nested in another element is still found.
const OPEN_TAG = new RegExp(String.raw`<([a-zA-Z][a-zA-Z0-9-]*)((?:${ATTRIBUTE})*)\s*(/?)>`, 'g');
// Elements that never have content or a closing tag.
const VOID_ELEMENTS = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
]);

/** The first `attribute`'s value (HTML keeps the first of duplicates): '' if bare, null if absent. */
function attributeValue(attributes: string, attribute: string): string | null {
  for (const [, name = '', double, single, bare] of attributes.matchAll(new RegExp(ATTRIBUTE_PARTS, 'g'))) {
    if (name.toLowerCase() === attribute) return unescapeHtml(double ?? single ?? bare ?? '');
  }
  return null;
}

const dataId = (attributes: string) => attributeValue(attributes, 'data-id');

/** A personalisation tag as written: its data-id and its data-fallback (null when it has none). */
export type DataTag = { id: string; fallback: string | null };

/** What replaces a tag: a plain value (escaped on insertion), or null to empty the tag. */
export type DataTagResolver = (tag: DataTag) => string | null;

/**
 * Replaces each element carrying a data-id attribute, such as
 * `<span class="tag" data-id="first_name">First name</span>`, by the escaped mapped value, or by ''
 * when the id is not in `map`. The whole element goes, contents included; nested elements of the
 * same name are matched to the right closing tag. A void, self-closed or unclosed element loses
 * just its opening tag.
 */
export function replaceDataIdTags(
  text: string,
  map: Readonly<Record<string, string>> | DataTagResolver,
): string {
  // hasOwn, so ids such as "constructor" are not read from the prototype
  const resolve: DataTagResolver =
    typeof map === 'function' ? map : ({ id }) => (Object.hasOwn(map, id) ? (map[id] ?? '') : null);
  const elementsByTag = new Map<string, Map<number, number>>();
  let result = '';
  let position = 0;
  OPEN_TAG.lastIndex = 0;
  for (let open = OPEN_TAG.exec(text); open !== null; open = OPEN_TAG.exec(text)) {
    const [openTag, tagName = '', attributes = '', selfClosing] = open;
    const id = dataId(attributes);
    if (id === null) continue;
    const name = tagName.toLowerCase();
    let end = open.index + openTag.length;
    if (selfClosing !== '/' && !VOID_ELEMENTS.has(name)) {
      let elements = elementsByTag.get(name);
      if (elements === undefined) {
        elements = elementEnds(text, name);
        elementsByTag.set(name, elements);
      }
      end = elements.get(open.index) ?? end;
    }
    const value = resolve({ id, fallback: attributeValue(attributes, 'data-fallback') });
    result += text.slice(position, open.index) + (value === null ? '' : escapeHtml(value));
    position = end;
    OPEN_TAG.lastIndex = end;
  }
  return result + text.slice(position);
}

/**
 * For every closed `tagName` element, its opening tag's index → the index just past its closing tag,
 * pairing tags like brackets. One pass per tag name keeps many unclosed tags from costing n².
 */
function elementEnds(text: string, tagName: string): Map<number, number> {
  const tags = new RegExp(String.raw`<(/?)${tagName}(?:${ATTRIBUTE})*\s*(/?)>`, 'gi');
  const ends = new Map<number, number>();
  const openings: number[] = [];
  for (const tag of text.matchAll(tags)) {
    if (tag[1] !== '/') {
      if (tag[2] !== '/') openings.push(tag.index);
      continue;
    }
    const opening = openings.pop();
    if (opening !== undefined) ends.set(opening, tag.index + tag[0].length);
  }
  return ends;
}

/**
 * The data-id of every tag carrying one, in order of appearance (duplicates kept), so an editor can
 * list the personalisation tags a text uses; nested tags are listed too.
 */
export function findDataIds(text: string): string[] {
  return findDataTags(text).map((t) => t.id);
}

/** Every data-id tag with its data-fallback, in order of appearance (nested tags too). */
export function findDataTags(text: string): DataTag[] {
  const tags: DataTag[] = [];
  for (const [, , attributes = ''] of text.matchAll(new RegExp(OPEN_TAG.source, 'g'))) {
    const id = dataId(attributes);
    if (id !== null) tags.push({ id, fallback: attributeValue(attributes, 'data-fallback') });
  }
  return tags;
}
