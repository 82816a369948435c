import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { emailOutbox } from '../../db/schema/index.ts';
import { createTestApp, startSmtpServer, waitFor } from '../../../test/helpers.ts';
import { DELIVER_EMAIL_JOB } from './outbox.ts';

describe('e-mail outbox job', () => {
  it('delivers a queued message over SMTP when SMTP_URL is set, exactly once', async () => {
    const smtp = await startSmtpServer();
    afterAll(() => smtp.close());
    const app = await createTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Rally <mail@rally.test>' } });

    const id = await app.outbox.enqueue({
      to: 'pat@example.com',
      subject: 'Your sign-in link',
      text: 'Sign in: http://localhost:3000/?token=abc',
    });
    const mail = await waitFor(() => smtp.received.find((m) => m.to.includes('pat@example.com')));
    expect(mail.from).toBe('mail@rally.test');
    expect(mail.raw).toContain('Subject: Your sign-in link');
    expect(mail.raw).toContain('http://localhost:3000/?token=abc');

    const row = await waitFor(async () => {
      const [r] = await app.db.select().from(emailOutbox).where(eq(emailOutbox.id, id));
      return r?.status === 'sent' ? r : undefined;
    });
    expect(row.sentAt).toBeInstanceOf(Date);

    // Running the job again (a retry after a crash) does not send the message a second time.
    await app.queue.send(DELIVER_EMAIL_JOB, { outboxId: id });
    await new Promise((r) => setTimeout(r, 1500));
    expect(smtp.received.filter((m) => m.to.includes('pat@example.com'))).toHaveLength(1);
  });

  it('stores the message and logs its links when no SMTP server is configured', async () => {
    const app = await createTestApp();
    const id = await app.outbox.enqueue({
      to: 'lee@example.com',
      subject: 'Reset',
      text: 'Go to http://localhost/reset-password?hash=1',
    });
    const row = await waitFor(async () => {
      const [r] = await app.db.select().from(emailOutbox).where(eq(emailOutbox.id, id));
      return r?.status === 'logged' ? r : undefined;
    });
    expect(row.toAddress).toBe('lee@example.com');
  });

  it('re-queues messages left pending by a crash', async () => {
    const smtp = await startSmtpServer();
    afterAll(() => smtp.close());
    const app = await createTestApp({ env: { SMTP_URL: smtp.url } });
    // A row stored but never queued, as after a crash between the two steps.
    const [row] = await app.db
      .insert(emailOutbox)
      .values({ toAddress: 'kim@example.com', subject: 'Invitation', textBody: 'Join us' })
      .returning();
    expect(await app.outbox.requeuePending()).toBeGreaterThanOrEqual(1);
    await waitFor(() => smtp.received.find((m) => m.to.includes('kim@example.com')));
    await waitFor(async () => {
      const [r] = await app.db.select().from(emailOutbox).where(eq(emailOutbox.id, row!.id));
      return r?.status === 'sent';
    });
  });

  it('keeps a failed delivery pending with its error, to be retried', async () => {
    const app = await createTestApp({ env: { SMTP_URL: 'smtp://127.0.0.1:1' } });
    const id = await app.outbox.enqueue({ to: 'max@example.com', subject: 'Hi', text: 'Hello' });
    const row = await waitFor(async () => {
      const [r] = await app.db.select().from(emailOutbox).where(eq(emailOutbox.id, id));
      return r && r.attempts > 0 ? r : undefined;
    });
    expect(row.status).toBe('pending');
    expect(row.lastError).toMatch(/ECONNREFUSED|connect/i);
  });
});
