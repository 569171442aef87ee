import type { BrowserLocation, BrowserStorage } from './browser';

declare const location: BrowserLocation;
declare const sessionStorage: BrowserStorage;

export interface TabSession {
  loadSession: () => string | null;
  saveSession: (token: string) => void;
  endSession: () => void;
  /** Goes to another page, which shows `notice` once. */
  leave: (path: string, notice: string) => void;
  /** The notice a page left for this one, read once. */
  takeNotice: () => string | null;
  /** Remembers the name of the provider this tab is leaving for, for the return page to name it. */
  noteProvider: (name: string) => void;
  /** The name of the provider this tab went to, read once. */
  takeProvider: () => string | null;
  /**
   * Keeps the token of the invitation this tab opened, so that a newcomer who signs up and signs in in this tab comes
   * back to it (the sign-in opens the invitation page instead of the account page while one is kept).
   */
  keepInvitation: (token: string) => void;
  /** The invitation token this tab keeps, or null. */
  keptInvitation: () => string | null;
  /** Forgets it: accepted, declined, or found dead. */
  dropInvitation: () => void;
}

/**
 * The session of this tab (and the invitation it opened). sessionStorage: the token lives as long as the tab, is never sent by the browser on its
 * own (so no request forgery), and never reaches a URL. Storage can be unavailable (privacy settings): then nobody
 * stays signed in. Keys carry the API's prefix, so two mounts on one origin keep their sessions apart.
 */
export function tabSession(api: string): TabSession {
  const SESSION_KEY = `gatehouse.session ${api}`;
  const NOTICE_KEY = `gatehouse.notice ${api}`;
  const PROVIDER_KEY = `gatehouse.provider ${api}`;
  const INVITATION_KEY = `gatehouse.invitation ${api}`;

  function storage(action: (store: typeof sessionStorage) => string | null | void): string | null {
    try {
      return action(sessionStorage) ?? null;
    } catch {
      return null;
    }
  }
  const loadSession = () => storage((store) => store.getItem(SESSION_KEY));
  const saveSession = (token: string) => storage((store) => store.setItem(SESSION_KEY, token));
  const endSession = () => storage((store) => store.removeItem(SESSION_KEY));

  function leave(path: string, notice: string): void {
    storage((store) => store.setItem(NOTICE_KEY, notice));
    location.assign(api + path);
  }

  function taken(key: string): string | null {
    const value = storage((store) => store.getItem(key));
    if (value) storage((store) => store.removeItem(key));
    return value;
  }
  const takeNotice = () => taken(NOTICE_KEY);
  const noteProvider = (name: string) => storage((store) => store.setItem(PROVIDER_KEY, name));
  const takeProvider = () => taken(PROVIDER_KEY);

  const keepInvitation = (token: string) => storage((store) => store.setItem(INVITATION_KEY, token));
  const keptInvitation = () => storage((store) => store.getItem(INVITATION_KEY));
  const dropInvitation = () => storage((store) => store.removeItem(INVITATION_KEY));

  return {
    loadSession,
    saveSession,
    endSession,
    leave,
    takeNotice,
    noteProvider,
    takeProvider,
    keepInvitation,
    keptInvitation,
    dropInvitation,
  };
}
