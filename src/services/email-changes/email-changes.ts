import { AccountError, invalidSession } from '../../errors/account-error';
import { AccountContext } from '../account-context';
import { anonymous, self } from '../audit-trail';
import { canonicalEmail } from '../identity';
import { canSend } from '../sender-operations';
import { isRawToken } from '../token-hasher';
import { isServiceAccountAddress } from '../service-account-address';

const invalidEmailChangeToken = () =>
  new AccountError('invalid_email_change_token', 'Email change link is invalid or expired');

/**
 * Changing the address of an account: asked for on a recently authenticated session, made only when the link sent
 * to the new address is confirmed (an address belongs to whoever proves it), with notices to the old address on
 * both steps. Whether the new address is free is decided at confirmation, inside the store's transaction.
 */
export class EmailChanges {
  constructor(private readonly core: AccountContext) {}

  /**
   * Asks to change the address to `newEmail`: needs a recent password. The new address is mailed a single-use link
   * (superseding any earlier request); nothing changes until it is confirmed. The current address is told of the
   * request. A new address that a verified account owns gets the same answer, the same rows written and the same
   * notice to the current address, but no link: its owner is told instead, so the answer says nothing about who has
   * an account. `endOtherSessions` (default true): the other sessions end when the change is made.
   */
  async request(token: string, newEmail: string, options: { endOtherSessions?: boolean } = {}): Promise<void> {
    const { user, session } = await this.core.requireRecentSession(token);
    if (!canSend(this.core.sender, 'emailChange')) {
      throw new AccountError('email_change_unavailable', 'Email change is not available on this server');
    }
    const address = canonicalEmail(newEmail);
    if (address.emailKey === user.emailKey) {
      throw new AccountError('invalid_email', 'That is already the address of this account');
    }
    const mayMail = await this.core.mayMail('email-change.email', address.emailKey);
    const now = this.core.clock.now();
    const changeToken = this.core.tokens.generate();
    const change = {
      tokenHash: this.core.tokens.hash(changeToken),
      userId: user.id,
      newEmail: address.email,
      newEmailKey: address.emailKey,
      createdAt: now,
      expiresAt: new Date(now.getTime() + this.core.options.emailChangeTokenTtlMs),
      endOtherSessions: options.endOtherSessions ?? true,
      keepSessionId: session.id,
    };
    // A service account's address is never mailed (it has no mailbox).
    const canNotifyOwner =
      canSend(this.core.sender, 'emailChangeAttempt') && !isServiceAccountAddress(address.emailKey);
    const canNotifyRequester = canSend(this.core.sender, 'emailChangeRequested');
    const link = mayMail ? this.core.messages.link('emailChange', now, changeToken, change.expiresAt) : undefined;
    const ownerNotice = mayMail && canNotifyOwner ? this.core.messages.notice('emailChangeAttempt', now) : undefined;
    const requestedNotice = canNotifyRequester ? this.core.messages.notice('emailChangeRequested', now) : undefined;
    const audit = this.core.audit.event('email_change_requested', 'success', self(user.id));
    const result = await this.core.store.transaction(async (tx) => {
      const result = await tx.emailChanges.request(change, session.tokenHash);
      if (!result.ok) return result;
      const { owner, user: changing } = result;
      // The link to the new address, or, when a verified account owns it, the notice to that owner instead.
      if (owner) {
        if (ownerNotice) await tx.outbox.add(ownerNotice, owner);
      } else if (link) {
        await tx.outbox.add(link, { id: changing.id, username: changing.username, email: change.newEmail });
      }
      // To the current address, on both paths.
      if (requestedNotice) await tx.outbox.add(requestedNotice, changing);
      await tx.audit.add(audit);
      return result;
    });
    if (!result.ok) throw invalidSession();
    const outcome = result.owner ? 'address_owned' : 'requested';
    this.core.logger.info({ event: 'email_change_requested', outcome, userId: user.id }, 'email change requested');
    this.core.delivery?.nudge();
  }

  /**
   * Spends an email-change link and makes its address the account's. Whether the address is still free is decided
   * here, inside the store's transaction; the previous address is told. A link is confirmed by this call (a POST),
   * never by opening it, so a mail scanner following links spends nothing.
   */
  async confirm(token: string): Promise<void> {
    if (!isRawToken(token)) throw invalidEmailChangeToken();
    const now = this.core.clock.now();
    const canNotify = canSend(this.core.sender, 'emailChanged');
    const tokenHash = this.core.tokens.hash(token);
    const notice = canNotify ? this.core.messages.notice('emailChanged', now) : undefined;
    const audit = this.core.audit.event('email_change', 'success', anonymous(null));
    const result = await this.core.store.transaction(async (tx) => {
      const result = await tx.emailChanges.confirm(tokenHash, now);
      if (result.outcome !== 'changed') return result;
      const { user, previousEmail } = result;
      // The notice goes to the address the account had: its owner learns of the change.
      if (notice) await tx.outbox.add(notice, { id: user.id, username: user.username, email: previousEmail });
      // About the account the token named, known once the store found it.
      await tx.audit.add({ ...audit, subjectId: user.id });
      return result;
    });
    if (result.outcome !== 'changed') {
      const outcome = result.outcome === 'taken' ? 'taken' : 'invalid_token';
      this.core.logger.info({ event: 'email_change', outcome }, 'email change refused');
      await this.core.audit.record('email_change', outcome, anonymous(null));
      throw invalidEmailChangeToken();
    }
    this.core.logger.info(
      { event: 'email_change', outcome: 'changed', userId: result.user.id, endedSessions: result.endedSessions },
      'email address changed',
    );
    this.core.delivery?.nudge();
  }

  /** The account and new address an email-change link would confirm, without spending it; null when dead. */
  async pending(token: string): Promise<{ username: string; newEmail: string } | null> {
    if (!isRawToken(token)) return null;
    const found = await this.core.store.emailChanges.find(this.core.tokens.hash(token), this.core.clock.now());
    return found && { username: found.user.username, newEmail: found.change.newEmail };
  }
}
