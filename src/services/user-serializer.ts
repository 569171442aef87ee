import { AccountUser, PublicUser } from './types';

/** The default public form of a user (spec section 2): exactly username, email and verified. */
export function defaultUserSerializer(user: AccountUser): PublicUser {
  return { username: user.username, email: user.email, verified: user.verified };
}
