import type { BrowserDocument, PageElement } from './browser';
import type { PageKit } from './page-kit';

declare const document: BrowserDocument;

export interface UserSummary {
  id: string;
  username: string;
  email: string;
  verified: boolean;
  disabled: boolean;
  created_at: string;
}
export interface AdminUser extends UserSummary {
  disabled_at: string | null;
  last_sign_in_at: string | null;
  roles: string[];
  permissions: string[];
  second_factor: boolean;
  session_count: number;
}
export interface AuditEventRow {
  at: string;
  type: string;
  outcome: string;
  actor: { type: string; id: string | null };
  subject_id: string | null;
  ip: string | null;
  details: Record<string, unknown> | null;
}

export interface AdminRows {
  /** A row of the accounts table; its name is a button that picks the account. */
  userRow: (summary: UserSummary, pick: (id: string) => Promise<void>) => PageElement;
  /** The account picked, as a list of terms in `#user-details`. */
  showUserDetails: (answer: AdminUser) => void;
  eventRow: (event: AuditEventRow) => PageElement;
}

/** What the administration page shows of the admin API's answers: accounts, one account, its audit events. */
export function adminRows({ busy, textCell, timeCell, timeOf, byId }: PageKit): AdminRows {
  const yesNo = (value: boolean) => (value ? 'Yes' : 'No');

  function userRow(summary: UserSummary, pick: (id: string) => Promise<void>): PageElement {
    const row = document.createElement('tr');
    const name = document.createElement('td');
    const button = document.createElement('button');
    button.setAttribute('type', 'button');
    button.setAttribute('class', 'link');
    button.textContent = summary.username;
    button.addEventListener('click', () => void busy(button, () => pick(summary.id)));
    name.append(button);
    row.append(
      name,
      textCell(summary.email),
      textCell(yesNo(summary.verified)),
      textCell(yesNo(summary.disabled)),
      timeCell(summary.created_at),
    );
    return row;
  }

  function showUserDetails(answer: AdminUser): void {
    const none = (names: string[]) => (names.length > 0 ? names.join(', ') : 'None');
    const details: [string, string | PageElement][] = [
      ['Email address', answer.email],
      ['Verified', yesNo(answer.verified)],
      ['Disabled', answer.disabled_at ? timeOf(answer.disabled_at) : 'No'],
      ['Two-factor sign-in', answer.second_factor ? 'On' : 'Off'],
      ['Sessions', String(answer.session_count)],
      ['Roles', none(answer.roles)],
      ['Permissions', none(answer.permissions)],
      ['Created', timeOf(answer.created_at)],
      ['Last sign-in', answer.last_sign_in_at ? timeOf(answer.last_sign_in_at) : 'Never'],
      ['Id', answer.id],
    ];
    const list = byId('user-details');
    list.replaceChildren();
    for (const [label, value] of details) {
      const term = document.createElement('dt');
      term.textContent = label;
      const description = document.createElement('dd');
      description.append(value);
      list.append(term, description);
    }
  }

  /** Who acted, in words; ids of other accounts are shown as they are, for the CLI or the API to look up. */
  function actorText(event: AuditEventRow): string {
    const { type, id } = event.actor;
    if (type === 'user') return id === event.subject_id ? 'The account itself' : `Account ${id ?? ''}`;
    if (type === 'admin')
      return id === event.subject_id ? 'The account itself, as administrator' : `Administrator ${id ?? ''}`;
    if (type === 'operator') return 'The operator (command line)';
    if (type === 'anonymous') return 'Nobody signed in';
    return type;
  }

  function eventRow(event: AuditEventRow): PageElement {
    const row = document.createElement('tr');
    const details = Object.entries(event.details ?? {})
      .map(([key, value]) => `${key}: ${String(value)}`)
      .join(', ');
    row.append(
      timeCell(event.at),
      textCell(event.type),
      textCell(event.outcome),
      textCell(actorText(event)),
      textCell(event.ip ?? ''),
      textCell(details),
    );
    return row;
  }

  return { userRow, showUserDetails, eventRow };
}
