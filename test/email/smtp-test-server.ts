import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress, type SMTPServerAuthentication } from 'smtp-server';

/** One message as the server received it. */
export interface ReceivedMail {
  mailFrom: string;
  rcptTo: string[];
  raw: string;
}

export interface SmtpTestServerHooks {
  /** Return an error (with `responseCode`) to refuse a recipient. */
  rejectRecipient?: (address: string) => Error | undefined;
  /** Return an error to refuse the message after its body was received. */
  rejectData?: (raw: string) => Error | undefined;
  /**
   * Awaited after the body arrived and before the reply (and before `rejectData`): lets a test hold the reply, for
   * instance to kill the client while the server has the whole message but has not said whether it takes it.
   */
  beforeReply?: (raw: string) => Promise<void> | void;
  /**
   * Keep the message as received before `beforeReply` runs, as a server that has accepted it and is about to say so
   * (the client may die before it hears). Default: kept only when it is accepted.
   */
  keepBeforeReply?: boolean;
  /** When set, AUTH is required and checked against these credentials. */
  credentials?: { username: string; password: string };
}

/** A real SMTP server on loopback (port 0) that keeps what it receives. */
export interface SmtpTestServer {
  port: number;
  url: string;
  received: ReceivedMail[];
  /** Every RCPT TO address offered, accepted or not. */
  recipientsOffered: string[];
  connections: number;
  authenticatedUsers: string[];
  close(): Promise<void>;
}

export function smtpError(responseCode: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode });
}

export async function startSmtpServer(hooks: SmtpTestServerHooks = {}): Promise<SmtpTestServer> {
  const state = {
    received: [] as ReceivedMail[],
    recipientsOffered: [] as string[],
    connections: 0,
    authenticatedUsers: [] as string[],
  };
  const server = new SMTPServer({
    authOptional: !hooks.credentials,
    allowInsecureAuth: true,
    // The client would otherwise upgrade to TLS against smtp-server's self-signed certificate.
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      state.connections += 1;
      callback();
    },
    onAuth(auth: SMTPServerAuthentication, _session, callback) {
      const expected = hooks.credentials;
      if (expected && auth.username === expected.username && auth.password === expected.password) {
        state.authenticatedUsers.push(auth.username ?? '');
        return callback(null, { user: auth.username });
      }
      return callback(smtpError(535, 'Authentication failed'));
    },
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      state.recipientsOffered.push(address.address);
      callback(hooks.rejectRecipient?.(address.address));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const mail = {
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw,
        };
        if (hooks.keepBeforeReply) state.received.push(mail);
        await hooks.beforeReply?.(raw);
        const refusal = hooks.rejectData?.(raw);
        if (refusal) return callback(refusal);
        if (!hooks.keepBeforeReply) state.received.push(mail);
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    get received() {
      return state.received;
    },
    get recipientsOffered() {
      return state.recipientsOffered;
    },
    get connections() {
      return state.connections;
    },
    get authenticatedUsers() {
      return state.authenticatedUsers;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The Message-ID header of a raw message, as sent. */
export function messageIdOf(mail: ReceivedMail): string | undefined {
  return rawHeaderLines(mail.raw)
    .find((line) => /^message-id:/i.test(line))
    ?.replace(/^message-id:\s*/i, '');
}

export function parseMail(mail: ReceivedMail): Promise<ParsedMail> {
  return simpleParser(mail.raw);
}

/** The header block of a raw message, unfolded, one header per line. */
export function rawHeaderLines(raw: string): string[] {
  const head = raw.slice(0, raw.indexOf('\r\n\r\n'));
  return head.replace(/\r\n[ \t]+/g, ' ').split('\r\n');
}
