/** Images and the apps (service ports) they offer. */
import type { Json, Timestamp, Defaulted } from './columns';

export interface ServicePort {
  name: string;
  protocol: 'http' | 'tcp' | 'preopen' | 'internal' | 'pty';
  ports: number[];
  /** How the runner starts the app; {port} and {base_url} are filled in. */
  argv?: string[];
  url_template?: string | null;
  allowed_arguments?: string[] | null;
  allowed_envs?: string[] | null;
}

export interface ImageTable {
  id: string;
  name: string;
  registry: Defaulted<string>;
  architecture: Defaulted<string>;
  runtime: string;
  tag: Defaulted<string>;
  labels: Json<Record<string, string>>;
  resource_limits: Json<Record<string, { min: string; max?: string | null }>>;
  service_ports: Json<ServicePort[]>;
  snapshot_dir: Defaulted<string | null>;
  owner_access_key: Defaulted<string | null>;
  size_bytes: Defaulted<number>;
  is_active: Defaulted<boolean>;
  created_at: Timestamp;
}
