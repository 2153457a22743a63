/**
 * A user's keypair in the two shapes the dashboard knows: as the manager's GraphQL answers it (with the access
 * key; read only by the /api/admin/keypairs route, on the server) and as that route hands it to the admin pages
 * (an opaque id and a hint instead of the key). Types only, so the route and the page share one list of fields.
 */
interface KeypairFields {
  is_active: boolean;
  is_admin: boolean;
  resource_policy: string;
  rate_limit: number | null;
  num_queries: number;
  created_at: string | null;
  last_used: string | null;
}

/** The manager's row; never leaves the dashboard's server. */
export interface KeypairRow extends KeypairFields {
  access_key: string;
}

/** What the browser receives. */
export interface MaskedKeypair extends KeypairFields {
  id: string;
  hint: string;
  is_main: boolean;
}
