import { createRequire } from 'node:module';
import type nodemailer from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';

export type OutgoingMail = { to: string; subject: string; text: string; html?: string | null };

export type Mailer = {
  /** Delivers one message. 'sent' when handed to SMTP, 'logged' when no SMTP server is configured. */
  deliver(mail: OutgoingMail): Promise<'sent' | 'logged'>;
  close(): void;
};

const LINK = /https?:\/\/[^\s<>"')]+/g;

export function createMailer(opts: {
  smtpUrl: string | undefined;
  from: string;
  log: FastifyBaseLogger;
}): Mailer {
  if (!opts.smtpUrl) {
    // No mail server: the message stays in the outbox and its links go to the log, so magic links
    // and password resets work on a laptop with nothing else installed.
    return {
      async deliver(mail) {
        opts.log.info(
          { to: mail.to, subject: mail.subject, links: mail.text.match(LINK) ?? [] },
          'e-mail not sent (no SMTP_URL); links logged',
        );
        return 'logged';
      },
      close() {},
    };
  }
  // Loaded only with SMTP_URL set (about 0.2 s and 20 MiB at start otherwise: bench/README.md
  // "Embedded mode").
  const mailer = createRequire(import.meta.url)('nodemailer') as typeof nodemailer;
  const transport = mailer.createTransport(opts.smtpUrl);
  return {
    async deliver(mail) {
      await transport.sendMail({
        from: opts.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html ?? undefined,
      });
      return 'sent';
    },
    close() {
      transport.close();
    },
  };
}
