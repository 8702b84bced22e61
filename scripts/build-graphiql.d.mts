/** Types for scripts/build-graphiql.mjs, which the tests call to make sure the assets exist. */
export const OUT_DIR: string;
export function isUpToDate(): boolean;
export function buildGraphiQL(opts?: { force?: boolean }): Promise<{ built: boolean; dir: string }>;
