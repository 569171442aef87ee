// One home for what every suite shares: the secret key, the passwords, and the cheapest hashing.

export const TEST_SECRET = 'test-secret-key-0123456789abcdef-0123456789';
export const PASSWORD = 'violet staircase 42 umbrella';
export const OTHER_PASSWORD = 'quiet lantern over 7 rivers';
export const NEW_PASSWORD = 'brand new lighthouse keeper 3';

/** argon2id at its cheapest: these suites are about everything but the cost of a hash, which test/services proves. */
export const CHEAP_HASHING = { memoryCost: 1024, timeCost: 1 };

/** The fields of the account view a host receives (`AccountUser`), sorted: nothing secret, nothing store-internal. */
export const ACCOUNT_USER_KEYS = ['createdAt', 'email', 'id', 'updatedAt', 'username', 'verified'];
