import type { AccountContext } from '../account-context';
import type { AdminActor } from '../admin-views';
import type { SessionClient, SignInResult } from '../types';
import type { PasskeyView } from './passkey-view';

/** WORK IN PROGRESS (branch passkeys): signatures fixed, bodies being written by the lead. */
export class Passkeys {
  constructor(private readonly core: AccountContext) {}

  async registrationOptions(sessionToken: string): Promise<Record<string, unknown>> {
    throw new Error(`todo ${sessionToken} ${String(this.core)}`);
  }
  async register(sessionToken: string, response: unknown, name: string): Promise<PasskeyView> {
    throw new Error(`todo ${sessionToken} ${String(response)} ${name}`);
  }
  async list(sessionToken: string): Promise<PasskeyView[]> {
    throw new Error(`todo ${sessionToken}`);
  }
  async rename(sessionToken: string, id: string, name: string): Promise<PasskeyView> {
    throw new Error(`todo ${sessionToken} ${id} ${name}`);
  }
  async remove(sessionToken: string, id: string): Promise<void> {
    throw new Error(`todo ${sessionToken} ${id}`);
  }
  async signInOptions(): Promise<Record<string, unknown>> {
    throw new Error('todo');
  }
  async signIn(response: unknown, client?: SessionClient): Promise<SignInResult> {
    throw new Error(`todo ${String(response)} ${String(client)}`);
  }
  async secondFactorOptions(challengeToken: string): Promise<Record<string, unknown>> {
    throw new Error(`todo ${challengeToken}`);
  }
  async completeSecondFactor(challengeToken: string, response: unknown, client?: SessionClient): Promise<string> {
    throw new Error(`todo ${challengeToken} ${String(response)} ${String(client)}`);
  }
  async reauthenticationOptions(sessionToken: string): Promise<Record<string, unknown>> {
    throw new Error(`todo ${sessionToken}`);
  }
  async reauthenticate(sessionToken: string, response: unknown): Promise<void> {
    throw new Error(`todo ${sessionToken} ${String(response)}`);
  }
  /** An administrator's (checked: `gatehouse.users.read`) or the operator's view of a user's passkeys; audited. */
  async listOf(actor: AdminActor, userId: string): Promise<PasskeyView[]> {
    throw new Error(`todo ${String(actor)} ${userId}`);
  }
  /** An administrator's (`gatehouse.users.write`, recent session) or the operator's removal; audited, mailed. */
  async removeOf(actor: AdminActor, userId: string, id: string): Promise<void> {
    throw new Error(`todo ${String(actor)} ${userId} ${id}`);
  }
}
