import type { OrganizationRecords } from '../services/organizations/organization-records';

/** SKELETON ONLY, replaced by the stores' organization records before this branch lands. */
export function organizationsNotYetStored(): OrganizationRecords {
  return new Proxy({} as OrganizationRecords, {
    get: () => () => Promise.reject(new Error('organizations are not stored yet')),
  });
}
