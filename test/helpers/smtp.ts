import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server on loopback, in the test's process, keeping every message it accepts. */

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
}

export interface TestSmtpServer {
  url: string;
  messages: ReceivedMail[];
  /** Waits (bounded) for the `n`th message (1-based) and returns it. */
  waitForMessage(n: number, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    // Plain SMTP on loopback, as `smtp://127.0.0.1:<port>` says; no login.
    secure: false,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          messages.push({
            from: parsed.from?.text ?? '',
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
          });
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitForMessage(n, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (messages.length < n) {
        if (Date.now() > until) throw new Error(`no message ${n} within ${timeoutMs} ms (got ${messages.length})`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return messages[n - 1]!;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The sign-in link of a message: the one line that is an address on `origin`. */
export function linkIn(mail: ReceivedMail, origin: string): string {
  const line = mail.text.split('\n').find((l) => l.trim().startsWith(`${origin}/`));
  if (!line) throw new Error(`no link to ${origin} in:\n${mail.text}`);
  return line.trim();
}
