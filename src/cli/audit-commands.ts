import { AUDIT_EVENT_TYPES, type AuditEvent, type AuditEventType } from '../services/audit-event';
import { MAX_PAGE_SIZE, type AuditFilters } from '../services/admin-views';
import { OPERATOR } from '../services/admin-views';
import { USER_ID, type CommandGroup } from './command-group';
import { dateOption, integerOption, parseOptions, UsageProblem } from './command-options';
import { printable, table } from './terminal-text';

/** `--user` is kept as typed until the database is open: a username is resolved to its id then. */
type AuditRequest = { filters: Omit<AuditFilters, 'userId'>; user?: string };

const LIST_FLAGS = {
  user: 'single',
  type: 'list',
  since: 'single',
  until: 'single',
  limit: 'single',
  cursor: 'single',
} as const;

/**
 * `gatehouse audit list`: the audit trail, newest first, a page at a time, one line per event. It shows what the
 * trail holds, which is never a token, password, hash or email address: users are their ids.
 */
export const AUDIT_COMMANDS: CommandGroup<AuditRequest> = {
  usage: [['audit list [options]', 'the audit trail, newest first, a page at a time (one line per event)']],
  notes: [
    'audit list options: --user <username or user id>, --type <type>[,<type>...] (repeatable), --since <instant>,',
    `  --until <instant>, --limit <1-${MAX_PAGE_SIZE}>, --cursor <next cursor>`,
  ],
  parse(args) {
    const [subcommand, ...rest] = args;
    if (subcommand !== 'list')
      throw new UsageProblem(subcommand ? `unknown audit command "${subcommand}"` : 'audit needs list');
    const options = parseOptions(rest, LIST_FLAGS);
    if (typeof options === 'string') throw new UsageProblem(`audit list: ${options}`);
    if (options.positional.length > 0) throw new UsageProblem(`audit list: unexpected "${options.positional[0]}"`);
    const types = options.list.get('type');
    const unknown = types?.find((type) => !(AUDIT_EVENT_TYPES as readonly string[]).includes(type));
    if (unknown !== undefined)
      throw new UsageProblem(`audit list: unknown event type "${unknown}"; the types: ${AUDIT_EVENT_TYPES.join(', ')}`);
    return {
      user: options.single.get('user'),
      filters: {
        types: types as AuditEventType[] | undefined,
        since: dateOption(options, 'since'),
        until: dateOption(options, 'until'),
        limit: integerOption(options, 'limit', 1, MAX_PAGE_SIZE),
        cursor: options.single.get('cursor'),
      },
    };
  },
  async run({ user, filters }, { accounts, out }) {
    // An id also finds the events of a user since deleted, whose name resolves no more.
    const userId =
      user === undefined ? undefined : USER_ID.test(user) ? user.toLowerCase() : await accounts.admin.userIdOf(user);
    const page = await accounts.admin.listAuditEvents(OPERATOR, { ...filters, userId });
    if (page.items.length === 0) out('no events');
    else {
      const header = ['AT', 'TYPE', 'OUTCOME', 'ACTOR', 'SUBJECT', 'IP', 'REQUEST', 'DETAILS'];
      for (const line of table([header, ...page.items.map(columns)])) out(line);
    }
    if (page.nextCursor !== null) out(`next cursor: ${page.nextCursor}`);
  },
};

function columns(event: AuditEvent): string[] {
  return [
    event.at.toISOString(),
    event.type,
    printable(event.outcome),
    event.actorId === null ? event.actorType : `${event.actorType}:${event.actorId}`,
    event.subjectId ?? '-',
    event.ip ?? '-',
    event.requestId ?? '-',
    details(event),
  ];
}

/** `key=value` pairs, the way they were recorded (names and counts only). */
function details(event: AuditEvent): string {
  if (event.details === null) return '-';
  const pairs = Object.entries(event.details).map(([key, value]) => `${key}=${String(value)}`);
  return pairs.length === 0 ? '-' : printable(pairs.join(' '));
}
