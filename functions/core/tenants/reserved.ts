/** The tenant id of the operator's admin scope: never the id of a tenant. */
export const ADMIN_TENANT_ID = 'admin';
