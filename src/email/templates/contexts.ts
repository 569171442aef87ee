// What a template receives and returns, apart from the templates' list (types.ts), so that a feature's templates
// (email/<feature>/) can use them while the list extends theirs.

/** One message ready to send: plain-text and HTML bodies of the same content. */
export interface EmailMessage {
  /** A header: the sender refuses control characters in it, so never put user-controlled text here. */
  subject: string;
  text: string;
  html: string;
}

/** What every template receives. `username` and `email` are user-controlled: HTML-escape them (renderMessage does). */
export interface NoticeContext {
  /** Product name, from configuration. */
  appName: string;
  /** Username of the account the message is about (for a registration attempt: the existing owner's). */
  username: string;
  /** The recipient address. */
  email: string;
}

/** What the templates of messages carrying a link receive. */
export interface LinkContext extends NoticeContext {
  /** The full link, raw token included; built by EmailLinks from configuration only. */
  link: string;
  /** How long the link stays valid; each language words it itself. */
  expiresInMs: number;
}
