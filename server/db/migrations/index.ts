/** Numbered migrations, applied in order by name. Add a new file; never edit one that has shipped. */
import type { Migration } from 'kysely';
import * as m0001 from './0001_accounts';
import * as m0002 from './0002_cluster';
import * as m0003 from './0003_config_and_logs';
import * as m0004 from './0004_sessions';
import * as m0005 from './0005_agent_heartbeats';
import * as m0006 from './0006_vfolders';
import * as m0007 from './0007_app_routes';
import * as m0008 from './0008_services';
import * as m0009 from './0009_kernel_channel';
import * as m0011 from './0011_oidc_identities';
import * as m0012 from './0012_operations';
import * as m0015 from './0015_queue';
import * as m0016 from './0016_replicas';
import * as m0017 from './0017_list_indexes';
import * as m0018 from './0018_lookup_generation';
import * as m0019 from './0019_rate_limit_seconds';
import * as m0020 from './0020_template_lookup_generation';
import * as m0021 from './0021_queue_generation';

export const migrations: Record<string, Migration> = {
  '0001_accounts': m0001,
  '0002_cluster': m0002,
  '0003_config_and_logs': m0003,
  '0004_sessions': m0004,
  '0005_agent_heartbeats': m0005,
  '0006_vfolders': m0006,
  '0007_app_routes': m0007,
  '0008_services': m0008,
  '0009_kernel_channel': m0009,
  '0011_oidc_identities': m0011,
  '0012_operations': m0012,
  '0015_queue': m0015,
  '0016_replicas': m0016,
  '0017_list_indexes': m0017,
  '0018_lookup_generation': m0018,
  '0019_rate_limit_seconds': m0019,
  '0020_template_lookup_generation': m0020,
  '0021_queue_generation': m0021,
};
