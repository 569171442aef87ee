/**
 * What counts as a way to sign in now, for the rule that an account always keeps one: a `password` credential, a
 * `passkey`, or an `oidc` identity whose provider is configured now (`identityProviders`: the provider ids). An
 * identity of a provider taken out of the configuration signs nobody in, so it keeps no account reachable. The core
 * builds it from its options (`AccountContext.wayInRule`); the stores apply it under the user's lock.
 */
export interface WayInRule {
  readonly identityProviders: readonly string[];
}
