// Types of scripts/slurm-cluster.mjs for TypeScript tests and benches.
export interface SlurmTestNode {
  name: string;
  addr: string;
}

export interface SlurmTestCluster {
  /** slurm.conf path */
  conf: string;
  /** 'berth', the default partition */
  partition: string;
  nodes: SlurmTestNode[];
  bridgeAddr: string;
  env: { SLURM_CONF: string };
  /** the directory holding every file of the cluster */
  dir: string;
  killNode(name: string): void;
  startNode(name: string): Promise<void>;
  stop(): Promise<void>;
}

export function startSlurmCluster(options?: { nodes?: number; cpusPerNode?: number; memPerNodeMb?: number; dir?: string }): Promise<SlurmTestCluster>;
export function killSlurmNode(name: string): void;
export function startSlurmNode(conf: string, name: string): Promise<void>;
export function slurmTestEnv(cluster: SlurmTestCluster): { BERTH_TEST_SLURM_CONF: string; BERTH_TEST_SLURM_NODES: string };
