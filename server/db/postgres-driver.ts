/**
 * node-postgres, loaded by the first PostgreSQL connection: a manager on the embedded database (what `npm start`
 * runs) never connects to a PostgreSQL server, and the driver is ~3 MB of heap and code it would keep for nothing.
 */
export type Postgres = typeof import('pg').default;

export async function postgresDriver(): Promise<Postgres> {
  return (await import('pg')).default;
}
