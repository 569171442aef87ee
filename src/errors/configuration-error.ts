/**
 * A mistake in how Gatehouse was set up (a missing DI token, a short secret key, bad options), phrased as what to
 * fix. Its message never holds a secret, so unlike other unexpected errors it is logged in full; the client still
 * gets a generic 500.
 */
export class ConfigurationError extends TypeError {
  override name = 'ConfigurationError';
}
