/**
 * The version of the dashboard's data (`version` of `GET /__mock/dashboard`), apart from its schema
 * (dashboard-schema.ts) so that the page, which must not load zod, can check it.
 */
export const dashboardVersion = 1;
