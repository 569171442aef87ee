import type { AccountService } from '../services/account-service';

/** Where a command writes, and the core it calls. */
export interface CommandIo {
  accounts: AccountService;
  out: (line: string) => void;
}

/**
 * A command with subcommands (`users disable <username>`, `audit list --type login`). `parse` reads the whole
 * command line before the database is opened, so a malformed one costs nothing and changes nothing; it throws a
 * `UsageProblem`. `run` then does what the request says through the core.
 */
export interface CommandGroup<Request> {
  /** The subcommands, as [synopsis, summary], for `gatehouse help`; then lines of notes (options). */
  usage: [string, string][];
  notes: string[];
  parse(args: string[]): Request;
  run(request: Request, io: CommandIo): Promise<void>;
}

/** Usernames are 3 to 32 characters, so a UUID is always a user's id, never a name (a deleted user's, say). */
export const USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
