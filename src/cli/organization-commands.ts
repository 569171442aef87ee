import { OPERATOR } from '../services/admin-views';
import type { CommandGroup } from './command-group';
import { UsageProblem } from './command-options';
import { printable, table } from './terminal-text';

type OrganizationRequest =
  | { subcommand: 'list'; cursor?: string }
  | { subcommand: 'show'; organizationId: string }
  | { subcommand: 'user'; username: string }
  | { subcommand: 'set-owner'; organizationId: string; username: string };

const iso = (value: Date | string) => (value instanceof Date ? value.toISOString() : value);

/**
 * `gatehouse organizations list|show|user|set-owner`: the operator's view of organizations, and naming an owner of
 * one whose owners are gone or unreachable. Through the core as the operator: reads and the change are audited. An
 * unknown organization is `organization_not_found`, an unknown user `user_not_found`, which the CLI prints.
 */
export const ORGANIZATION_COMMANDS: CommandGroup<OrganizationRequest> = {
  usage: [
    ['organizations list [--cursor <cursor>]', 'organizations, 100 a page: id, name, members, created'],
    ['organizations show <id>', 'one organization: its members (with addresses and roles) and pending invitations'],
    ['organizations user <username>', "a user's organizations and their role in each"],
    [
      'organizations set-owner <id> <username>',
      'make a user an owner of the organization, adding the membership if needed (audited)',
    ],
  ],
  notes: [],
  parse(args) {
    const [subcommand, ...rest] = args;
    const positional = rest.every((arg) => !arg.startsWith('--'));
    if (subcommand === 'list') {
      if (rest.length === 0) return { subcommand };
      if (rest.length === 2 && rest[0] === '--cursor' && rest[1] !== '') return { subcommand, cursor: rest[1] };
      throw new UsageProblem('organizations list takes [--cursor <cursor>]');
    }
    if (subcommand === 'show') {
      if (rest.length !== 1 || !positional) throw new UsageProblem('organizations show takes <id>');
      return { subcommand, organizationId: rest[0] };
    }
    if (subcommand === 'user') {
      if (rest.length !== 1 || !positional) throw new UsageProblem('organizations user takes <username>');
      return { subcommand, username: rest[0] };
    }
    if (subcommand === 'set-owner') {
      if (rest.length !== 2 || !positional) throw new UsageProblem('organizations set-owner takes <id> <username>');
      return { subcommand, organizationId: rest[0], username: rest[1] };
    }
    throw new UsageProblem(
      subcommand ? `unknown organizations command "${subcommand}"` : 'organizations needs list, show, user or set-owner',
    );
  },
  async run(request, { accounts, out }) {
    const admin = accounts.organizations.admin;
    if (request.subcommand === 'list') {
      const page = await admin.list(OPERATOR, { limit: 100, cursor: request.cursor });
      if (page.items.length === 0) {
        out('no organizations');
        return;
      }
      const rows = page.items.map((org) => [org.id, printable(org.name), String(org.memberCount), iso(org.createdAt)]);
      for (const line of table([['ID', 'NAME', 'MEMBERS', 'CREATED'], ...rows])) out(line);
      if (page.nextCursor) out(`more: gatehouse organizations list --cursor ${page.nextCursor}`);
      return;
    }
    if (request.subcommand === 'show') {
      const view = await admin.get(OPERATOR, request.organizationId);
      out(`${view.id}  ${printable(view.name)}  created ${iso(view.createdAt)}`);
      out(`members (${view.members.length}):`);
      const members = view.members.map((member) => [
        member.userId,
        member.username,
        printable(member.email ?? '-'),
        member.role,
        iso(member.joinedAt),
      ]);
      for (const line of table([['USER ID', 'USERNAME', 'EMAIL', 'ROLE', 'JOINED'], ...members])) out(line);
      if (view.invitations.length === 0) {
        out('no pending invitations');
        return;
      }
      out(`pending invitations (${view.invitations.length}):`);
      const invitations = view.invitations.map((invitation) => [
        invitation.id,
        printable(invitation.email),
        invitation.role,
        invitation.invitedBy ?? '-',
        iso(invitation.expiresAt),
      ]);
      for (const line of table([['ID', 'EMAIL', 'ROLE', 'INVITED BY', 'EXPIRES'], ...invitations])) out(line);
      return;
    }
    const userId = await accounts.admin.userIdOf(request.username);
    if (request.subcommand === 'set-owner') {
      await admin.setOwner(OPERATOR, request.organizationId, userId);
      out(`${request.username} is an owner of ${request.organizationId}`);
      return;
    }
    const organizations = await admin.userOrganizations(OPERATOR, userId);
    if (organizations.length === 0) {
      out(`${request.username} belongs to no organization`);
      return;
    }
    const rows = organizations.map((org) => [org.id, printable(org.name), org.role, iso(org.joinedAt)]);
    for (const line of table([['ID', 'NAME', 'ROLE', 'JOINED'], ...rows])) out(line);
  },
};
