// The address every service account is created with: `<user id>@service-accounts.invalid`. The `.invalid` top-level
// domain is reserved (RFC 2606) and never resolves, so nothing sent there arrives, and no person can confirm such an
// address through a link; an account that owns one is a service account, which is never mailed. At the services'
// root because the account's own flows (a reset request, a registration or email change naming the address) skip
// mail to it, as the API keys' slice does.

/** The domain of every service account's address. */
export const SERVICE_ACCOUNT_DOMAIN = 'service-accounts.invalid';

/** The address of the service account with this user id. */
export function serviceAccountAddress(userId: string): string {
  return `${userId}@${SERVICE_ACCOUNT_DOMAIN}`;
}

/** Whether a canonical address (or its key) is a service account's: nothing is ever mailed to it. */
export function isServiceAccountAddress(email: string): boolean {
  return email.toLowerCase().endsWith(`@${SERVICE_ACCOUNT_DOMAIN}`);
}
