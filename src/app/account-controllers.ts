import { FEATURES } from './features';

/**
 * The controllers of the account routes, in the order their paths are listed: what `accountRoutes()` mounts and the
 * API document describes, read from the features' one list (`FEATURES`) so neither can miss one.
 */
export const ACCOUNT_CONTROLLERS: readonly (new () => object)[] = FEATURES.flatMap((feature) => feature.controllers);
