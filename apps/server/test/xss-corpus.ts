import { unescapeHtml } from '@rally/shared';

// A stored-XSS corpus for the rich-text fields (script tags, event handlers, javascript: URLs, SVG
// payloads, CSS expressions, parser tricks), and a check that sanitised HTML holds nothing that runs.
// Shared by the sanitiser's unit test and the API tests of every HTML field.

export const XSS_CORPUS: readonly string[] = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=https://evil.example/x.js></SCRIPT>',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  '<<script>script>alert(1)<</script>/script>',
  '<img src=x onerror=alert(1)>',
  '<img src="https://ok.example/a.png" onerror="alert(1)" onload=alert(1)>',
  '<body onload=alert(1)>',
  '<p onclick="alert(1)" onmouseover=alert(1)>click</p>',
  '<div/onmouseover="alert(1)">x</div>',
  '<a href="javascript:alert(1)">x</a>',
  '<a href="JaVaScRiPt:alert(1)">x</a>',
  '<a href="jav&#x09;ascript:alert(1)">x</a>',
  '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>',
  '<a href=" javascript:alert(1)">x</a>',
  '<a href="vbscript:msgbox(1)">x</a>',
  '<a href="data:text/html,<script>alert(1)</script>">x</a>',
  '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">',
  '<svg onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<svg><a xlink:href="javascript:alert(1)"><text x="20" y="20">x</text></a></svg>',
  '<svg><animate onbegin=alert(1) attributeName=x dur=1s>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<object data="javascript:alert(1)"></object>',
  '<embed src="javascript:alert(1)">',
  '<form action="javascript:alert(1)"><button>x</button></form>',
  '<input autofocus onfocus=alert(1)>',
  '<details open ontoggle=alert(1)>',
  '<video><source onerror=alert(1)></video>',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<base href="javascript:alert(1)//">',
  '<link rel=stylesheet href="javascript:alert(1)">',
  '<style>body{background:url("javascript:alert(1)")}</style>',
  '<p style="width: expression(alert(1))">x</p>',
  '<p style="color: expression(alert(1))">x</p>',
  '<p style="background-image: url(javascript:alert(1))">x</p>',
  '<p style="behavior: url(x.htc); -moz-binding: url(x.xml#xss)">x</p>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
  '<template><script>alert(1)</script></template>',
  '<!--<img src=x onerror=alert(1)>-->',
  '<![CDATA[<script>alert(1)</script>]]>',
  '<span data-id="first_name" onmouseover="alert(1)">First name</span>',
];

const SAFE_TAGS = new Set([
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'blockquote', 'ul', 'ol', 'li', 'strong', 'b',
  'em', 'i', 'u', 's', 'strike', 'sub', 'sup', 'mark', 'code', 'pre', 'a', 'img', 'span', 'div',
  'figure', 'figcaption', 'table', 'thead', 'tbody', 'tr', 'th', 'td',
]); // prettier-ignore

/**
 * What in `html` could run script: a tag outside the allow-list, an event-handler attribute, a URL
 * with a scheme other than http(s)/mailto, or a style with url()/expression(). Empty when harmless.
 * Sanitised output is normalised (quoted attributes, escaped text), so a tokenising regex suffices.
 */
export function executableParts(html: string): string[] {
  const found: string[] = [];
  for (const m of html.matchAll(/<\/?([a-zA-Z][\w:-]*)([^>]*)>/g)) {
    const [tag, name = '', attrs = ''] = m;
    if (!SAFE_TAGS.has(name.toLowerCase())) found.push(`tag ${tag}`);
    for (const a of attrs.matchAll(/([^\s=/"']+)\s*(?:=\s*"([^"]*)")?/g)) {
      const attr = (a[1] ?? '').toLowerCase();
      const value = unescapeHtml(a[2] ?? '')
        // Browsers ignore whitespace and control characters inside a scheme.
        // eslint-disable-next-line no-control-regex
        .replace(/[\s\u0000-\u001f]/g, '')
        .toLowerCase();
      if (attr.startsWith('on')) found.push(`handler ${attr} in ${tag}`);
      if (['href', 'src', 'action', 'formaction', 'xlink:href', 'srcdoc'].includes(attr)) {
        const scheme = /^([a-z][a-z0-9+.-]*):/.exec(value)?.[1];
        if (attr === 'srcdoc' || (scheme && !['http', 'https', 'mailto'].includes(scheme))) {
          found.push(`url ${attr}=${value} in ${tag}`);
        }
      }
      if (attr === 'style' && /url\(|expression\(|behavior|binding|javascript:/.test(value)) {
        found.push(`style ${value} in ${tag}`);
      }
    }
  }
  // Text must not hold a raw "<" starting a tag the regex above could miss.
  if (/<[a-z!?/]/i.test(html.replace(/<\/?[a-zA-Z][\w:-]*[^>]*>/g, ''))) found.push('unparsed markup');
  return found;
}
