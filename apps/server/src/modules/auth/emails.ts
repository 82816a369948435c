import { PRODUCT_NAME } from '@rally/shared';
import type { OutgoingMail } from '../mail/mailer.ts';

/** Plain-text e-mails with one link each; the link is also in a minimal HTML part. */
function mail(to: string, subject: string, lines: string[], link: string): OutgoingMail {
  const text = [...lines, '', link, '', `— ${PRODUCT_NAME}`].join('\n');
  const esc = (s: string) =>
    s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const html = `${lines.map((l) => `<p>${esc(l)}</p>`).join('')}<p><a href="${esc(link)}">${esc(link)}</a></p><p>— ${PRODUCT_NAME}</p>`;
  return { to, subject, text, html };
}

export const emails = {
  magicLink: (to: string, link: string) =>
    mail(
      to,
      `Your ${PRODUCT_NAME} sign-in link`,
      ['Use this link to sign in. It works once and expires in 15 minutes.'],
      link,
    ),
  passwordReset: (to: string, link: string) =>
    mail(
      to,
      `Reset your ${PRODUCT_NAME} password`,
      [
        'Someone asked to reset the password of this account. If it was you, choose a new password here within an hour.',
        'If it was not you, ignore this e-mail.',
      ],
      link,
    ),
  registerConfirm: (to: string, link: string) =>
    mail(
      to,
      `Finish creating your ${PRODUCT_NAME} account`,
      [
        `Someone started creating a ${PRODUCT_NAME} account with this address. If it was you, open this link within 24 hours and enter the password you chose to finish.`,
        'If it was not you, ignore this e-mail: no account is created without the link and that password.',
      ],
      link,
    ),
  registerExisting: (to: string, resetLink: string) =>
    mail(
      to,
      `Someone tried to sign up to ${PRODUCT_NAME} with your address`,
      [
        `Someone tried to create a new ${PRODUCT_NAME} account with this e-mail address, which already has one. Nothing was changed.`,
        'If it was not you, you can ignore this e-mail.',
        'If it was you, sign in with your account instead. If you forgot your password, choose a new one here:',
      ],
      resetLink,
    ),
  mfaLocked: (to: string, failures: number, minutes: number, link: string) =>
    mail(
      to,
      `${PRODUCT_NAME}: two-step verification locked after wrong codes`,
      [
        `Someone entered ${failures} wrong two-step verification codes while signing in to your account, so signing in with a code is locked for ${minutes} minutes.`,
        'To get that far they needed your password or a sign-in link sent to this address. If it was not you, choose a new password now:',
      ],
      link,
    ),
  invitation: (to: string, inviter: string, clientName: string, link: string) =>
    mail(
      to,
      `${inviter} invited you to ${clientName} on ${PRODUCT_NAME}`,
      [
        `${inviter} invited you to join ${clientName} on ${PRODUCT_NAME}. The invitation is valid for 7 days.`,
      ],
      link,
    ),
};
