import { PRODUCT_NAME, escapeHtml } from '@rally/shared';
import { snippetHtml, snippetText } from '@rally/shared/utils/email-snippet';
import type { OutgoingMail } from '../mail/mailer.ts';

/**
 * The test e-mail of a cadence's snippet: the snippet as the platform would send it to one of the
 * cadence's prospects (their ad image and click URLs in place of the merge fields), marked as a
 * test so that opening it counts nothing for that prospect.
 */
export function snippetTestMail(o: {
  to: string;
  cadenceName: string;
  prospectName: string;
  imageUrl: string;
  clickUrl: string;
  alt?: string;
  label?: string;
}): OutgoingMail {
  const intro = [
    `This is how the ad looks in the e-mails of the cadence “${o.cadenceName}”, as ${o.prospectName} would get it.`,
    'Only you got this test. Opening it or clicking the ad counts nothing for that prospect.',
  ];
  const html =
    `<div style="font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.5;color:#1f2937">` +
    intro.map((l) => `<p style="margin:0 0 12px">${escapeHtml(l)}</p>`).join('') +
    `<div style="margin:20px 0">${snippetHtml(o.imageUrl, o.clickUrl, o.alt)}</div>` +
    `<p style="margin:0 0 12px;color:#4b5563">In a plain-text e-mail the same place reads:<br>${escapeHtml(snippetText(o.clickUrl, o.label))}</p>` +
    `<p style="margin:0;color:#6b7280">— ${escapeHtml(PRODUCT_NAME)}</p></div>`;
  const text = [...intro, '', snippetText(o.clickUrl, o.label), '', `— ${PRODUCT_NAME}`].join('\n');
  return { to: o.to, subject: `Test of your e-mail ad: ${o.cadenceName}`, text, html };
}
