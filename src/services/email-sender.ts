/**
 * What the outbox tells a sender about the message it hands over. Every field is optional and senders may ignore
 * the whole argument: an EmailSender written before it existed keeps working unchanged.
 */
export interface EmailContext {
  /**
   * The outbox message id (a UUID): the same on every attempt of one message and different for every message, so a
   * repeated delivery can be recognised. The SMTP sender makes it the `Message-ID` header.
   */
  messageId?: string;
  /** The recipient's locale tag (`fr`, `pt-BR`) when the host's locale hook gave one; unset: the default language. */
  locale?: string;
}

/**
 * Delivery of the account emails (spec section 6). Raw tokens reach the sender and nothing else; an implementation
 * must never log them. A sender may throw: the outbox records the failure (its class and code only), retries with
 * backoff, and the account change stands. A sender is called from the delivery worker, never while a request waits.
 */
export interface EmailSender {
  sendVerification(username: string, email: string, verificationToken: string, context?: EmailContext): Promise<void>;
  sendPasswordReset(username: string, email: string, resetToken: string, context?: EmailContext): Promise<void>;
  sendEmailVerified(username: string, email: string, context?: EmailContext): Promise<void>;
  sendPasswordChanged(username: string, email: string, context?: EmailContext): Promise<void>;
  sendAccountDeleted(username: string, email: string, context?: EmailContext): Promise<void>;
  /**
   * Optional sixth operation: someone tried to register with this address, which already has an account. The
   * registration answers as if it succeeded (no enumeration), so this notice is how the owner learns of it.
   */
  sendRegistrationAttempt?(username: string, email: string, context?: EmailContext): Promise<void>;
  /**
   * Optional, with the three below: a sender without it cannot carry an email change, which is then refused
   * (`email_change_unavailable`). The link to confirm `newEmail` as the address of `username`'s account.
   */
  sendEmailChange?(username: string, newEmail: string, token: string, context?: EmailContext): Promise<void>;
  /** To the current address: someone signed in as `username` asked to change the account's address. */
  sendEmailChangeRequested?(username: string, email: string, context?: EmailContext): Promise<void>;
  /** To the previous address: the account's address was changed. */
  sendEmailChanged?(username: string, previousEmail: string, context?: EmailContext): Promise<void>;
  /** To the owner of an address: another account asked to take it as its address, and was refused. */
  sendEmailChangeAttempt?(username: string, email: string, context?: EmailContext): Promise<void>;
  /** Optional notices of the second factor: it was switched on. */
  sendSecondFactorEnabled?(username: string, email: string, context?: EmailContext): Promise<void>;
  /** It was switched off (by the person, or by an operator). */
  sendSecondFactorDisabled?(username: string, email: string, context?: EmailContext): Promise<void>;
  /** New recovery codes replaced the old ones. */
  sendRecoveryCodesRegenerated?(username: string, email: string, context?: EmailContext): Promise<void>;
  /** A recovery code was used to sign in. */
  sendRecoveryCodeUsed?(username: string, email: string, context?: EmailContext): Promise<void>;
}
