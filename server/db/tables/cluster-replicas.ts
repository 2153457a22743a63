/** Scale-out (docs/architecture.md "Scale-out"): the replicas' event log and the shared rate-limit window. */
import type { Generated } from 'kysely';
import type { Defaulted, Json, Timestamp } from './columns';

export interface ClusterEventTable {
  id: Defaulted<number>;
  /** The replica that raised it (it delivered the event itself and skips it on the wire). */
  origin: string;
  kind: string;
  body: Json<unknown>;
  created_at: Timestamp;
}

export interface RateLimitWindowTable {
  access_key: string;
  /** Before migration 0019: the times of the requests counted in the last 900 s (no longer written). */
  hits: number[];
  /** The epoch seconds with requests in the window, oldest first, and how many requests each had. */
  seconds: Generated<number[]>;
  counts: Generated<number[]>;
}
