/**
 * Delivery of the account emails (spec section 6). Raw tokens reach the sender and nothing else; an implementation
 * must never log them. A sender may throw: the core logs the failure and the account change stands.
 */
export interface EmailSender {
  sendVerification(username: string, email: string, verificationToken: string): Promise<void>;
  sendPasswordReset(username: string, email: string, resetToken: string): Promise<void>;
  sendEmailVerified(username: string, email: string): Promise<void>;
  sendPasswordChanged(username: string, email: string): Promise<void>;
  sendAccountDeleted(username: string, email: string): Promise<void>;
  /**
   * Optional sixth operation: someone tried to register with this address, which already has an account. The
   * registration answers as if it succeeded (no enumeration), so this notice is how the owner learns of it.
   */
  sendRegistrationAttempt?(username: string, email: string): Promise<void>;
}
