import { TemplatedEmailSender, type TemplatedEmailSenderOptions } from './templated-email-sender';
import type { EmailMessage } from './templates';

/** Where the console sender prints: anything with a `write(string)`, such as a stream. */
export interface TextSink {
  write(chunk: string): unknown;
}

export interface ConsoleEmailSenderOptions extends TemplatedEmailSenderOptions {
  /** Where messages are printed. Default `process.stdout`. */
  output?: TextSink;
}

/**
 * The default sender when no SMTP server is configured: prints each message (recipient, subject, text body) instead
 * of mailing it, and keeps nothing in memory. For development only.
 *
 * @example
 * new ConsoleEmailSender({ links: new EmailLinks({ publicUrl: 'http://127.0.0.1:8000', prefix: '/auth' }) });
 */
export class ConsoleEmailSender extends TemplatedEmailSender {
  private readonly output: TextSink;

  constructor(options: ConsoleEmailSenderOptions) {
    super(options);
    this.output = options.output ?? process.stdout;
    if (typeof this.output.write !== 'function') {
      throw new TypeError('Gatehouse: ConsoleEmailSender output must have a write(string) method');
    }
  }

  // This is the one place a raw token is shown, on purpose: the text body carries the verification or reset link so
  // a developer can click it. It stands in for the mailbox, which is why the full address is printed too; it is not
  // a log, and nothing here reaches the logger.
  protected override async deliver(to: string, message: EmailMessage): Promise<void> {
    this.output.write(
      `----- email (console sender: not sent) -----\nTo: ${to}\nSubject: ${message.subject}\n\n${message.text}` +
        '----- end of email -----\n',
    );
  }
}
