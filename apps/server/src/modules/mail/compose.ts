import { PRODUCT_NAME } from '@rally/shared';
import type { OutgoingMail } from './mailer.ts';

/** A plain-text notice with one link, also as minimal HTML (the shape of the product's e-mails). */
export function noticeMail(to: string, subject: string, lines: string[], link: string): OutgoingMail {
  const text = [...lines, '', link, '', `— ${PRODUCT_NAME}`].join('\n');
  const esc = (s: string) =>
    s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const html = `${lines.map((l) => `<p>${esc(l)}</p>`).join('')}<p><a href="${esc(link)}">${esc(link)}</a></p><p>— ${PRODUCT_NAME}</p>`;
  return { to, subject, text, html };
}
