import nodemailer from 'nodemailer';

/**
 * The service's outgoing mail: nodemailer over the SMTP server of SMTP_URL
 * (`smtp://host:port` or `smtps://user:pass@host:465`), from MAIL_FROM.
 */

interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Sends the message; throws when the server cannot be reached or refuses it. */
  send(message: MailMessage): Promise<void>;
}

export function createMailer(options: { smtpUrl: string; from: string }): Mailer {
  const transport = nodemailer.createTransport({
    url: options.smtpUrl,
    // A sign-in page waits for the answer: a server that does not answer is given up on quickly
    // (the URL's own settings, when it has any, win).
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    async send(message) {
      await transport.sendMail({ from: options.from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}
