import { AccountController } from '../controllers/account-controller';
import { AdminAuditController } from '../controllers/admin-audit-controller';
import { AdminRolesController } from '../controllers/admin-roles-controller';
import { AdminUsersController } from '../controllers/admin-users-controller';
import { EmailChangeController } from '../controllers/email-changes/email-change-controller';
import { SecondFactorController } from '../controllers/second-factor-controller';
import { SessionsController } from '../controllers/sessions-controller';

/**
 * The controllers of the account routes, in the order their paths are listed: what `accountRoutes()` mounts and the
 * API document describes, from this one list so neither can miss one.
 */
export const ACCOUNT_CONTROLLERS: readonly (new () => object)[] = [
  AccountController,
  SessionsController,
  EmailChangeController,
  SecondFactorController,
  AdminUsersController,
  AdminAuditController,
  AdminRolesController,
];
